// Workloads for the mapper: one Einsum from a YAML file or a preset (configs/workloads), or one op
// of a model the frontends load (`--model M --op NAME`). The file (docs/mapper.md):
//
//   name: gpt3-6.7b-qk
//   description: attention scores, batch 64 × 1024 tokens
//   einsum: QK[b,m,p,h] = Q[b,m,h,e] * K[b,p,h,e]
//   ranks: {b: 64, m: 1024, p: 1024, h: 32, e: 128}
//   dtype: fp16                # every tensor; `dtypes: {QK: fp32}` or
//                              # `element_bytes: {QK: 4}` per tensor
//   roles: {K: weight}         # default: first input `input`, others `weight`
//
// The file is read into an ir::Einsum (the IR's parser reads the operands) and then into the
// mapper's Problem. Errors name file, line and key.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "framework/common/yaml_reader.hpp"
#include "framework/ir/graph.hpp"
#include "framework/mapper/problem.hpp"

namespace tessera::mapper {

Result<Problem> read_workload_file(const std::filesystem::path& file);
Result<Problem> parse_workload_text(const std::string& text, const std::filesystem::path& file);

// A workload map already loaded (e.g. embedded in a mapping file); `default_name` if it has none.
Result<Problem> parse_workload_node(const YamlNode& root, const std::string& default_name);

std::vector<std::filesystem::path> workload_dirs();
std::vector<std::string> workload_presets();
// A path (contains '/' or ends in .yaml) or a preset name.
Result<Problem> resolve_workload(const std::string& name_or_path);

// Op `op_name` of `graph`: dtypes from the graph's tensors; weights (by the graph's role) are
// `weight`, the first other input `input`. Inputs beyond the point function's arity (a bias or a
// residual added once per output element, compute.hpp) are an epilogue, not part of the mapped
// Einsum; their names are listed in `epilogue`. An unknown op names the nearest.
struct OpProblem {
  Problem problem;
  std::vector<std::string> epilogue;
};
Result<OpProblem> problem_from_op(const ir::Graph& graph, const std::string& op_name);

// `text` as a double-quoted YAML scalar: a name with ": " or "#" (an ONNX node's) reads back as
// written.
std::string yaml_scalar(const std::string& text);

// The workload file text for `problem` (element_bytes per tensor); reading it gives back an equal
// Problem. `indent` prefixes every line (for embedding in a mapping file).
std::string workload_yaml(const Problem& problem, const std::string& indent = "");

}  // namespace tessera::mapper
