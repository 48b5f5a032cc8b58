// The cost-aware allocation's greedy (Elk §4.3) on a case whose steps are known.
#include "framework/planner/allocation.hpp"

#include <gtest/gtest.h>

namespace tessera::planner {
namespace {

// Exec op: 500 B/2 s, 300 B/3 s, 100 B/5 s. Preload A: 400 B/1 s, 100 B/2 s. Preload B:
// 250 B/3.9 s, 50 B/4 s. Start 1150 B > 800 B. Ratios (bytes freed per second added): exec
// 200/1, A 300/1, B 200/0.1 = 2000 -> B steps first (950 B); then A (300) beats exec (200)
// -> 650 B, fits. Time 2 + 2 + 4 = 8 s.
std::vector<AllocationItem> three_items() {
  return {{0, {{100, 5}, {300, 3}, {500, 2}}, 2},
          {1, {{100, 2}, {400, 1}}, 1},
          {2, {{50, 4}, {250, 3.9}}, 1}};
}

TEST(Allocation, StepsTheBestBytesPerSecondFirst) {
  Allocation a = allocate(three_items(), 800);
  ASSERT_TRUE(a.feasible);
  EXPECT_EQ(a.chosen, (std::vector<int>{2, 0, 0}));
  EXPECT_EQ(a.steps, 2);
  EXPECT_DOUBLE_EQ(a.bytes_per_core, 650);
  EXPECT_DOUBLE_EQ(a.time_s, 8);
}

TEST(Allocation, FastestPlansWhenEverythingFits) {
  Allocation a = allocate(three_items(), 1150);
  ASSERT_TRUE(a.feasible);
  EXPECT_EQ(a.chosen, (std::vector<int>{2, 1, 1}));
  EXPECT_EQ(a.steps, 0);
  EXPECT_DOUBLE_EQ(a.time_s, 2 + 1 + 3.9);
}

TEST(Allocation, SmallerOptionThatIsNoSlowerGoesFirst) {
  // Item 1's smaller option is as fast: it is taken before item 0's very cheap step.
  std::vector<AllocationItem> items{{0, {{100, 1.001}, {900, 1}}, 1}, {1, {{10, 7}, {20, 7}}, 1}};
  Allocation a = allocate(items, 915);
  ASSERT_TRUE(a.feasible);
  EXPECT_EQ(a.chosen, (std::vector<int>{1, 0}));
}

TEST(Allocation, InfeasibleSaysHowManyBytesAreMissing) {
  Allocation a = allocate(three_items(), 200);
  EXPECT_FALSE(a.feasible);
  EXPECT_EQ(a.reason(),
            "with 2 resident preloads it needs 250 bytes per core at least, 50 more than the 200 "
            "available");
}

}  // namespace
}  // namespace tessera::planner
