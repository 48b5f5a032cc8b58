#include "framework/frontend/onnx/fold.hpp"

#include <algorithm>
#include <cmath>
#include <functional>

#include "framework/frontend/onnx/attributes.hpp"

namespace tessera::onnx_import {

namespace {

using onnx::TensorProto;
using Values = std::optional<std::vector<ConstTensor>>;
using Dims = std::vector<int64_t>;

// Element count of a computed value, or nullopt above kMaxComputedElements: what one node's
// folding may compute, whatever the caller keeps.
std::optional<int64_t> computed_count(const Dims& dims) {
  return small_count(dims, kMaxComputedElements);
}

Values one(ConstTensor t) {
  auto count = computed_count(t.dims);
  if (!count || t.size() != *count) return std::nullopt;
  return std::vector<ConstTensor>{std::move(t)};
}

ConstTensor int_vector(std::vector<int64_t> values) {
  ConstTensor t;
  t.dims = {static_cast<int64_t>(values.size())};
  t.ints = std::move(values);
  return t;
}

// Flat index into `in_dims` of the element that broadcasts to flat index `flat` of `out_dims`.
int64_t broadcast_source(const Dims& out_dims, const Dims& in_dims, int64_t flat) {
  int64_t src = 0;
  int64_t stride = 1;
  size_t offset = out_dims.size() - in_dims.size();
  for (size_t d = out_dims.size(); d-- > 0;) {
    int64_t coord = flat % out_dims[d];
    flat /= out_dims[d];
    if (d < offset) continue;
    int64_t extent = in_dims[d - offset];
    if (extent != 1) src += coord * stride;
    stride *= extent;
  }
  return src;
}

std::optional<Dims> broadcast_dims(const std::vector<const ConstTensor*>& ins) {
  Dims out;
  for (const auto* t : ins) {
    if (t->dims.size() > out.size()) out.insert(out.begin(), t->dims.size() - out.size(), 1);
    size_t offset = out.size() - t->dims.size();
    for (size_t d = 0; d < t->dims.size(); ++d) {
      int64_t a = out[d + offset], b = t->dims[d];
      if (a != b && a != 1 && b != 1) return std::nullopt;
      out[d + offset] = a == 1 ? b : a;
    }
  }
  return out;
}

// Copies elements chosen by `source(flat_out)` from `in` into a tensor of `out_dims`.
Values gather_elements(const ConstTensor& in, const Dims& out_dims,
                       const std::function<std::optional<int64_t>(int64_t)>& source) {
  auto count = computed_count(out_dims);
  if (!count) return std::nullopt;
  ConstTensor out;
  out.elem_type = in.elem_type;
  out.dims = out_dims;
  for (int64_t i = 0; i < *count; ++i) {
    auto s = source(i);
    if (!s || *s < 0 || *s >= in.size()) return std::nullopt;
    if (in.is_float())
      out.floats.push_back(in.floats[*s]);
    else
      out.ints.push_back(in.ints[*s]);
  }
  return one(std::move(out));
}

std::optional<int64_t> int_op(const std::string& op, int64_t a, int64_t b) {
  int64_t r = 0;
  if (op == "Add") return __builtin_add_overflow(a, b, &r) ? std::nullopt : std::optional(r);
  if (op == "Sub") return __builtin_sub_overflow(a, b, &r) ? std::nullopt : std::optional(r);
  if (op == "Mul") return __builtin_mul_overflow(a, b, &r) ? std::nullopt : std::optional(r);
  if (op == "Div") {
    if (b == 0 || (a == INT64_MIN && b == -1)) return std::nullopt;
    return a / b;
  }
  if (op == "Mod" || op == "FMod") {  // Mod: the divisor's sign, as in Python; FMod: C's
    if (b == 0 || (a == INT64_MIN && b == -1)) return std::nullopt;
    int64_t m = a % b;
    return op == "Mod" && m != 0 && (m < 0) != (b < 0) ? m + b : m;
  }
  if (op == "Max") return std::max(a, b);
  if (op == "Min") return std::min(a, b);
  if (op == "Equal") return int64_t{a == b};
  if (op == "Less") return int64_t{a < b};
  if (op == "LessOrEqual") return int64_t{a <= b};
  if (op == "Greater") return int64_t{a > b};
  if (op == "GreaterOrEqual") return int64_t{a >= b};
  if (op == "And") return int64_t{a && b};
  if (op == "Or") return int64_t{a || b};
  if (op == "Xor") return int64_t{(a != 0) != (b != 0)};
  return std::nullopt;
}

std::optional<double> float_op(const std::string& op, double a, double b) {
  if (op == "Add") return a + b;
  if (op == "Sub") return a - b;
  if (op == "Mul") return a * b;
  if (op == "Div") return a / b;
  if (op == "Pow") return std::pow(a, b);
  if (op == "Max") return std::max(a, b);
  if (op == "Min") return std::min(a, b);
  if (op == "Equal") return a == b ? 1.0 : 0.0;
  if (op == "Less") return a < b ? 1.0 : 0.0;
  if (op == "LessOrEqual") return a <= b ? 1.0 : 0.0;
  if (op == "Greater") return a > b ? 1.0 : 0.0;
  if (op == "GreaterOrEqual") return a >= b ? 1.0 : 0.0;
  return std::nullopt;
}

bool is_comparison(const std::string& op) {
  return op == "Equal" || op == "Less" || op == "Greater" || op == "LessOrEqual" ||
         op == "GreaterOrEqual" || op == "And" || op == "Or" || op == "Xor";
}

Values binary(const std::string& op, const ConstTensor& a, const ConstTensor& b) {
  auto dims = broadcast_dims({&a, &b});
  auto count = dims ? computed_count(*dims) : std::nullopt;
  if (!count || a.is_float() != b.is_float()) return std::nullopt;
  ConstTensor out;
  out.elem_type = is_comparison(op) ? TensorProto::BOOL : a.elem_type;
  out.dims = *dims;
  for (int64_t i = 0; i < *count; ++i) {
    int64_t ia = broadcast_source(*dims, a.dims, i), ib = broadcast_source(*dims, b.dims, i);
    if (a.is_float()) {
      auto v = float_op(op, a.floats[ia], b.floats[ib]);
      if (!v) return std::nullopt;
      if (is_comparison(op))
        out.ints.push_back(static_cast<int64_t>(*v));
      else
        out.floats.push_back(*v);
    } else {
      auto v = int_op(op, a.ints[ia], b.ints[ib]);
      if (!v) return std::nullopt;
      out.ints.push_back(*v);
    }
  }
  return one(std::move(out));
}

Values unary(const std::string& op, const ConstTensor& a) {
  ConstTensor out = a;
  for (auto& v : out.floats) {
    if (op == "Neg")
      v = -v;
    else if (op == "Sqrt")
      v = std::sqrt(v);
    else if (op == "Floor")
      v = std::floor(v);
    else if (op == "Ceil")
      v = std::ceil(v);
    else if (op == "Abs")
      v = std::fabs(v);
    else if (op == "Reciprocal")
      v = 1.0 / v;
    else if (op == "Sign")
      v = v > 0 ? 1.0 : (v < 0 ? -1.0 : 0.0);
    else
      return std::nullopt;
  }
  for (auto& v : out.ints) {
    if (v == INT64_MIN) return std::nullopt;
    if (op == "Neg")
      v = -v;
    else if (op == "Abs")
      v = v < 0 ? -v : v;
    else if (op == "Not")
      v = !v;
    else if (op == "Sign")
      v = v > 0 ? 1 : (v < 0 ? -1 : 0);
    else if (op != "Floor" && op != "Ceil")
      return std::nullopt;
  }
  return one(std::move(out));
}

Values cast(const onnx::NodeProto& node, const ConstTensor& a) {
  int64_t to = attr_int(node, "to", TensorProto::UNDEFINED);
  if (!is_float_type(static_cast<int32_t>(to)) && !is_int_type(static_cast<int32_t>(to)))
    return std::nullopt;
  ConstTensor out;
  out.elem_type = static_cast<int32_t>(to);
  out.dims = a.dims;
  for (int64_t i = 0; i < a.size(); ++i) {
    if (out.is_float()) {
      out.floats.push_back(a.as_double(i));
      continue;
    }
    auto v = a.as_int(i);
    if (!v) return std::nullopt;
    out.ints.push_back(to == TensorProto::BOOL ? int64_t{*v != 0} : *v);
  }
  return one(std::move(out));
}

// Axes from the attribute (before `input_since`) or from input 1.
std::optional<Dims> axes_of(const onnx::NodeProto& node, int opset, int input_since,
                            const std::vector<FoldInput>& in) {
  if (opset < input_since) return attr_ints(node, "axes");
  if (in.size() < 2 || node.input(1).empty()) return Dims{};
  if (!in[1].value || in[1].value->is_float()) return std::nullopt;
  return in[1].value->ints;
}

Values reshape_to(const ConstTensor& a, Dims dims) {
  ConstTensor out = a;
  out.dims = std::move(dims);
  return one(std::move(out));
}

Values unsqueeze(const ConstTensor& a, const Dims& axes) {
  int64_t rank = static_cast<int64_t>(a.dims.size() + axes.size());
  std::vector<bool> inserted(static_cast<size_t>(rank), false);
  for (int64_t ax : axes) {
    int64_t n = normalize_axis(ax, rank);
    if (n < 0 || inserted[n]) return std::nullopt;
    inserted[n] = true;
  }
  Dims dims;
  size_t next = 0;
  for (int64_t d = 0; d < rank; ++d) dims.push_back(inserted[d] ? 1 : a.dims[next++]);
  return reshape_to(a, dims);
}

Values squeeze(const ConstTensor& a, const Dims& axes) {
  int64_t rank = static_cast<int64_t>(a.dims.size());
  std::vector<bool> drop(a.dims.size(), axes.empty());
  for (int64_t ax : axes) {
    int64_t n = normalize_axis(ax, rank);
    if (n < 0 || a.dims[n] != 1) return std::nullopt;
    drop[n] = true;
  }
  Dims dims;
  for (int64_t d = 0; d < rank; ++d)
    if (!(drop[d] && a.dims[d] == 1)) dims.push_back(a.dims[d]);
  return reshape_to(a, dims);
}

Values reshape(const onnx::NodeProto& node, const ConstTensor& a, const ConstTensor& shape) {
  Dims dims;
  int64_t known = 1;
  int infer = -1;
  for (int64_t i = 0; i < shape.size(); ++i) {
    int64_t d = shape.ints[i];
    if (d == 0 && !attr_int(node, "allowzero", 0) && i < static_cast<int64_t>(a.dims.size()))
      d = a.dims[i];
    if (d == -1 && infer < 0)
      infer = static_cast<int>(i);
    else if (d < 0)
      return std::nullopt;
    else
      known *= std::max<int64_t>(d, 1);
    dims.push_back(d);
    if (known > kMaxComputedElements) return std::nullopt;
  }
  if (infer >= 0) {
    if (known == 0 || a.size() % known != 0) return std::nullopt;
    dims[infer] = a.size() / known;
  }
  return reshape_to(a, dims);
}

Values concat(const onnx::NodeProto& node, const std::vector<FoldInput>& in) {
  const ConstTensor& first = *in[0].value;
  int64_t axis = normalize_axis(attr_int(node, "axis", 0), static_cast<int64_t>(first.dims.size()));
  if (axis < 0) return std::nullopt;
  ConstTensor out;
  out.elem_type = first.elem_type;
  out.dims = first.dims;
  out.dims[axis] = 0;
  int64_t outer = 1;
  for (int64_t d = 0; d < axis; ++d) outer *= first.dims[d];
  for (const auto& i : in) {
    const ConstTensor& t = *i.value;
    if (t.dims.size() != first.dims.size() || t.is_float() != first.is_float()) return std::nullopt;
    for (size_t d = 0; d < t.dims.size(); ++d)
      if (static_cast<int64_t>(d) != axis && t.dims[d] != first.dims[d]) return std::nullopt;
    out.dims[axis] += t.dims[axis];
  }
  for (int64_t o = 0; o < outer; ++o) {
    for (const auto& i : in) {
      const ConstTensor& t = *i.value;
      int64_t block = outer == 0 ? 0 : t.size() / outer;
      if (t.is_float())
        out.floats.insert(out.floats.end(), t.floats.begin() + o * block,
                          t.floats.begin() + (o + 1) * block);
      else
        out.ints.insert(out.ints.end(), t.ints.begin() + o * block,
                        t.ints.begin() + (o + 1) * block);
    }
  }
  return one(std::move(out));
}

Values gather(const onnx::NodeProto& node, const ConstTensor& data, const ConstTensor& idx) {
  int64_t rank = static_cast<int64_t>(data.dims.size());
  int64_t axis = normalize_axis(attr_int(node, "axis", 0), rank);
  if (axis < 0 || idx.is_float()) return std::nullopt;
  Dims out_dims(data.dims.begin(), data.dims.begin() + axis);
  out_dims.insert(out_dims.end(), idx.dims.begin(), idx.dims.end());
  out_dims.insert(out_dims.end(), data.dims.begin() + axis + 1, data.dims.end());
  int64_t len = data.dims[axis];
  int64_t inner = 1;
  for (int64_t d = axis + 1; d < rank; ++d) inner *= data.dims[d];
  int64_t n_idx = idx.size();
  return gather_elements(data, out_dims, [&](int64_t flat) -> std::optional<int64_t> {
    int64_t i = flat % inner, rest = flat / inner;
    int64_t j = n_idx == 0 ? 0 : rest % n_idx, o = n_idx == 0 ? 0 : rest / n_idx;
    int64_t k = idx.ints[j] < 0 ? idx.ints[j] + len : idx.ints[j];
    if (k < 0 || k >= len) return std::nullopt;
    return (o * len + k) * inner + i;
  });
}

std::optional<SliceAxis> slice_axis(int64_t dim, int64_t start, int64_t end, int64_t step) {
  if (step == 0 || step == INT64_MIN) return std::nullopt;
  auto clamp = [&](int64_t v, int64_t lo, int64_t hi) {
    if (v < 0) v = v < -dim ? -1 : v + dim;
    return std::clamp(v, lo, hi);
  };
  SliceAxis s{0, step, 0};
  if (step > 0) {
    s.start = clamp(start, 0, dim);
    int64_t e = clamp(end, 0, dim);
    s.count = e > s.start ? (e - s.start - 1) / step + 1 : 0;
  } else {
    s.start = clamp(start, -1, dim - 1);
    int64_t e = clamp(end, -1, dim - 1);
    s.count = s.start > e ? (s.start - e - 1) / -step + 1 : 0;
  }
  return s;
}

}  // namespace

std::optional<std::vector<SliceAxis>> slice_plan(const Dims& dims, const Dims& starts,
                                                 const Dims& ends, const Dims& axes,
                                                 const Dims& steps) {
  int64_t rank = static_cast<int64_t>(dims.size());
  std::vector<SliceAxis> plan;
  for (int64_t d : dims) plan.push_back({0, 1, d});
  if (starts.size() != ends.size() || (!axes.empty() && axes.size() != starts.size()) ||
      (!steps.empty() && steps.size() != starts.size()))
    return std::nullopt;
  std::vector<bool> seen(dims.size(), false);
  for (size_t i = 0; i < starts.size(); ++i) {
    int64_t axis = axes.empty() ? static_cast<int64_t>(i) : normalize_axis(axes[i], rank);
    if (axis < 0 || axis >= rank || seen[axis]) return std::nullopt;
    seen[axis] = true;
    auto s = slice_axis(dims[axis], starts[i], ends[i], steps.empty() ? 1 : steps[i]);
    if (!s) return std::nullopt;
    plan[axis] = *s;
  }
  return plan;
}

std::optional<SliceBounds> slice_bounds(const onnx::NodeProto& node, int opset,
                                        const std::vector<const ConstTensor*>& inputs) {
  SliceBounds b;
  if (opset < 10) {
    b.starts = attr_ints(node, "starts");
    b.ends = attr_ints(node, "ends");
    b.axes = attr_ints(node, "axes");
    return b;
  }
  Dims* fields[] = {&b.starts, &b.ends, &b.axes, &b.steps};
  for (size_t i = 1; i < inputs.size() && i < 5; ++i) {
    if (node.input(static_cast<int>(i)).empty()) continue;
    if (!inputs[i] || inputs[i]->is_float()) return std::nullopt;
    *fields[i - 1] = inputs[i]->ints;
  }
  return b;
}

namespace {

// Copies into a tensor of `out_dims` the element of `in` at the coordinates `to_input` turns each
// output coordinate into (false: out of range).
Values remap(const ConstTensor& in, const Dims& out_dims,
             const std::function<bool(Dims& coord)>& to_input) {
  Dims coord(out_dims.size());
  return gather_elements(in, out_dims, [&](int64_t flat) -> std::optional<int64_t> {
    for (size_t d = out_dims.size(); d-- > 0;) {
      coord[d] = flat % out_dims[d];
      flat /= out_dims[d];
    }
    if (!to_input(coord) || coord.size() != in.dims.size()) return std::nullopt;
    int64_t src = 0;
    for (size_t d = 0; d < coord.size(); ++d) {
      if (coord[d] < 0 || coord[d] >= in.dims[d]) return std::nullopt;
      src = src * in.dims[d] + coord[d];
    }
    return src;
  });
}

Values take(const ConstTensor& a, const std::vector<SliceAxis>& plan) {
  Dims out_dims;
  for (const auto& s : plan) out_dims.push_back(s.count);
  return remap(a, out_dims, [&](Dims& c) {
    for (size_t d = 0; d < c.size(); ++d) c[d] = plan[d].start + c[d] * plan[d].step;
    return true;
  });
}

Values slice(const onnx::NodeProto& node, int opset, const std::vector<FoldInput>& in) {
  const ConstTensor& a = *in[0].value;
  std::vector<const ConstTensor*> values;
  for (const auto& i : in) values.push_back(i.value);
  auto bounds = slice_bounds(node, opset, values);
  auto plan = bounds ? slice_plan(a.dims, bounds->starts, bounds->ends, bounds->axes, bounds->steps)
                     : std::nullopt;
  if (!plan) return std::nullopt;
  return take(a, *plan);
}

// Split into the node's outputs: sizes from the attribute (opset < 13) or input 1, else equal.
Values split(const onnx::NodeProto& node, int opset, const std::vector<FoldInput>& in) {
  const ConstTensor& a = *in[0].value;
  int64_t axis = normalize_axis(attr_int(node, "axis", 0), static_cast<int64_t>(a.dims.size()));
  if (axis < 0) return std::nullopt;
  Dims sizes = opset < 13 ? attr_ints(node, "split") : Dims{};
  if (opset >= 13 && in.size() > 1 && in[1].value) sizes = in[1].value->ints;
  auto parts = static_cast<int64_t>(node.output_size());
  if (sizes.empty() && a.dims[axis] % parts == 0) sizes.assign(parts, a.dims[axis] / parts);
  if (static_cast<int64_t>(sizes.size()) != parts) return std::nullopt;
  std::vector<ConstTensor> out;
  std::vector<SliceAxis> plan;
  for (int64_t d : a.dims) plan.push_back({0, 1, d});
  for (int64_t size : sizes) {
    plan[axis].count = size;
    auto part = take(a, plan);
    if (!part) return std::nullopt;
    out.push_back(std::move(part->front()));
    plan[axis].start += size;
  }
  if (plan[axis].start != a.dims[axis]) return std::nullopt;
  return out;
}

Values tile(const ConstTensor& a, const ConstTensor& repeats) {
  if (repeats.is_float() || repeats.ints.size() != a.dims.size()) return std::nullopt;
  Dims out_dims;
  for (size_t d = 0; d < a.dims.size(); ++d) {
    if (repeats.ints[d] < 0) return std::nullopt;
    out_dims.push_back(a.dims[d] * repeats.ints[d]);
  }
  if (!computed_count(out_dims)) return std::nullopt;
  return remap(a, out_dims, [&](Dims& c) {
    for (size_t d = 0; d < c.size(); ++d) c[d] %= a.dims[d];
    return true;
  });
}

Values transpose(const onnx::NodeProto& node, const ConstTensor& a) {
  Dims perm = attr_ints(node, "perm");
  if (perm.empty())
    for (size_t d = a.dims.size(); d-- > 0;) perm.push_back(static_cast<int64_t>(d));
  if (perm.size() != a.dims.size()) return std::nullopt;
  Dims out_dims;
  for (int64_t p : perm) {
    if (p < 0 || p >= static_cast<int64_t>(a.dims.size())) return std::nullopt;
    out_dims.push_back(a.dims[p]);
  }
  return remap(a, out_dims, [&](Dims& c) {
    Dims src(c.size());
    for (size_t d = 0; d < c.size(); ++d) src[perm[d]] = c[d];
    c = src;
    return true;
  });
}

Values shape_of(const onnx::NodeProto& node, const Dims& shape) {
  int64_t rank = static_cast<int64_t>(shape.size());
  auto clamp = [&](int64_t v) { return std::clamp(v < 0 ? v + rank : v, int64_t{0}, rank); };
  int64_t start = clamp(attr_int(node, "start", 0));
  int64_t end = clamp(attr_int(node, "end", rank));
  if (end < start) end = start;
  return one(int_vector(Dims(shape.begin() + start, shape.begin() + end)));
}

Values constant(const onnx::NodeProto& node) {
  if (const auto* v = find_attr(node, "value"); v && v->has_t()) {
    auto t = decode_tensor(v->t());
    return t ? one(std::move(*t)) : std::nullopt;
  }
  if (const auto* v = find_attr(node, "value_int"))
    return one(ConstTensor{TensorProto::INT64, {}, {v->i()}, {}});
  if (const auto* v = find_attr(node, "value_ints"))
    return one(int_vector(Dims(v->ints().begin(), v->ints().end())));
  if (const auto* v = find_attr(node, "value_float"))
    return one(ConstTensor{TensorProto::FLOAT, {}, {}, {v->f()}});
  if (const auto* v = find_attr(node, "value_floats")) {
    ConstTensor t{TensorProto::FLOAT, {v->floats_size()}, {}, {}};
    t.floats.assign(v->floats().begin(), v->floats().end());
    return one(std::move(t));
  }
  return std::nullopt;
}

Values constant_of_shape(const onnx::NodeProto& node, const ConstTensor& shape) {
  ConstTensor fill{TensorProto::FLOAT, {}, {}, {0.0}};
  if (const auto* v = find_attr(node, "value"); v && v->has_t()) {
    auto t = decode_tensor(v->t());
    if (!t || t->size() != 1) return std::nullopt;
    fill = *t;
  }
  auto n = shape.is_float() ? std::nullopt : computed_count(shape.ints);
  if (!n) return std::nullopt;
  ConstTensor out{fill.elem_type, shape.ints, {}, {}};
  if (fill.is_float())
    out.floats.assign(*n, fill.floats[0]);
  else
    out.ints.assign(*n, fill.ints[0]);
  return one(std::move(out));
}

Values expand(const ConstTensor& a, const ConstTensor& shape) {
  if (shape.is_float()) return std::nullopt;
  ConstTensor target{a.elem_type, shape.ints, {}, {}};
  auto dims = broadcast_dims({&a, &target});
  if (!dims) return std::nullopt;
  return gather_elements(a, *dims, [&](int64_t flat) -> std::optional<int64_t> {
    return broadcast_source(*dims, a.dims, flat);
  });
}

Values range(const ConstTensor& start, const ConstTensor& limit, const ConstTensor& delta) {
  if (start.size() != 1 || limit.size() != 1 || delta.size() != 1) return std::nullopt;
  double s = start.as_double(0), l = limit.as_double(0), d = delta.as_double(0);
  if (d == 0 || !std::isfinite((l - s) / d)) return std::nullopt;
  double n = std::max(std::ceil((l - s) / d), 0.0);
  if (n > kMaxComputedElements) return std::nullopt;
  ConstTensor out{start.elem_type, {static_cast<int64_t>(n)}, {}, {}};
  for (int64_t i = 0; i < static_cast<int64_t>(n); ++i) {
    if (out.is_float())
      out.floats.push_back(s + i * d);
    else
      out.ints.push_back(start.ints[0] + i * delta.ints[0]);
  }
  return one(std::move(out));
}

Values where(const ConstTensor& c, const ConstTensor& a, const ConstTensor& b) {
  auto dims = broadcast_dims({&c, &a, &b});
  auto count = dims ? computed_count(*dims) : std::nullopt;
  if (!count || a.is_float() != b.is_float() || c.is_float()) return std::nullopt;
  ConstTensor out{a.elem_type, *dims, {}, {}};
  for (int64_t i = 0; i < *count; ++i) {
    bool take_a = c.ints[broadcast_source(*dims, c.dims, i)] != 0;
    const ConstTensor& src = take_a ? a : b;
    int64_t j = broadcast_source(*dims, src.dims, i);
    if (out.is_float())
      out.floats.push_back(src.floats[j]);
    else
      out.ints.push_back(src.ints[j]);
  }
  return one(std::move(out));
}

// Trilu: keeps the upper (or lower) triangle of the last two dims from diagonal k; zeros elsewhere.
Values trilu(const onnx::NodeProto& node, const ConstTensor& a, const ConstTensor* k_value) {
  if (a.dims.size() < 2 || (k_value && (k_value->size() != 1 || k_value->is_float())))
    return std::nullopt;
  int64_t k = k_value ? k_value->ints[0] : 0;
  bool upper = attr_int(node, "upper", 1) != 0;
  int64_t rows = a.dims[a.dims.size() - 2], cols = a.dims.back();
  ConstTensor out = a;
  for (int64_t i = 0; i < out.size(); ++i) {
    int64_t c = i % cols, r = (i / std::max<int64_t>(cols, 1)) % std::max<int64_t>(rows, 1);
    bool keep = upper ? c - r >= k : c - r <= k;
    if (keep) continue;
    if (out.is_float())
      out.floats[i] = 0.0;
    else
      out.ints[i] = 0;
  }
  return one(std::move(out));
}

// Combines update element `from` into element `to` of `out` as the node's reduction says.
bool scatter_one(ConstTensor& out, int64_t to, const ConstTensor& updates, int64_t from,
                 const std::string& reduction) {
  if (to < 0 || to >= out.size() || from >= updates.size()) return false;
  bool replace = reduction == "none";
  std::string op = reduction == "add"   ? "Add"
                   : reduction == "mul" ? "Mul"
                   : reduction == "max" ? "Max"
                   : reduction == "min" ? "Min"
                                        : "";
  if (out.is_float()) {
    auto v = replace ? updates.floats[from] : float_op(op, out.floats[to], updates.floats[from]);
    if (v) out.floats[to] = *v;
    return v.has_value();
  }
  auto v = replace ? updates.ints[from] : int_op(op, out.ints[to], updates.ints[from]);
  if (v) out.ints[to] = *v;
  return v.has_value();
}

// ScatterND: updates[q.., rest..] goes to data[indices[q..] (k dims), rest..].
Values scatter_nd(const onnx::NodeProto& node, const ConstTensor& data, const ConstTensor& idx,
                  const ConstTensor& updates) {
  if (idx.is_float() || idx.dims.empty() || data.is_float() != updates.is_float())
    return std::nullopt;
  auto k = static_cast<size_t>(idx.dims.back());
  if (k == 0 || k > data.dims.size()) return std::nullopt;
  int64_t slice = 1;
  for (size_t d = k; d < data.dims.size(); ++d) slice *= data.dims[d];
  ConstTensor out = data;
  std::string reduction = attr_string(node, "reduction", "none");
  for (int64_t q = 0; q < idx.size() / static_cast<int64_t>(k); ++q) {
    int64_t base = 0;
    for (size_t d = 0; d < k; ++d) {
      int64_t i = idx.ints[q * static_cast<int64_t>(k) + static_cast<int64_t>(d)];
      if (i < -data.dims[d] || i >= data.dims[d]) return std::nullopt;
      base = base * data.dims[d] + (i < 0 ? i + data.dims[d] : i);
    }
    for (int64_t e = 0; e < slice; ++e)
      if (!scatter_one(out, base * slice + e, updates, q * slice + e, reduction))
        return std::nullopt;
  }
  return one(std::move(out));
}

// ScatterElements: updates[p] goes to data[p with axis = indices[p]].
Values scatter_elements(const onnx::NodeProto& node, const ConstTensor& data,
                        const ConstTensor& idx, const ConstTensor& updates) {
  int64_t rank = static_cast<int64_t>(data.dims.size());
  int64_t axis = normalize_axis(attr_int(node, "axis", 0), rank);
  if (axis < 0 || idx.is_float() || idx.dims != updates.dims ||
      idx.dims.size() != data.dims.size() || data.is_float() != updates.is_float())
    return std::nullopt;
  ConstTensor out = data;
  std::string reduction = attr_string(node, "reduction", "none");
  Dims coord(idx.dims.size());
  for (int64_t p = 0; p < idx.size(); ++p) {
    for (int64_t d = rank, flat = p; d-- > 0;) {
      coord[d] = flat % idx.dims[d];
      flat /= idx.dims[d];
    }
    int64_t i = idx.ints[p];
    if (i < -data.dims[axis] || i >= data.dims[axis]) return std::nullopt;
    coord[axis] = i < 0 ? i + data.dims[axis] : i;
    int64_t to = 0;
    for (int64_t d = 0; d < rank; ++d) to = to * data.dims[d] + coord[d];
    if (!scatter_one(out, to, updates, p, reduction)) return std::nullopt;
  }
  return one(std::move(out));
}

Values fold_values(const onnx::NodeProto& node, int opset, const std::vector<FoldInput>& in) {
  const std::string& op = node.op_type();
  const ConstTensor& a = *in[0].value;
  if (op == "Identity") return one(a);
  if (op == "Cast") return cast(node, a);
  if (op == "Neg" || op == "Sqrt" || op == "Floor" || op == "Ceil" || op == "Abs" || op == "Not" ||
      op == "Reciprocal" || op == "Sign")
    return unary(op, a);
  if (op == "Unsqueeze" || op == "Squeeze") {
    auto axes = axes_of(node, opset, 13, in);
    if (!axes) return std::nullopt;
    return op == "Unsqueeze" ? unsqueeze(a, *axes) : squeeze(a, *axes);
  }
  if (op == "Flatten") {
    int64_t axis =
        normalize_axis(attr_int(node, "axis", 1), static_cast<int64_t>(a.dims.size()) + 1);
    if (axis < 0) return std::nullopt;
    int64_t outer = 1;
    for (int64_t d = 0; d < axis; ++d) outer *= a.dims[d];
    return reshape_to(a, {outer, outer == 0 ? 0 : a.size() / outer});
  }
  if (op == "Concat") return concat(node, in);
  if (op == "Slice") return slice(node, opset, in);
  if (op == "Split") return split(node, opset, in);
  if (op == "Transpose") return transpose(node, a);
  if (op == "ConstantOfShape") return constant_of_shape(node, a);
  if (op == "Trilu") return trilu(node, a, in.size() > 1 ? in[1].value : nullptr);
  if (in.size() < 2 || !in[1].value) return std::nullopt;
  const ConstTensor& b = *in[1].value;
  if (op == "Reshape") return b.is_float() ? std::nullopt : reshape(node, a, b);
  if (op == "Gather") return gather(node, a, b);
  if (op == "Expand") return expand(a, b);
  if (op == "Tile") return tile(a, b);
  if (op == "Where" && in.size() == 3 && in[2].value) return where(a, b, *in[2].value);
  if (op == "Range" && in.size() == 3 && in[2].value) return range(a, b, *in[2].value);
  if (op == "ScatterND" && in.size() == 3 && in[2].value)
    return scatter_nd(node, a, b, *in[2].value);
  if ((op == "ScatterElements" || op == "Scatter") && in.size() == 3 && in[2].value)
    return scatter_elements(node, a, b, *in[2].value);
  if (op == "Mod" && attr_int(node, "fmod", 0) != 0) return binary("FMod", a, b);
  if (in.size() == 2) return binary(op, a, b);
  return std::nullopt;
}

Values fold_any(const onnx::NodeProto& node, int opset, const std::vector<FoldInput>& in) {
  if (!node.domain().empty() && node.domain() != "ai.onnx") return std::nullopt;
  if (node.op_type() == "Constant") return constant(node);
  if (in.empty()) return std::nullopt;
  if (node.op_type() == "Shape" && in[0].shape) return shape_of(node, *in[0].shape);
  if (node.op_type() == "Size" && in[0].shape) {
    int64_t n = 1;
    for (int64_t d : *in[0].shape)
      if (__builtin_mul_overflow(n, d, &n)) return std::nullopt;
    return one(ConstTensor{TensorProto::INT64, {}, {n}, {}});
  }
  for (size_t i = 0; i < in.size(); ++i)
    if (!in[i].value && !node.input(static_cast<int>(i)).empty()) return std::nullopt;
  if (!in[0].value) return std::nullopt;
  return fold_values(node, opset, in);
}

}  // namespace

Values fold_node(const onnx::NodeProto& node, int opset, const std::vector<FoldInput>& in,
                 int64_t max_elements) {
  auto values = fold_any(node, opset, in);
  if (values)
    for (const auto& v : *values)
      if (v.size() > max_elements) return std::nullopt;
  return values;
}

}  // namespace tessera::onnx_import
