// Where an op's tiles sit and which cores exchange what (planner/op_traffic.hpp), on a matmul small
// enough to lay out by hand.
#include "framework/planner/op_traffic.hpp"

#include <gtest/gtest.h>

namespace tessera::planner {
namespace {

using partition::OperandShape;
using partition::OpShape;

// C[m,n] = A[m,k] · B[k,n], B in HBM; k is reduced, so splitting it leaves partials to combine.
OpShape matmul() {
  OpShape op;
  op.name = "mm";
  op.kind = ir::OpKind::matmul;
  op.rank_names = {"m", "k", "n"};
  op.extents = {8, 8, 8};
  op.combined = {false, true, false};
  auto operand = [](const char* label, std::vector<bool> uses, bool hbm, bool out) {
    OperandShape o;
    o.label = label;
    o.uses_rank = std::move(uses);
    o.dims = {8, 8};
    o.terms = {{{0, 1}}, {{1, 1}}};  // only their sizes matter here: 8 × 8 elements at most
    o.indirect = {-1, -1};
    o.in_hbm = hbm;
    o.is_output = out;
    return o;
  };
  op.operands = {operand("in0", {true, true, false}, false, false),
                 operand("in1", {false, true, true}, true, false),
                 operand("out", {true, false, true}, false, true)};
  return op;
}

ExecPlan plan_2x2x2() {
  ExecPlan e;
  e.factors = {2, 2, 2};
  e.tile = {4, 4, 4};
  e.cores_used = 8;
  e.rotated_operand = 0;
  e.rotation_steps = 2;
  e.shift_bytes = 800;
  e.combine_bytes = 300;
  return e;
}

// Placement: k (combined) fastest, then n, then m: core = 4m + 2n + k.
TEST(OpTraffic, RingsTreesAndGathersFollowThePlacement) {
  auto t = op_traffic(matmul(), plan_2x2x2(), 0, 1);
  ASSERT_TRUE(t.ok()) << t.error().message;
  ASSERT_TRUE(t->has_value());
  const OpTraffic& traffic = **t;
  EXPECT_EQ(traffic.cores, 8u);
  // A (in0) ignores n: cores 4m + k and 4m + 2 + k share its tile, a ring of 2.
  EXPECT_EQ(traffic.rotation_next, (std::vector<uint32_t>{2, 3, 0, 1, 6, 7, 4, 5}));
  EXPECT_DOUBLE_EQ(traffic.rotation_bytes, 500);
  // The partials of one output tile: k's two cores, consecutive; one level of the tree.
  EXPECT_EQ(traffic.combine_parts, 2u);
  EXPECT_EQ(traffic.combine_order, (std::vector<uint32_t>{0, 1, 2, 3, 4, 5, 6, 7}));
  EXPECT_EQ(traffic.combine_levels(), 1);
  EXPECT_EQ(traffic.combine_passes, 1);
  EXPECT_DOUBLE_EQ(traffic.combine_bytes, 300);
  // B (in1, the HBM input) ignores m: cores 2n + k and 4 + 2n + k gather it between them.
  EXPECT_EQ(traffic.gather_next, (std::vector<uint32_t>{4, 5, 6, 7, 0, 1, 2, 3}));
}

// On 2 chips of 4 cores the slowest rank's exchange crosses chips: the default order (k, n, m)
// would send the 1000 B gather of B across; putting k slowest sends only the 300 B of partials.
TEST(OpTraffic, ThePlacementKeepsTheHeaviestExchangesOnChip) {
  auto t = op_traffic(matmul(), plan_2x2x2(), 1000, 2);
  ASSERT_TRUE(t.ok()) << t.error().message;
  EXPECT_EQ((*t)->order, (std::vector<int>{0, 2, 1}));  // m fastest, then n, k slowest
  EXPECT_DOUBLE_EQ((*t)->cross_chip_bytes, 300);
  EXPECT_EQ((*t)->gather_next, (std::vector<uint32_t>{1, 0, 3, 2, 5, 4, 7, 6}));
  // Nothing to gather: the default order crosses nothing worth moving.
  auto quiet = op_traffic(matmul(), plan_2x2x2(), 0, 2);
  ASSERT_TRUE(quiet.ok());
  EXPECT_EQ((*quiet)->order, (std::vector<int>{1, 2, 0}));
  EXPECT_DOUBLE_EQ((*quiet)->cross_chip_bytes, 0);
}

TEST(OpTraffic, APlanWithoutFactorsSaysNothing) {
  ExecPlan e = plan_2x2x2();
  e.factors.clear();
  auto t = op_traffic(matmul(), e, 0, 1);
  ASSERT_TRUE(t.ok());
  EXPECT_FALSE(t->has_value());
}

TEST(OpTraffic, FactorsThatDoNotMakeTheCoresAreRefused) {
  ExecPlan e = plan_2x2x2();
  e.factors = {2, 2, 4};
  auto t = op_traffic(matmul(), e, 0, 1);
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.error().message,
            "exec.factors: their product 16 is not cores_used 8 (or the tile has not one extent "
            "per rank); re-run tessera compile");
  e = plan_2x2x2();
  e.factors = {2, 0, 4};
  t = op_traffic(matmul(), e, 0, 1);
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.error().message, "exec.factors: 0 is not a core count (>= 1)");
  e = plan_2x2x2();
  e.rotated_operand = 2;  // the output
  t = op_traffic(matmul(), e, 0, 1);
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.error().message,
            "exec.rotated_operand, exec.rotation_steps: operand 2 in 2 steps is not a rotation of "
            "one of the op's inputs; re-run tessera compile");
  e = plan_2x2x2();
  e.rotation_steps = 3;
  t = op_traffic(matmul(), e, 0, 1);
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.error().message,
            "exec.rotation_steps: 3 does not divide the 2 cores sharing the rotated operand; "
            "re-run tessera compile");
}

