// Static's splits and decisions in both codings (baselines.hpp): Tessera's and the Elk artifact's.
#include "framework/planner/baselines.hpp"

#include <gtest/gtest.h>

#include "tests/unit/planner/synthetic.hpp"

namespace tessera::planner {
namespace {

using testing::round_machine;
using testing::synthetic_op;

struct Fixture {
  std::vector<int> class_of;
  std::vector<OpPlans> plans;
  Machine machine;
  CostContext costs() const { return CostContext(class_of, plans, machine); }
};

Fixture fixture(std::vector<OpPlans> ops, double sram_bytes) {
  return {testing::identity_classes(ops.size()), std::move(ops), round_machine(sram_bytes)};
}

TEST(StaticSplits, TheArtifactSweepsTenKibStepsFromTheLargestSmallestPlanRoundedUpToKib) {
  Fixture f = fixture({synthetic_op(100, {{1500, 2}, {9000, 1}}, {{100, 0}}),
                       synthetic_op(100, {{2100, 2}, {30000, 1}}, {{100, 0}})},
                      40 * 1024);
  CostContext costs = f.costs();
  std::vector<StaticSplit> artifact = static_splits(costs, StaticBaseline::elk_artifact);
  ASSERT_EQ(artifact.size(), 8u);  // 3, 13, 23 and 33 KiB, each with min and max cold
  for (size_t i = 0; i < artifact.size(); ++i) {
    EXPECT_DOUBLE_EQ(artifact[i].exec_region_bytes, (3 + 10 * static_cast<double>(i / 2)) * 1024);
    EXPECT_EQ(artifact[i].largest_preloads, i % 2 == 1);
  }
  std::vector<StaticSplit> tessera = static_splits(costs, StaticBaseline::tessera);
  ASSERT_EQ(tessera.size(), 6u);  // the plan sizes from 2100 B: 2100, 9000 and 30000
  EXPECT_DOUBLE_EQ(tessera.front().exec_region_bytes, 2100);
  EXPECT_DOUBLE_EQ(tessera.back().exec_region_bytes, 30000);
}

// One op whose small execution plan pairs with preloads of 300 and 900 B and whose large one
// with 300 and 600 B (a preload layout pairs only with the execution layouts it can re-lay into).
TEST(StaticDecisions, TheArtifactTakesTheLeastOrMostColdBytesThenTheLargestHotBesideThem) {
  OpPlans op = synthetic_op(100, {{1000, 2}, {5000, 1}}, {{300, 0}, {600, 0}});
  op.preload[0][1].preload_bytes_per_core = 900;
  Fixture f = fixture({op}, 10000);
  CostContext costs = f.costs();
  auto chosen = [&](double region, bool largest) {
    Decisions d = static_decisions(costs, {region, largest}, StaticBaseline::elk_artifact, 8);
    return std::pair{d.exec_plan[0], d.preload_plan[0]};
  };
  EXPECT_EQ(chosen(6000, false), (std::pair{1, 0})) << "min cold 300 B, the 5000 B plan";
  EXPECT_EQ(chosen(6000, true), (std::pair{0, 1})) << "max cold 900 B, only beside 1000 B";
  EXPECT_EQ(chosen(2000, true), (std::pair{0, 1}));
  Decisions tessera = static_decisions(costs, {6000, true}, StaticBaseline::tessera, 8);
  EXPECT_EQ(tessera.exec_plan[0], 1) << "Tessera: the fastest plan within the region";
  EXPECT_EQ(tessera.preload_plan[0], 1) << "and its largest preload within the other 4000 B";
}

// Three ops after a first that loads nothing; SRAM holds every preload beside it. The artifact
// preloads at most K ops ahead of the executing one; Tessera's coding as many as fit.
TEST(StaticDecisions, TheArtifactPreloadsAtMostKOpsAhead) {
  std::vector<OpPlans> ops{synthetic_op(0, {{100, 1}})};
  for (int i = 0; i < 3; ++i) ops.push_back(synthetic_op(100, {{100, 1}}, {{100, 0}}));
  Fixture f = fixture(std::move(ops), 10000);
  CostContext costs = f.costs();
  const StaticSplit split{1000, false};
  EXPECT_EQ(static_decisions(costs, split, StaticBaseline::elk_artifact, 1).window[0], 0);
  EXPECT_EQ(static_decisions(costs, split, StaticBaseline::elk_artifact, 2).window[0], 1);
  EXPECT_EQ(static_decisions(costs, split, StaticBaseline::tessera, 1).window[0], 2);
}

// A preload larger than the preload region overlaps nothing: it waits for the op before its own.
TEST(StaticDecisions, APreloadLargerThanThePreloadRegionOverlapsNothing) {
  std::vector<OpPlans> ops{synthetic_op(0, {{100, 1}}), synthetic_op(100, {{100, 1}}, {{5000, 0}})};
  Fixture f = fixture(std::move(ops), 6000);
  CostContext costs = f.costs();
  Decisions d = static_decisions(costs, {2000, true}, StaticBaseline::elk_artifact, 8);
  EXPECT_EQ(d.window[0], -1);
  EXPECT_EQ(d.window[1], 0);
}

// The vendor design's streamed stack: op 1's preload starts only when op 0 ends, op 1 starts
// with it, and ends when both its compute (0.3 s) and its stream (100 B at 1000 B/s) have.
TEST(VendorDecisions, EachOpStreamsItsOwnDataAndNothingIsPreloadedAhead) {
  Fixture f = fixture(
      {synthetic_op(100, {{100, 0.05}}, {{100, 0}}), synthetic_op(100, {{100, 0.3}}, {{100, 0}})},
      1000);
  CostContext costs = f.costs();
  Decisions d = vendor_decisions(costs);
  EXPECT_EQ(d.window, (std::vector<int>{0, 1}));
  DesignResult r = evaluate_timeline(nullptr, costs, d, TimelineMode::streamed);
  ASSERT_EQ(r.ops.size(), 2u);
  EXPECT_NEAR(r.ops[0].execute_end_s, 0.1, 1e-12) << "its stream outlasts its compute";
  EXPECT_NEAR(r.ops[1].preload_start_s, 0.1, 1e-12);
  EXPECT_NEAR(r.ops[1].execute_start_s, 0.1, 1e-12);
  EXPECT_NEAR(r.latency_s, 0.4, 1e-12) << "its compute outlasts its stream";
  EXPECT_TRUE(r.ops[1].streamed);
  EXPECT_DOUBLE_EQ(r.ops[1].sram_bytes_per_core, 100) << "its stream lands in its execution";
  DesignResult basic =
      evaluate_timeline(nullptr, costs, basic_decisions(costs), TimelineMode::shared);
  EXPECT_NEAR(basic.latency_s, 0.5, 1e-12) << "Basic: each preload lands before its op starts";
}

}  // namespace
}  // namespace tessera::planner
