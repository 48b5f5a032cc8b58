// The Elk artifact's op lists (frontend/elk/texpr.hpp): each entry one op with its own tensors,
// on-chip inputs resident, HBM inputs weights (the KV cache for a BatchMatMul), and every malformed
// field named with its entry.
#include <gtest/gtest.h>

#include "framework/frontend/elk/texpr.hpp"
#include "framework/frontend/model_source.hpp"
#include "framework/ir/analysis.hpp"
#include "tests/unit/temp_dir.hpp"

namespace tessera {
namespace {

// Two entries as the artifact's models/model_parser.py writes them: an RMSNorm weight multiply and
// a Dot whose weight comes from HBM; then a decode BatchMatMul reading the KV cache.
constexpr const char* kOps = R"([
 ["Multiply", [4, 1, 64], [[[0], [1], [2]], [[2]], [[0], [1], [2]]], [false, true], 2, 10, [9, 8]],
 ["Dot", [4, 192, 64], [[[0], [1]], [[0], [2]], [[2], [1]]], [true, false], 5, 12, [10, 900]],
 ["BatchMatMul", [4, 2, 1, 16, 32], [[[0], [1], [2], [3]], [[0], [1], [2], [4]], [[0], [1], [4], [3]]], [true, false], 5, 14, [12, 901]]
])";

TEST(ElkTexpr, EachEntryIsAnOpOverItsOwnTensors) {
  ir::Graph g = elk_texpr::parse_texpr(kOps, "/x/TExpr_tiny-b4.json").take();
  EXPECT_EQ(g.name(), "TExpr_tiny-b4");
  ASSERT_EQ(g.ops().size(), 3u);
  const ir::Op& mul = g.ops()[0];
  EXPECT_EQ(mul.name, "Op_0_Multiply");
  EXPECT_EQ(mul.kind, ir::OpKind::elementwise);
  EXPECT_EQ(mul.einsum.fn, "mul");
  EXPECT_EQ(mul.einsum.str(), "mul([d2],[d0,d1,d2])->[d0,d1,d2]");
  EXPECT_EQ(g.find_tensor("Op_0_Multiply.in0")->role, ir::TensorRole::weight);
  EXPECT_EQ(g.find_tensor("Op_0_Multiply.in0")->shape, (std::vector<int64_t>{64}));
  EXPECT_EQ(g.find_tensor("Op_0_Multiply.in1")->role, ir::TensorRole::resident);
  const ir::Op& dot = g.ops()[1];
  EXPECT_EQ(dot.kind, ir::OpKind::matmul);
  EXPECT_EQ(dot.einsum.ranks_str(), "d0=4 d1=192 d2=64");
  EXPECT_EQ(g.find_tensor("Op_1_Dot.out")->shape, (std::vector<int64_t>{4, 192}));
  EXPECT_EQ(g.find_tensor("Op_1_Dot.in1")->role, ir::TensorRole::weight);
  EXPECT_EQ(g.ops()[2].kind, ir::OpKind::batched_matmul);
  EXPECT_EQ(g.find_tensor("Op_2_BatchMatMul.in1")->role, ir::TensorRole::kv_cache);
  EXPECT_EQ(g.outputs(), (std::vector<std::string>{"Op_2_BatchMatMul.out"}));

  // The artifact's accounting: only the HBM inputs are loaded, 2 bytes per element.
  ir::OpCost dot_cost = ir::op_cost(g, dot);
  EXPECT_DOUBLE_EQ(dot_cost.hbm_bytes_in, 64.0 * 192 * 2);
  EXPECT_DOUBLE_EQ(dot_cost.on_chip_bytes_in, 4.0 * 64 * 2);
  EXPECT_DOUBLE_EQ(dot_cost.flops, 2.0 * 4 * 192 * 64);
  EXPECT_DOUBLE_EQ(ir::op_cost(g, mul).hbm_bytes_in, 64.0 * 2);
}

TEST(ElkTexpr, AConvolutionWindowSumsItsDimensions) {
  ir::Graph g = elk_texpr::parse_texpr(
                    R"([["Conv", [1, 8, 3, 6, 6, 3, 3],
                       [[[0], [1], [3], [4]], [[0], [2], [3, 5], [4, 6]], [[2], [1], [5], [6]]],
                       [true, false], 4, 1, [0, 2]]])",
                    "/x/c.json")
                    .take();
  EXPECT_EQ(g.ops()[0].kind, ir::OpKind::conv);
  EXPECT_EQ(g.find_tensor("Op_0_Conv.in0")->shape, (std::vector<int64_t>{1, 3, 8, 8}));
  EXPECT_EQ(g.ops()[0].einsum.inputs[0].str(), "Op_0_Conv.in0[d0,d2,d3+d5,d4+d6]");
}

