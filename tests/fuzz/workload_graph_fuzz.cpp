// Fuzz target: the workload graph reader (`tessera inspect graph.yaml`) must answer any bytes with
// a Graph or an Error, never a crash, hang or exception; a graph it accepts has costs and totals,
// and writes back to text that reads back to the same text.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "framework/ir/analysis.hpp"
#include "framework/ir/graph_yaml.hpp"
#include "tests/fuzz/fuzz_target.hpp"

namespace {

tessera::Result<tessera::ir::Graph> read_graph(const std::string& text) {
  using namespace tessera;
  auto root = YamlNode::load_string(text, "/fuzz/graph.yaml");
  if (!root) return root.error();
  try {
    if (!ir::is_graph_document(*root)) return input_error("not a graph");
    return ir::build_graph(ir::parse_graph_spec(*root));
  } catch (const Failure& f) {
    return f.error();
  }
}

}  // namespace

TESSERA_FUZZ_TARGET(workload_graph)(const uint8_t* data, size_t size) {
  using namespace tessera;
  auto graph = read_graph(std::string(reinterpret_cast<const char*>(data), size));
  if (!graph) return 0;
  for (const auto& op : graph->ops()) (void)ir::op_cost(*graph, op);
  (void)ir::totals(*graph);
  std::string written = ir::write_graph_yaml(*graph);
  auto again = read_graph(written);
  if (!again || ir::write_graph_yaml(*again) != written) std::abort();
  return 0;
}
