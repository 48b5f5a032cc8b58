// Small constant tensors the importer computes with: shapes, axes, slice bounds and the other
// values of shape arithmetic that PyTorch exports as subgraphs (Shape -> Gather -> Concat ->
// Reshape). Integers stay exact in int64; floats are doubles.
#pragma once

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tessera::onnx_import {

// Stored constants above this many elements are never decoded: they are data, not shapes. A
// computed value this small always folds.
inline constexpr int64_t kMaxFoldElements = 1 << 16;
// A value computed from constants folds up to this many elements (8 MiB as int64 or double), as
// far as the model's budget for such large values allows (prepare.cpp): a mask built from shapes
// alone can outgrow kMaxFoldElements, as swin_t's shifted-window mask does (64 windows x 49 x 49
// positions at 224x224).
inline constexpr int64_t kMaxComputedElements = 1 << 20;

struct ConstTensor {
  int32_t elem_type = onnx::TensorProto::INT64;  // onnx::TensorProto_DataType
  std::vector<int64_t> dims;
  std::vector<int64_t> ints;   // integer and bool types
  std::vector<double> floats;  // float16/bfloat16 excluded; float and double

  bool is_float() const;
  int64_t size() const {
    return is_float() ? static_cast<int64_t>(floats.size()) : static_cast<int64_t>(ints.size());
  }
  // Element i as a double / as an int64 (floats truncated; nullopt if out of int64 range).
  double as_double(int64_t i) const;
  std::optional<int64_t> as_int(int64_t i) const;
};

bool is_float_type(int32_t elem_type);
bool is_int_type(int32_t elem_type);  // integer or bool
// Element count of `dims`, or nullopt when negative or above `limit`.
std::optional<int64_t> small_count(const std::vector<int64_t>& dims,
                                   int64_t limit = kMaxFoldElements);

// The value of an initializer or Constant attribute; nullopt for external data, float16,
// strings, inconsistent sizes, or more than kMaxFoldElements elements.
std::optional<ConstTensor> decode_tensor(const onnx::TensorProto& proto);
onnx::TensorProto encode_tensor(const ConstTensor& value, const std::string& name);

// Why the tensor's stored data cannot be what its shape says (negative or overflowing dims, a
// raw_data or typed-field length that does not match), or "" when it is consistent. libonnx
// reads such data without checking.
std::string tensor_data_problem(const onnx::TensorProto& proto);

}  // namespace tessera::onnx_import
