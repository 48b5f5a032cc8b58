#include "framework/ir/graph_yaml.hpp"

#include <gtest/gtest.h>

#include "framework/frontend/zoo/builders.hpp"
#include "framework/frontend/zoo/zoo.hpp"

namespace tessera::ir {
namespace {

Result<Graph> from_text(const std::string& text) {
  auto root = YamlNode::load_string(text, "g.yaml");
  if (!root) return root.error();
  try {
    return build_graph(parse_graph_spec(*root));
  } catch (const Failure& f) {
    return f.error();
  }
}

TEST(GraphYaml, RoundTripsZooGraphsUnchanged) {
  for (const char* name : {"llama2-7b", "gemma2-27b", "opt-30b", "dit-xl"}) {
    zoo::RunShape shape;
    shape.batch = 2;
    shape.seq = 64;
    if (std::string(name) == "dit-xl") {
      shape.seq = 16;
      shape.mode = zoo::Mode::prefill;
    }
    Graph g = zoo::build_model(zoo::find_model(name).take(), shape).take();
    std::string text = write_graph_yaml(g, {"totals would go here"});
    Graph back = from_text(text).take();
    EXPECT_TRUE(back == g) << name;
    EXPECT_EQ(write_graph_yaml(back, {"totals would go here"}), text) << name;
  }
}

TEST(GraphYaml, QuotesAwkwardNames) {
  std::string text = R"(tessera_workload: 1
name: "odd: names"
tensors:
  - {name: "/x:0", shape: [2, 3], dtype: fp32, role: input}
  - {name: "y, z", shape: [3, 2], dtype: fp32, role: activation}
  - {name: "s", shape: [], dtype: fp32, role: activation}
ops:
  - {name: "t#1", kind: data_movement, fn: copy, ranks: {i: 2, j: 3}, inputs: ["/x:0[i,j]"],
     output: "y, z[j,i]"}
  - {name: total, kind: reduction, fn: sum, ranks: {i: 3, j: 2}, inputs: ["y, z[i,j]"], output: "s[]"}
outputs: [s]
)";
  Graph g = from_text(text).take();
  EXPECT_EQ(g.ops()[0].einsum.output.tensor, "y, z");
  Graph back = from_text(write_graph_yaml(g)).take();
  EXPECT_TRUE(back == g);
}

TEST(GraphYaml, ErrorsNameFileLineAndKey) {
  std::string head = "tessera_workload: 1\nname: g\ntensors:\n";
  EXPECT_EQ(from_text(head + "  - {name: x, shape: [2], dtype: fp33}\nops: []\n").error().message,
            "g.yaml:4: 'tensors[0].dtype': unknown dtype 'fp33'; use one of fp32, fp16, bf16, "
            "fp8, int8, int32, fp64, bfp8, bfp4, bfp2, int64, int16, uint8, uint16, uint32, "
            "uint64, bool");
  EXPECT_EQ(from_text(head + "  - {name: x, shape: [2], dtype: fp32, rol: input}\nops: []\n")
                .error()
                .message,
            "g.yaml:4: 'tensors[0].rol': unknown key 'rol' (did you mean 'role'?); valid keys: "
            "name, shape, dtype, role, view_of");
  EXPECT_EQ(from_text(head + "  - {name: x, shape: [2], dtype: fp32, role: input}\n"
                             "ops:\n  - {name: a, kind: unary, fn: relu, ranks: {i: 2}, inputs: "
                             "[\"x[i]\"], output: \"x[i]\"}\n")
                .error()
                .message,
            "g.yaml:6: 'ops[0]': op 'a': writes 'x', which is a model input (read-only)");
  EXPECT_EQ(from_text(head + "  - {name: x, shape: [0], dtype: fp32}\nops: []\n").error().message,
            "g.yaml:4: 'tensors[0].shape[0]': must be in [1, 1099511627776], got 0");
  EXPECT_EQ(from_text("tessera_workload: 2\nname: g\ntensors: []\nops: []\n").error().message,
            "g.yaml:1: 'tessera_workload': must be in [1, 1], got 2");
}

}  // namespace
}  // namespace tessera::ir