// The plan's placement is where the tiles go: n fastest, then k, then m: core = 4m + n + 2k.
TEST(OpTraffic, APlanThatRecordsItsPlacementIsLaidOutThere) {
  ExecPlan e = plan_2x2x2();
  e.placement = {2, 1, 0};
  auto t = op_traffic(matmul(), e, 0, 4);  // four chips: no search, the plan's word holds
  ASSERT_TRUE(t.ok()) << t.error().message;
  EXPECT_EQ((**t).order, (std::vector<int>{2, 1, 0}));
  // A ignores n: cores 4m + 2k and 4m + 2k + 1 share its tile.
  EXPECT_EQ((**t).rotation_next, (std::vector<uint32_t>{1, 0, 3, 2, 5, 4, 7, 6}));
  // One output tile's partials: k's two cores, two apart.
  EXPECT_EQ((**t).combine_order, (std::vector<uint32_t>{0, 2, 1, 3, 4, 6, 5, 7}));
}

TEST(OpTraffic, APlacementThatIsNotEveryRankOnceIsRefused) {
  ExecPlan e = plan_2x2x2();
  for (std::vector<int> bad : {std::vector<int>{0, 1}, {0, 1, 1}, {0, 1, 3}}) {
    e.placement = bad;
    auto t = op_traffic(matmul(), e, 0, 1);
    ASSERT_FALSE(t.ok());
    EXPECT_EQ(t.error().message,
              "exec.placement: not every one of the op's 3 ranks once; re-run tessera compile");
  }
}

TEST(OpTraffic, PlacementsToCompareStartWithTheDefaultAndCoverTheSplitRanks) {
  auto orders = placement_orders(matmul(), plan_2x2x2());
  ASSERT_EQ(orders.size(), 6u);  // 3! orders of m, k, n
  EXPECT_EQ(orders.front(), (std::vector<int>{1, 2, 0}));
  ExecPlan e = plan_2x2x2();
  e.factors = {1, 2, 4};  // m unsplit: last in every order
  e.tile = {8, 4, 2};
  orders = placement_orders(matmul(), e);
  ASSERT_EQ(orders.size(), 2u);
  for (const auto& o : orders) EXPECT_EQ(o.back(), 0);
}

