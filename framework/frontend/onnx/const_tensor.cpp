#include "framework/frontend/onnx/const_tensor.hpp"

#include <cmath>
#include <cstring>

namespace tessera::onnx_import {

namespace {

using onnx::TensorProto;

// Little-endian raw bytes of `count` elements of T, widened to Out.
template <class T, class Out>
bool read_raw(const std::string& raw, int64_t count, std::vector<Out>& out) {
  if (raw.size() != static_cast<size_t>(count) * sizeof(T)) return false;
  out.resize(static_cast<size_t>(count));
  for (int64_t i = 0; i < count; ++i) {
    T v;
    std::memcpy(&v, raw.data() + i * sizeof(T), sizeof(T));
    out[i] = static_cast<Out>(v);
  }
  return true;
}

bool read_raw_any(const TensorProto& p, int64_t count, ConstTensor& t) {
  const std::string& raw = p.raw_data();
  switch (p.data_type()) {
    case TensorProto::FLOAT:
      return read_raw<float>(raw, count, t.floats);
    case TensorProto::DOUBLE:
      return read_raw<double>(raw, count, t.floats);
    case TensorProto::INT64:
      return read_raw<int64_t>(raw, count, t.ints);
    case TensorProto::INT32:
      return read_raw<int32_t>(raw, count, t.ints);
    case TensorProto::INT16:
      return read_raw<int16_t>(raw, count, t.ints);
    case TensorProto::UINT16:
      return read_raw<uint16_t>(raw, count, t.ints);
    case TensorProto::INT8:
      return read_raw<int8_t>(raw, count, t.ints);
    case TensorProto::UINT8:
    case TensorProto::BOOL:
      return read_raw<uint8_t>(raw, count, t.ints);
    default:
      return false;
  }
}

bool read_fields(const TensorProto& p, ConstTensor& t) {
  switch (p.data_type()) {
    case TensorProto::FLOAT:
      t.floats.assign(p.float_data().begin(), p.float_data().end());
      break;
    case TensorProto::DOUBLE:
      t.floats.assign(p.double_data().begin(), p.double_data().end());
      break;
    case TensorProto::INT64:
      t.ints.assign(p.int64_data().begin(), p.int64_data().end());
      break;
    case TensorProto::INT32:
    case TensorProto::INT16:
    case TensorProto::UINT16:
    case TensorProto::INT8:
    case TensorProto::UINT8:
    case TensorProto::BOOL:
      t.ints.assign(p.int32_data().begin(), p.int32_data().end());
      break;
    default:
      return false;
  }
  return true;
}

}  // namespace

bool is_float_type(int32_t t) {
  return t == TensorProto::FLOAT || t == TensorProto::DOUBLE;
}

bool is_int_type(int32_t t) {
  switch (t) {
    case TensorProto::INT64:
    case TensorProto::INT32:
    case TensorProto::INT16:
    case TensorProto::UINT16:
    case TensorProto::INT8:
    case TensorProto::UINT8:
    case TensorProto::BOOL:
      return true;
    default:
      return false;
  }
}

bool ConstTensor::is_float() const {
  return is_float_type(elem_type);
}

double ConstTensor::as_double(int64_t i) const {
  return is_float() ? floats[i] : static_cast<double>(ints[i]);
}

std::optional<int64_t> ConstTensor::as_int(int64_t i) const {
  if (!is_float()) return ints[i];
  double v = floats[i];
  if (!std::isfinite(v) || std::fabs(v) >= 9.2e18) return std::nullopt;
  return static_cast<int64_t>(v);
}

std::optional<int64_t> small_count(const std::vector<int64_t>& dims, int64_t limit) {
  int64_t n = 1;
  for (int64_t d : dims) {
    if (d < 0 || d > limit) return std::nullopt;
    n *= d;
    if (n > limit) return std::nullopt;
  }
  return n;
}

std::optional<ConstTensor> decode_tensor(const TensorProto& p) {
  if (p.data_location() == TensorProto::EXTERNAL) return std::nullopt;
  if (!is_float_type(p.data_type()) && !is_int_type(p.data_type())) return std::nullopt;
  ConstTensor t;
  t.elem_type = p.data_type();
  t.dims.assign(p.dims().begin(), p.dims().end());
  auto count = small_count(t.dims);
  if (!count) return std::nullopt;
  bool ok = p.has_raw_data() ? read_raw_any(p, *count, t) : read_fields(p, t);
  if (!ok || t.size() != *count) return std::nullopt;
  return t;
}

TensorProto encode_tensor(const ConstTensor& value, const std::string& name) {
  TensorProto p;
  p.set_name(name);
  p.set_data_type(value.elem_type);
  for (int64_t d : value.dims) p.add_dims(d);
  switch (p.data_type()) {
    case TensorProto::FLOAT:
      for (double v : value.floats) p.add_float_data(static_cast<float>(v));
      break;
    case TensorProto::DOUBLE:
      for (double v : value.floats) p.add_double_data(v);
      break;
    case TensorProto::INT64:
      for (int64_t v : value.ints) p.add_int64_data(v);
      break;
    default:  // the narrower integer types and bool are stored in int32_data
      for (int64_t v : value.ints) p.add_int32_data(static_cast<int32_t>(v));
  }
  return p;
}

namespace {

// Bytes per element in raw_data, and how many typed-field values one element takes.
struct Storage {
  int64_t raw_bytes;
  int64_t field_values;
};

std::optional<Storage> storage(int32_t t) {
  switch (t) {
    case TensorProto::UINT8:
    case TensorProto::INT8:
    case TensorProto::BOOL:
      return Storage{1, 1};
    case TensorProto::UINT16:
    case TensorProto::INT16:
    case TensorProto::FLOAT16:
    case TensorProto::BFLOAT16:
      return Storage{2, 1};
    case TensorProto::FLOAT:
    case TensorProto::INT32:
    case TensorProto::UINT32:
      return Storage{4, 1};
    case TensorProto::INT64:
    case TensorProto::DOUBLE:
    case TensorProto::UINT64:
      return Storage{8, 1};
    case TensorProto::COMPLEX64:
      return Storage{8, 2};
    case TensorProto::COMPLEX128:
      return Storage{16, 2};
    default:
      return std::nullopt;
  }
}

int64_t typed_values(const TensorProto& p) {
  return p.float_data_size() + p.int32_data_size() + p.int64_data_size() + p.double_data_size() +
         p.uint64_data_size() + p.string_data_size();
}

}  // namespace

std::string tensor_data_problem(const TensorProto& p) {
  int64_t count = 1;
  for (int64_t d : p.dims())
    if (d < 0 || __builtin_mul_overflow(count, d, &count) || count > (int64_t{1} << 48))
      return "has an invalid shape";
  if (p.data_location() == TensorProto::EXTERNAL) return "";
  auto s = storage(p.data_type());
  if (p.has_raw_data()) {
    if (!s) return "stores raw data of a type without a fixed size";
    if (static_cast<int64_t>(p.raw_data().size()) != count * s->raw_bytes)
      return "holds " + std::to_string(p.raw_data().size()) + " bytes but its shape needs " +
             std::to_string(count * s->raw_bytes);
    return "";
  }
  int64_t needed = count * (s ? s->field_values : 1);
  if (typed_values(p) != needed)
    return "holds " + std::to_string(typed_values(p)) + " values but its shape needs " +
           std::to_string(needed);
  return "";
}

}  // namespace tessera::onnx_import
