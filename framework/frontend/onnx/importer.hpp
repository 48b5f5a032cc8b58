// ONNX models as workload graphs: the model is parsed with libonnx's protobuf classes, symbolic
// dimensions are bound, libonnx's shape inference fills every tensor's shape, constant shape
// arithmetic is folded, and each remaining node becomes one Einsum op (views become no-ops).
// Weights (initialisers) keep only their shapes: external data files are never read.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "framework/common/status.hpp"
#include "framework/ir/graph.hpp"

namespace tessera::onnx_import {

struct OnnxOptions {
  std::map<std::string, int64_t> dims;  // symbolic dimension name -> value (--dim)
  bool skip_unsupported = false;        // unsupported ops become zero-cost placeholders (warned)
  std::optional<int64_t> past_length;   // a decode graph's past KV length (--seq)
  // Recognised mixture-of-experts blocks (moe.hpp) run as one chip of this many under expert
  // parallelism, with the routing's skew (zoo::RunShape::expert_skew): the share of the experts
  // and tokens that zoo::expert_load gives chip 0.
  int64_t expert_parallel = 1;
  double expert_skew = 0;
};

// The mixture-of-experts blocks an imported graph holds (moe.hpp), all of one shape: what expert
// parallelism needs to divide them and to size its all-to-alls.
struct MoeBlocks {
  int64_t blocks = 0;   // recognised blocks; 0: none
  int64_t experts = 0;  // routed experts per block
  int64_t top_k = 0;
  int64_t tokens = 0;      // tokens a block routes
  double token_bytes = 0;  // one token's hidden state
};
// Input error when the graph's blocks differ in experts, top_k, tokens or hidden size.
Result<MoeBlocks> moe_blocks(const ir::Graph& graph);

// Input errors name the file, the node (name, op type, opset) or tensor at fault and what would
// fit: not a file, not ONNX, truncated, unbound dimension, missing shape, unsupported op. Usage
// errors for a --seq the model cannot take (decode.hpp).
Result<ir::Graph> import_onnx_file(const std::string& path, const OnnxOptions& options);
// The same from bytes in memory; `name` stands for the file in messages.
Result<ir::Graph> import_onnx_bytes(const std::string& bytes, const std::string& name,
                                    const OnnxOptions& options);

}  // namespace tessera::onnx_import