// A placement's brief is op_traffic_at's exchanges without their partners, and two placements whose
// exchange has one shape exchange between the same cores (consecutive ranks alike merge: k then n
// and n then k gather B between the same cores).
TEST(OpTraffic, ABriefsShapesDecideTheExchangesPartners) {
  ExecPlan wide = plan_2x2x2();
  wide.factors = {2, 2, 4};
  wide.tile = {4, 4, 2};
  wide.cores_used = 16;
  wide.rotation_steps = 4;
  for (const ExecPlan& e : {plan_2x2x2(), wide}) {
    std::vector<std::pair<PlacementBrief, OpTraffic>> placed;
    for (const auto& order : placement_orders(matmul(), e)) {
      auto brief = placement_brief(matmul(), e, order);
      auto traffic = op_traffic_at(matmul(), e, order);
      ASSERT_EQ(brief.ok(), traffic.ok());
      if (!traffic) continue;
      OpTraffic sizes = *traffic;
      EXPECT_EQ(brief->rotates, !sizes.rotation_next.empty());
      EXPECT_EQ(brief->gathers, !sizes.gather_next.empty());
      sizes.rotation_next.clear();
      sizes.combine_order.clear();
      sizes.gather_next.clear();
      EXPECT_EQ(brief->sizes, sizes);
      placed.emplace_back(std::move(*brief), std::move(*traffic));
    }
    size_t alike = 0;
    for (const auto& [a, ta] : placed)
      for (const auto& [b, tb] : placed) {
        if (a.rotation_shape == b.rotation_shape) {
          EXPECT_EQ(ta.rotation_next, tb.rotation_next);
        }
        if (a.combine_shape == b.combine_shape) {
          EXPECT_EQ(ta.combine_order, tb.combine_order);
        }
        if (a.gather_shape == b.gather_shape) {
          EXPECT_EQ(ta.gather_next, tb.gather_next);
          alike += ta.order != tb.order;
        }
      }
    EXPECT_GT(alike, 0u);
  }
}

// The heaviest exchange's ranks go fastest: the rotation (500 bytes) along n, which A ignores,
// ahead of the combine (300) along k; with a large distribute along m (B ignores m), m first.
TEST(OpTraffic, TheLocalOrderPutsTheHeaviestExchangeOnConsecutiveCores) {
  EXPECT_EQ(local_order(matmul(), plan_2x2x2(), 0), (std::vector<int>{2, 1, 0}));
  EXPECT_EQ(local_order(matmul(), plan_2x2x2(), 1000), (std::vector<int>{0, 2, 1}));
}

// A plan of m/2 k/2 n/2 on a grid of 3 columns: a row holds two cores of the order's first digit
// (k, 2 columns); n and m go down the rows, 3 cores apart per row.
TEST(OpTraffic, AGridPlacementFillsColumnsOfARowThenRows) {
  ExecPlan e = plan_2x2x2();
  auto grid = grid_placements(e, {1, 2, 0}, CoreGrid{3, 4});
  ASSERT_EQ(grid.size(), 1u);
  EXPECT_EQ(grid[0].columns, 2u);
  EXPECT_EQ(grid[0].digits, (std::vector<CoreDigit>{{1, 2, 1}, {2, 2, 3}, {0, 2, 6}}));
  e.core_digits = grid[0].digits;
  auto t = op_traffic(matmul(), e, 0, 1);
  ASSERT_TRUE(t.ok()) << t.error().message;
  // Plan core k + 2n + 4m sits in column k of row n + 2m: the partials of a tile along a row.
  EXPECT_EQ((*t)->physical, (std::vector<uint32_t>{0, 1, 3, 4, 6, 7, 9, 10}));
  EXPECT_EQ(combine_transfers(**t, 0),
            (std::vector<std::pair<uint32_t, uint32_t>>{{1, 0}, {3, 2}, {5, 4}, {7, 6}}));
}

