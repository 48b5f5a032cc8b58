// From bytes to a model whose every value has a static shape: parse, check (libonnx's checker),
// split KV caches stacked across layers into per-layer ones (stacked_cache.hpp), bind symbolic
// input dimensions, then alternate libonnx shape inference and constant folding of shape
// arithmetic until nothing changes; then layers spelled out op by op are fused (patterns.hpp)
// and mixture-of-experts blocks recognised (moe.hpp).
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "framework/common/status.hpp"
#include "framework/frontend/onnx/const_tensor.hpp"
#include "framework/frontend/onnx/decode.hpp"
#include "framework/frontend/onnx/importer.hpp"

namespace tessera::onnx_import {

struct ValueType {
  int32_t elem_type = 0;                     // onnx::TensorProto_DataType
  std::optional<std::vector<int64_t>> dims;  // static shape, when every dimension is known
};

struct PreparedModel {
  std::string file;  // for messages
  onnx::ModelProto model;
  int opset = 0;
  std::map<std::string, ValueType> types;        // every value with a known tensor type
  std::map<std::string, ConstTensor> constants;  // known small values (shape arithmetic)
  std::set<std::string> folded;                  // values computed by folding, not weights
  int64_t large_folded_elements = 0;             // of folded values above kMaxFoldElements
  std::set<std::string> weights;                 // the model's own initializers (also external)
  std::set<std::string> non_tensors;             // sequences, maps and optionals
  std::map<std::string, KvCache> kv_caches;      // decode graphs: by present output
  std::map<std::string, std::vector<int64_t>> completed_shapes;  // beyond libonnx's inference
};

Result<PreparedModel> prepare_model(const std::string& bytes, const std::string& file,
                                    const OnnxOptions& options);

// libonnx's messages span lines; errors are one line.
std::string one_line(const std::string& text);

// "node 'name' (OpType, opset N)" or "node #i (OpType, opset N)" for unnamed nodes.
std::string describe_node(const onnx::NodeProto& node, int index, int opset);

}  // namespace tessera::onnx_import