std::string error_of(const std::string& text) {
  auto g = elk_texpr::parse_texpr(text, "/x/t.json");
  return g.ok() ? "parsed" : g.error().message;
}

TEST(ElkTexpr, MalformedEntriesNameTheEntryAndTheField) {
  EXPECT_EQ(error_of("{}"),
            "/x/t.json: expected the Elk artifact's op list (models/TExpr/*.json: a list of "
            "[type_name, dim_lengths, variables, ignore_flags, type_id, op_id, input_ids])");
  EXPECT_EQ(error_of("[1]").substr(0, 118),
            "/x/t.json: entry 0: expected [type_name, dim_lengths, variables, ignore_flags, "
            "type_id, op_id, input_ids], got 1");
  const std::string ok_prefix =
      R"([["Add", [2, 3], [[[0], [1]], [[0], [1]]], [true], 2, 1, [0]], )";
  EXPECT_EQ(
      error_of(ok_prefix + R"(["Add", [2, 0], [[[0], [1]], [[0], [1]]], [true], 2, 1, [0]]])"),
      "/x/t.json: entry 1: dim_lengths[1]: 0 is outside [1, 1099511627776]");
  EXPECT_EQ(error_of(R"([["Add", [2, 3], [[[0], [1]], [[0], [5]]], [true], 2, 1, [0]]])"),
            "/x/t.json: entry 0: variables[1][1][0]: 5 is outside [0, 1]");
  EXPECT_EQ(error_of(R"([["Add", [2, 3], [[[0], [1]], [[0], [1]]], [1], 2, 1, [0]]])"),
            "/x/t.json: entry 0: ignore_flags[0]: expected true or false, got 1");
  EXPECT_EQ(error_of(R"([["Add", [2, 3], [[[0], [1]], [[0], [1]]], [], 2, 1, [0]]])"),
            "/x/t.json: entry 0: ignore_flags: expected one flag per input (1), got 0");
  EXPECT_EQ(error_of(R"([["Odd", [2, 3], [[[0], [1]], [[0], [1]]], [true], 7, 1, [0]]])"),
            "/x/t.json: entry 0: type_id: 7 is not one the artifact defines (0-6, 8)");
  EXPECT_EQ(error_of(R"([["Add", [2, 3], [[[0], [1]]], [], 2, 1, [0]]])"),
            "/x/t.json: entry 0: variables: expected the output and at least one input, got 1 "
            "tensors");
  EXPECT_EQ(error_of(R"([[3, [2], [[[0]], [[0]]], [true], 2, 1, [0]]])"),
            "/x/t.json: entry 0: type_name: expected a string, got 3");
  EXPECT_EQ(error_of(R"([["Add", 2, [[[0]], [[0]]], [true], 2, 1, [0]]])"),
            "/x/t.json: entry 0: dim_lengths: expected a list, got 2");
  EXPECT_EQ(error_of(R"([["Add", [], [[[0]], [[0]]], [true], 2, 1, [0]]])"),
            "/x/t.json: entry 0: dim_lengths: expected 1 to 32 extents, got 0");
  EXPECT_EQ(error_of(R"([["Add", [2], [[[0]], [[0]]], [true], 2.5, 1, [0]]])"),
            "/x/t.json: entry 0: type_id: expected an integer, got 2.5");
  EXPECT_EQ(error_of(R"([["Add", [2], [[], [[0]]], [true], 2, 1, [0]]])"),
            "/x/t.json: entry 0: variables[0] (output): expected 1 to 32 tensor dimensions, got 0");
  EXPECT_EQ(error_of(R"([["Add", [2], [[[0]], [[]]], [true], 2, 1, [0]]])"),
            "/x/t.json: entry 0: variables[1][0]: expected the iteration dimensions it spans, "
            "got []");
  EXPECT_EQ(error_of("[[").substr(0, 22), "/x/t.json: not JSON: [");
}

TEST(ElkTexpr, ModelFilesEndingInJsonAreOpListsWithFixedShapes) {
  testing::TempDir dir;
  ModelRequest r;
  r.model = dir.write("TExpr_tiny-b4.json", kOps).string();
  EXPECT_EQ(model_kind(r.model), ModelKind::elk_texpr_file);
  EXPECT_EQ(load_model(r).take().ops().size(), 3u);
  r.shape_given = true;
  EXPECT_EQ(
      load_model(r).error().message,
      "--batch, --seq, --mode, --dtype, --weight-dtype and --precision apply to zoo models; an Elk "
      "artifact op list has fixed shapes");
}

}  // namespace
}  // namespace tessera