// A rank's factor is cut where the row ends: 12 cores of one rank on rows of 8 are 6 columns
// (the widest row that divides 12) by 2 rows, or 4 (the widest power of two) by 3.
TEST(OpTraffic, AGridPlacementCutsARankWhereTheRowEnds) {
  ExecPlan e;
  e.factors = {1, 12, 1};
  e.tile = {8, 1, 8};
  e.cores_used = 12;
  auto grid = grid_placements(e, {1, 2, 0}, CoreGrid{8, 3});
  ASSERT_EQ(grid.size(), 2u);
  EXPECT_EQ(grid[0].columns, 6u);
  EXPECT_EQ(grid[0].digits, (std::vector<CoreDigit>{{1, 6, 1}, {1, 2, 8}}));
  EXPECT_EQ(grid[1].columns, 4u);
  EXPECT_EQ(grid[1].digits, (std::vector<CoreDigit>{{1, 4, 1}, {1, 3, 8}}));
  // On rows of 5 the widest is 4, a power of two: one width.
  grid = grid_placements(e, {1, 2, 0}, CoreGrid{5, 3});
  ASSERT_EQ(grid.size(), 1u);
  EXPECT_EQ(grid[0].columns, 4u);
  // None where the grid's own order is the same or nothing fits: a plan within one row, 6 whole
  // rows of 2, rows of 5 too few for 4 columns by 3.
  EXPECT_TRUE(grid_placements(e, {1, 2, 0}, CoreGrid{16, 3}).empty());
  EXPECT_TRUE(grid_placements(e, {1, 2, 0}, CoreGrid{2, 6}).empty());
  EXPECT_TRUE(grid_placements(e, {1, 2, 0}, CoreGrid{5, 2}).empty());
  // A factor with no divisor that fits a row is one column.
  e.factors = {1, 7, 1};
  e.cores_used = 7;
  grid = grid_placements(e, {1, 2, 0}, CoreGrid{4, 8});
  ASSERT_EQ(grid.size(), 1u);
  EXPECT_EQ(grid[0].columns, 1u);
  EXPECT_EQ(grid[0].digits, (std::vector<CoreDigit>{{1, 7, 4}}));
}

// A plugin's plan placed by core digits (tree_simd's levels): k split at two levels, m at one.
// Plan cores count k's low digit fastest, then m, then k's high digit: 8 cores, k over 4.
ExecPlan tree_plan() {
  ExecPlan e;
  e.factors = {2, 4, 1};
  e.tile = {4, 2, 8};
  e.cores_used = 8;
  e.combine_bytes = 600;
  e.shift_bytes = 600;
  e.core_digits = {{1, 2, 1}, {0, 2, 4}, {1, 2, 16}};
  return e;
}

TEST(OpTraffic, CoreDigitsPlaceTilesOnTheCoresTheyName) {
  auto t = op_traffic(matmul(), tree_plan(), 0, 1);
  ASSERT_TRUE(t.ok()) << t.error().message;
  ASSERT_TRUE(t->has_value());
  const OpTraffic& traffic = **t;
  // Plan core k0 + 2m + 4k1 sits on core k0 + 4m + 16k1.
  EXPECT_EQ(traffic.physical, (std::vector<uint32_t>{0, 1, 4, 5, 16, 17, 20, 21}));
  // One output tile (one m) has k's four partials: both of k's digits, low one first.
  EXPECT_EQ(traffic.combine_parts, 4u);
  EXPECT_EQ(traffic.combine_order, (std::vector<uint32_t>{0, 1, 4, 5, 2, 3, 6, 7}));
  // B (in1, in HBM) ignores m: the two m of each k share its tile.
  EXPECT_EQ(traffic.gather_next, (std::vector<uint32_t>{2, 3, 0, 1, 6, 7, 4, 5}));
  EXPECT_TRUE(traffic.rotation_next.empty());
}

TEST(OpTraffic, CoreDigitsThatDoNotMakeTheFactorsOrShareACoreAreRefused) {
  ExecPlan e = tree_plan();
  e.core_digits[2].count = 1;
  e.core_digits.push_back({2, 2, 32});  // n split although its factor is 1
  auto t = op_traffic(matmul(), e, 0, 1);
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.error().message,
            "exec.core_digits: each rank's counts must multiply to its exec.factors; re-run "
            "tessera compile");
  e = tree_plan();
  e.core_digits[1].core_stride = 0;
  t = op_traffic(matmul(), e, 0, 1);
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.error().message,
            "exec.core_digits: two tiles on core 0; every tile needs its own core");
  e = tree_plan();
  e.core_digits[1].core_stride = e.core_digits[2].core_stride = 3'000'000'000;  // 6e9: no chip
  t = op_traffic(matmul(), e, 0, 1);
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.error().message,
            "exec.core_digits: a tile's core is beyond any chip's; re-run tessera compile");
  e = tree_plan();
  e.core_digits[0].rank = 3;
  t = op_traffic(matmul(), e, 0, 1);
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.error().message,
            "exec.core_digits: [3, 2, 1] is not a digit [rank < 3, count >= 1, core stride >= 0]");
}

}  // namespace
}  // namespace tessera::planner
