// Preload orders: counts of displacement-bounded permutations (hand-counted and by brute force),
// duplicate sequences, pruning, and applying one order to every layer.
#include <gtest/gtest.h>

#include "framework/planner/preload_orders.hpp"
#include "tests/unit/planner/synthetic.hpp"

namespace tessera::planner {
namespace {

auto always = [](const std::vector<int>&) { return true; };

std::vector<int> distinct(int n) {
  return testing::identity_classes(n);
}

TEST(Orders, HandCountedSmallCases) {
  // n = 3, d = 1: 012, 021, 102 (2 cannot reach slot 0).
  auto three = bounded_orders(distinct(3), 1, always);
  EXPECT_EQ(three, (std::vector<std::vector<int>>{{0, 1, 2}, {0, 2, 1}, {1, 0, 2}}));
  // d = 1 gives the Fibonacci numbers: 5 for 4 ops, 8 for 5.
  EXPECT_EQ(bounded_orders(distinct(4), 1, always).size(), 5u);
  EXPECT_EQ(bounded_orders(distinct(5), 1, always).size(), 8u);
  // d >= n - 1 allows every permutation.
  EXPECT_EQ(bounded_orders(distinct(4), 3, always).size(), 24u);
  EXPECT_EQ(bounded_orders(distinct(3), 0, always).size(), 1u);
}

// Brute-force counts of permutations with |p[s] - s| <= 4 (checked with Python's itertools):
// 504 for 6, 1902 for 7, 6902 for 8. The Elk artifact reports 446, 1478 and 4757 because it also
// drops orders whose groups hash equal (type and size), which our class dedup does only for
// identical ops.
TEST(Orders, CountsAtDisplacementFour) {
  EXPECT_EQ(bounded_orders(distinct(6), 4, always).size(), 504u);
  EXPECT_EQ(bounded_orders(distinct(7), 4, always).size(), 1902u);
  EXPECT_EQ(bounded_orders(distinct(8), 4, always).size(), 6902u);
}

// The widest displacement whose orders fit the bound: 8 distinct units have 6,902 orders at
// d = 4, 2,069 at 3, 400 at 2 and 34 at 1 (itertools); displacement 0 is the identity whatever
// the bound.
TEST(Orders, WidestDisplacementUnderABound) {
  auto within = [](size_t max_orders) {
    return widest_bounded_orders(distinct(8), 4, max_orders, always);
  };
  EXPECT_EQ(within(6902).displacement, 4);
  EXPECT_EQ(within(6902).orders.size(), 6902u);
  EXPECT_EQ(within(6901).displacement, 3);
  EXPECT_EQ(within(1000).displacement, 2);
  EXPECT_EQ(within(1000).orders, bounded_orders(distinct(8), 2, always));
  EXPECT_EQ(within(34).displacement, 1);
  BoundedOrders identity = within(1);
  EXPECT_EQ(identity.displacement, 0);
  EXPECT_EQ(identity.orders, (std::vector<std::vector<int>>{{0, 1, 2, 3, 4, 5, 6, 7}}));
  EXPECT_EQ(within(0).orders.size(), 1u);
}

TEST(Orders, IdenticalOpsGiveOneOrder) {
  // kinds 0 0 1: the sequences 001, 010, 100.
  EXPECT_EQ(bounded_orders({0, 0, 1}, 2, always).size(), 3u);
  // d = 1: 012 -> 001, 021 -> 010, 102 -> 001 (repeat).
  EXPECT_EQ(bounded_orders({0, 0, 1}, 1, always),
            (std::vector<std::vector<int>>{{0, 1, 2}, {0, 2, 1}}));
}

TEST(Orders, PrunedPrefixesCutTheirSubtree) {
  // Refusing any order that starts with op 2 removes the 6 orders that do.
  auto no_two_first = [](const std::vector<int>& prefix) { return prefix.front() != 2; };
  auto orders = bounded_orders(distinct(4), 3, no_two_first);
  EXPECT_EQ(orders.size(), 18u);
  for (const auto& o : orders) EXPECT_NE(o.front(), 2);
}

// Two layers of [small load, big A, big B]; swapping A and B applies to both layers.
TEST(Orders, SameOrderInEveryLayer) {
  std::vector<OpPlans> model;
  for (int layer = 0; layer < 2; ++layer) {
    model.push_back(testing::synthetic_op(1, {{10, 1}}, {{1, 0}}));
    model.push_back(testing::synthetic_op(1000, {{10, 1}}, {{100, 0}}));
    model.push_back(testing::synthetic_op(2000, {{10, 1}}, {{100, 0}}));
  }
  std::vector<int> classes{0, 1, 2, 0, 1, 2};
  std::vector<OpPlans> class_plans(model.begin(), model.begin() + 3);
  CostContext costs(classes, class_plans, testing::round_machine());
  ir::RepeatedLayers layers{0, 3, 2};
  std::vector<LoadUnit> offsets = large_load_units(costs, layers, {});
  EXPECT_EQ(offsets, (std::vector<LoadUnit>{{1, 1}, {2, 1}}));
  Decisions d = permuted_order(costs, layers, offsets, {1, 0});
  EXPECT_EQ(d.order, (std::vector<int>{0, 2, 1, 3, 5, 4}));
  EXPECT_EQ(d.position, (std::vector<int>{0, 2, 1, 3, 5, 4}));
  // Preloading B (100 B) before A means B sits beside A: 10 + 100 fits 1000 B, not 105 B.
  EXPECT_TRUE(prefix_fits(costs, layers, offsets, {1, 0}));
  CostContext tight(classes, class_plans, testing::round_machine(105));
  EXPECT_FALSE(prefix_fits(tight, layers, offsets, {1, 0}));
  EXPECT_TRUE(prefix_fits(tight, layers, offsets, {0, 1}));
}

}  // namespace
}  // namespace tessera::planner
