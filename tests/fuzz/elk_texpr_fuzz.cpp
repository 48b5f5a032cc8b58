// Fuzz target: the Elk artifact op-list reader (`tessera compile TExpr.json`) must answer any
// bytes with a Graph or an Error, never a crash, hang or exception; a graph it accepts has costs
// and totals, and writes to a workload graph that reads back to the same text.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "framework/frontend/elk/texpr.hpp"
#include "framework/ir/analysis.hpp"
#include "framework/ir/graph_yaml.hpp"
#include "tests/fuzz/fuzz_target.hpp"

TESSERA_FUZZ_TARGET(elk_texpr)(const uint8_t* data, size_t size) {
  using namespace tessera;
  auto graph = elk_texpr::parse_texpr(std::string(reinterpret_cast<const char*>(data), size),
                                      "/fuzz/texpr.json");
  if (!graph) return 0;
  for (const auto& op : graph->ops()) (void)ir::op_cost(*graph, op);
  (void)ir::totals(*graph);
  std::string written = ir::write_graph_yaml(*graph);
  auto root = YamlNode::load_string(written, "/fuzz/graph.yaml");
  if (!root) std::abort();
  try {
    auto again = ir::build_graph(ir::parse_graph_spec(*root));
    if (!again || ir::write_graph_yaml(*again) != written) std::abort();
  } catch (const Failure&) {
    std::abort();
  }
  return 0;
}
