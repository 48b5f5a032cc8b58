// The workload graph as YAML text (docs/workloads.md): what `tessera inspect --format yaml`
// writes and `tessera inspect graph.yaml` reads. Reading is two steps: the text becomes a
// GraphSpec (strings and numbers with their file:line), which build_graph turns into a Graph with
// GraphBuilder's checks; every error names file, line and key. write then read gives an equal
// Graph, and writing that again gives the same text.
#pragma once

#include <string>
#include <vector>

#include "framework/common/yaml_reader.hpp"
#include "framework/ir/graph.hpp"

namespace tessera::ir {

inline constexpr int kGraphFormatVersion = 1;

struct TensorSpec {
  YamlNode node;  // where it was written
  std::string name, dtype, role, view_of;
  std::vector<int64_t> shape;
};

struct OpSpec {
  YamlNode node;
  std::string name, kind, fn, source;
  std::vector<std::pair<std::string, int64_t>> ranks;
  std::vector<std::string> inputs;  // operand text: tensor[index,...]
  std::string output;
};

struct GraphSpec {
  std::string file;
  std::string name;
  std::vector<TensorSpec> tensors;
  std::vector<OpSpec> ops;
  std::vector<std::string> outputs;
};

// True when the YAML document is a workload graph (has `tessera_workload`), not e.g. a zoo model.
bool is_graph_document(const YamlNode& root);
// Throws Failure (input error naming file:line:key) on a malformed document.
GraphSpec parse_graph_spec(const YamlNode& root);
Result<Graph> build_graph(const GraphSpec& spec);
Result<Graph> read_graph_file(const std::string& file);

// `header` lines become leading comments (totals for the reader); they are ignored on reading.
std::string write_graph_yaml(const Graph& graph, const std::vector<std::string>& header = {});

}  // namespace tessera::ir
