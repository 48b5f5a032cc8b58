// The activations handed between chips (planner/handoff.hpp), on two ops small enough to lay out by
// hand: y = relu(x) then z = relu(y) on a machine of two chips.
#include "framework/planner/handoff.hpp"

#include <gtest/gtest.h>

namespace tessera::planner {
namespace {

using ir::DType;
using ir::OpKind;
using ir::TensorRole;

ir::Op relu(const std::string& name, const std::vector<ir::Rank>& ranks, const std::string& input,
            const std::string& output) {
  return {name,
          OpKind::unary,
          {ranks, {ir::parse_operand(input).take()}, ir::parse_operand(output).take(), "relu"},
          "test"};
}

// x (an input, off chip) [8, 4] fp16 -> y [8, 4] -> z [8, 4]; `view`: b reads y as [32].
ir::Graph two_ops(bool view) {
  ir::GraphBuilder b("two");
  for (const char* t : {"x", "y", "z"})
    b.add_tensor(
         {t, {8, 4}, DType::fp16, *t == 'x' ? TensorRole::input : TensorRole::activation, ""})
        .take();
  b.add_op(relu("a", {{"i", 8}, {"j", 4}}, "x[i,j]", "y[i,j]")).take();
  if (view) {
    b.add_tensor({"flat", {32}, DType::fp16, TensorRole::activation, "y"}).take();
    b.add_tensor({"w", {32}, DType::fp16, TensorRole::activation, ""}).take();
    b.add_op(relu("b", {{"e", 32}}, "flat[e]", "w[e]")).take();
  } else {
    b.add_op(relu("b", {{"i", 8}, {"j", 4}}, "y[i,j]", "z[i,j]")).take();
  }
  return b.finish();
}

ExecPlan plan(std::vector<int64_t> factors, std::vector<int64_t> tile, std::vector<int> order) {
  ExecPlan e;
  e.cores_used = 1;
  for (int64_t f : factors) e.cores_used *= static_cast<uint32_t>(f);
  e.factors = std::move(factors);
  e.tile = std::move(tile);
  e.placement = std::move(order);
  return e;
}

// Runs a with `pa`, b with `pb` on two chips: b's hand-off.
HandOff handoff_of(const ir::Graph& g, const ExecPlan& pa, const ExecPlan& pb) {
  std::vector<partition::OpShape> shapes;
  std::vector<OpTraffic> traffic;
  const ExecPlan* execs[] = {&pa, &pb};
  for (int i = 0; i < 2; ++i) {
    shapes.push_back(partition::describe_op(g, g.ops()[i]).take());
    traffic.push_back(**op_traffic(shapes[i], *execs[i], 0, 2));
  }
  std::vector<PlacedOp> placed{{&shapes[0], &pa, &traffic[0]}, {&shapes[1], &pb, &traffic[1]}};
  auto sources = activation_sources(g);
  EXPECT_TRUE(sources[0].empty());  // x is off chip
  EXPECT_EQ(sources[1].size(), 1u);
  return input_handoff(g, 1, sources[1].at(0), placed, 2);
}

// a cuts y by rows over 4 cores (cores 0-1 on chip 0: rows 0-3; cores 2-3 on chip 1: rows 4-7);
// b cuts it by columns over 2 cores (chip 0: columns 0-1, chip 1: columns 2-3). Chip 0 lacks rows
// 4-7 of columns 0-1 (8 elements, 16 B) and chip 1 rows 0-3 of columns 2-3 (16 B).
TEST(HandOff, RowsToColumnsCrossHalfOfWhatEachChipReads) {
  ir::Graph g = two_ops(false);
  HandOff h = handoff_of(g, plan({4, 1}, {2, 4}, {0, 1}), plan({1, 2}, {8, 2}, {1, 0}));
  EXPECT_EQ(h.moves, (std::vector<ChipMove>{{0, 1, 16}, {1, 0, 16}}));
  EXPECT_DOUBLE_EQ(h.bytes(), 32);
}

// Both cut by rows, each chip holding the rows it reads: nothing crosses.
TEST(HandOff, AlikePlacementsHandNothing) {
  ir::Graph g = two_ops(false);
  HandOff h = handoff_of(g, plan({4, 1}, {2, 4}, {0, 1}), plan({2, 1}, {4, 4}, {0, 1}));
  EXPECT_TRUE(h.moves.empty());
  // b on one core, which chip_of puts on chip 1 (chip 0's block of 1 core over 2 chips is empty):
  // it reads all of y, of which chip 0 holds rows 0-3 (32 B).
  HandOff one = handoff_of(g, plan({4, 1}, {2, 4}, {0, 1}), plan({1, 1}, {8, 4}, {0, 1}));
  EXPECT_EQ(one.moves, (std::vector<ChipMove>{{0, 1, 32}}));
}

// Tiles that do not nest: a cuts y's 8 rows into 3 tiles of 3 (core 0 on chip 0: rows 0-2; cores
// 1-2 on chip 1: rows 3-7), b into 2 of 4 (chip 0: rows 0-3, chip 1: rows 4-7). The cells are rows
// 0-2, 3, 4-5 and 6-7, and only row 3 (4 elements, 8 B) is on the wrong chip; the other way
// round, the same row is needed on chip 1 and held on chip 0.
TEST(HandOff, TilesThatDoNotNestCrossTheRowsBetweenTheirStarts) {
  ir::Graph g = two_ops(false);
  HandOff h = handoff_of(g, plan({3, 1}, {3, 4}, {0, 1}), plan({2, 1}, {4, 4}, {0, 1}));
  EXPECT_EQ(h.moves, (std::vector<ChipMove>{{1, 0, 8}}));
  HandOff back = handoff_of(g, plan({2, 1}, {4, 4}, {0, 1}), plan({3, 1}, {3, 4}, {0, 1}));
  EXPECT_EQ(back.moves, (std::vector<ChipMove>{{0, 1, 8}}));
}

// A view of another shape: the placements are taken as unrelated. Each chip reads half of y's
// 64 B, of which the other chip holds half: 16 B each way.
TEST(HandOff, AViewIsTakenAsUnrelated) {
  ir::Graph g = two_ops(true);
  HandOff h = handoff_of(g, plan({4, 1}, {2, 4}, {0, 1}), plan({2}, {16}, {0}));
  EXPECT_EQ(h.moves, (std::vector<ChipMove>{{0, 1, 16}, {1, 0, 16}}));
}

TEST(HandOff, OneChipOrNoLinksHandsNothing) {
  Machine m;
  m.chips = 2;
  EXPECT_FALSE(hands_off(m));  // no chip links
  m.chip_link_bytes_per_s = 12.5e9;
  EXPECT_TRUE(hands_off(m));
  m.chips = 1;
  EXPECT_FALSE(hands_off(m));
  EXPECT_EQ(merged({{{{0, 1, 16}}}, {{{0, 1, 8}, {1, 0, 4}}}}).moves,
            (std::vector<ChipMove>{{0, 1, 24}, {1, 0, 4}}));
}

}  // namespace
}  // namespace tessera::planner
