// Collectives as ops of a stage's program (collective_op.hpp): the chip waits for a collective
// after the op whose output it exchanges, but the preloads of later ops go on meanwhile, on models
// timed by hand.
#include <gtest/gtest.h>

#include "framework/planner/planner.hpp"
#include "tests/unit/planner/synthetic.hpp"

namespace tessera::planner {
namespace {

using testing::round_machine;
using testing::synthetic_op;

// Op 0 loads 100 B (0.1 s at 1000 B/s) and computes 0.2 s; op 1 loads 1000 B (1 s) and computes
// 0.1 s, its preload longer than op 0's execution; a collective of `collective_s` follows op 0.
PlannerInput two_ops(double collective_s) {
  PlannerInput in;
  in.classes.class_of = testing::identity_classes(2);
  in.class_plans.push_back(synthetic_op(100, {{100, 0.2}}, {{100, 0}}));
  in.class_plans.push_back(synthetic_op(1000, {{100, 0.1}}, {{1000, 0}}));
  in.machine = round_machine(10000);
  if (collective_s > 0)
    in.collectives.push_back(
        CollectiveOp{"op0", 0, "after attention",
                     collective::Collective{collective::CollectiveKind::all_reduce,
                                            collective::CollectiveAlgorithm::direct,
                                            16384,
                                            {0, 1}},
                     collective_s, collective_s});
  return in;
}

DesignResult plan(const PlannerInput& in, Design design) {
  PlannerOptions options;
  options.threads = 1;
  return plan_design(in, design, options).take();
}

// The preloads run back to back: op 1's lands at 0.1 + 1 = 1.1 s. Op 0 runs [0.1, 0.3), then its
// collective; op 1 starts when both the collective and its data are there:
// max(0.3 + c, 1.1) + 0.1 s. Before, the step was the chip's 1.2 s plus c.
TEST(CollectiveOp, OverlapsTheNextOpsPreload) {
  for (Design design : {Design::basic, Design::elk_dyn, Design::elk_full}) {
    SCOPED_TRACE(to_string(design));
    for (double c : {0.5, 1.0}) {
      DesignResult r = plan(two_ops(c), design);
      const double expected_s = std::max(0.3 + c, 1.1) + 0.1;
      EXPECT_NEAR(r.latency_s, expected_s, 1e-9 * expected_s);
      EXPECT_NEAR(r.ops[0].execute_end_s, 0.3 + c, 1e-9);
      EXPECT_NEAR(r.ops[1].preload_end_s, 1.1, 1e-9);
      EXPECT_NEAR(r.ops[0].collective_s, c, 0);
      ASSERT_EQ(r.ops[0].collectives.size(), 1u);
      EXPECT_EQ(r.ops[0].collectives[0].where, "after attention");
      EXPECT_TRUE(r.ops[1].collectives.empty());
    }
  }
}

// Without a collective the step is as before; with one the breakdown's parts still sum to it.
TEST(CollectiveOp, NoneLeavesTheStepAndPartsSumToIt) {
  EXPECT_NEAR(plan(two_ops(0), Design::elk_full).latency_s, 1.2, 1e-12);
  DesignResult r = plan(two_ops(1.0), Design::elk_full);
  const Breakdown& b = r.breakdown;
  EXPECT_NEAR(
      b.execution_only_s + b.overlapped_s + b.preload_stall_s + b.congestion_s + b.dispatch_s,
      r.latency_s, 1e-12);
}

TEST(CollectiveOp, AfterAnOpOutsideTheGraphIsAnInternalError) {
  PlannerInput in = two_ops(0.5);
  in.collectives[0].after_op = 2;
  auto r = plan_design(in, Design::basic, PlannerOptions{});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().kind, ErrorKind::internal);
  EXPECT_EQ(r.error().message, "the collective 'after attention' follows op 2 of a graph of 2 ops");
}

}  // namespace
}  // namespace tessera::planner
