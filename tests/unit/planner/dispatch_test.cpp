// Fixed costs per op (schedule.hpp, "Fixed costs"): an op starts no earlier than its command's
// arrival ((i + 1) × command_s from the step's start, or command_s after the op before under
// `host`) and pays launch_s before its work, on models timed by hand.
#include <gtest/gtest.h>

#include "framework/planner/planner.hpp"
#include "tests/unit/planner/synthetic.hpp"

namespace tessera::planner {
namespace {

using testing::round_machine;
using testing::synthetic_op;

// Four ops that compute for 1 s each and read nothing from HBM.
PlannerInput compute_only(DispatchCosts dispatch) {
  PlannerInput in;
  in.classes.class_of = testing::identity_classes(4);
  for (int i = 0; i < 4; ++i) in.class_plans.push_back(synthetic_op(0, {{100, 1}}));
  in.machine = round_machine();
  in.dispatch = dispatch;
  return in;
}

// Four ops that compute for 0.1 s after loading 500 B (0.5 s at 1000 B/s): the preloads run back
// to back, so without dispatch the step is the stream (2 s) and the last op (0.1 s).
PlannerInput preloaded(DispatchCosts dispatch) {
  PlannerInput in;
  in.classes.class_of = testing::identity_classes(4);
  for (int i = 0; i < 4; ++i) in.class_plans.push_back(synthetic_op(500, {{100, 0.1}}, {{100, 0}}));
  in.machine = round_machine(10000);
  in.dispatch = dispatch;
  return in;
}

DesignResult plan(const PlannerInput& in, Design design = Design::elk_full) {
  PlannerOptions options;
  options.threads = 1;
  return plan_design(in, design, options).take();
}

double parts_s(const Breakdown& b) {
  return b.execution_only_s + b.overlapped_s + b.preload_stall_s + b.congestion_s + b.dispatch_s;
}

TEST(Dispatch, NoneLeavesTheTimelineAsItWas) {
  DesignResult r = plan(preloaded({}));
  EXPECT_NEAR(r.latency_s, 2.1, 1e-12);
  EXPECT_EQ(r.breakdown.dispatch_s, 0);
  EXPECT_EQ(r.dispatch, DispatchCosts{});
}

// A command slower than the stream paces every op: op i starts at (i + 1) × 3 s, so the step is
// 4 × 3 s plus the last op, whatever the preloads did.
TEST(Dispatch, CommandsSlowerThanTheStepPaceEveryOp) {
  DesignResult r = plan(preloaded({DispatchMode::host_async, 3, 0}));
  EXPECT_NEAR(r.latency_s, 4 * 3 + 0.1, 1e-12);
  for (int i = 0; i < 4; ++i) EXPECT_NEAR(r.ops[i].execute_start_s, (i + 1) * 3.0, 1e-12);
  // Op 0 waits 3 - 0.5 s beyond its preload, the others 3 - 0.1 s beyond the op before.
  EXPECT_NEAR(r.breakdown.dispatch_s, 2.5 + 3 * 2.9, 1e-12);
  EXPECT_NEAR(parts_s(r.breakdown), r.latency_s, 1e-12);
  EXPECT_EQ(r.dispatch.mode, DispatchMode::host_async);
}

// A command faster than the ops hides behind them but for the first: op 0 waits 0.5 s, then each
// command has arrived before the op before ends.
TEST(Dispatch, FastCommandsHideBehindTheOpsButTheFirst) {
  DesignResult r = plan(compute_only({DispatchMode::host_async, 0.5, 0}));
  EXPECT_NEAR(r.latency_s, 4 + 0.5, 1e-12);
  EXPECT_NEAR(r.breakdown.dispatch_s, 0.5, 1e-12);
  EXPECT_NEAR(r.ops[0].dispatch_s, 0.5, 1e-12);
  EXPECT_NEAR(r.ops[3].dispatch_s, 0, 1e-12);
  EXPECT_NEAR(parts_s(r.breakdown), r.latency_s, 1e-12);
}

// A `host` host prepares each command once the op before has ended: with nothing to overlap, the
// commands add up (4 × (0.5 + 1) s), the fixed part tt-metal's untraced figures sum.
TEST(Dispatch, HostCommandsAddUpWhenNothingOverlaps) {
  DesignResult r = plan(compute_only({DispatchMode::host, 0.5, 0}));
  EXPECT_NEAR(r.latency_s, 4 * (0.5 + 1), 1e-12);
  for (int i = 0; i < 4; ++i) EXPECT_NEAR(r.ops[i].execute_start_s, i * 1.5 + 0.5, 1e-12);
  EXPECT_NEAR(r.breakdown.dispatch_s, 4 * 0.5, 1e-12);
  EXPECT_NEAR(parts_s(r.breakdown), r.latency_s, 1e-12);
}

// Preloads wait for no command, so under a weight stream a `host` command hides where it is
// shorter than the next op's wait for data (0.3 s against the 0.35 s after each op: the stream
// and a launch), and paces every op where it is longer (0.6 s: 4 × (0.6 + 0.05 + 0.1) s).
TEST(Dispatch, HostCommandsHideInTheStreamOnlyWhereShorter) {
  EXPECT_NEAR(plan(preloaded({DispatchMode::host, 0.3, 0.05})).latency_s, 2.1 + 0.05, 1e-12);
  DesignResult r = plan(preloaded({DispatchMode::host, 0.6, 0.05}));
  EXPECT_NEAR(r.latency_s, 4 * (0.6 + 0.05 + 0.1), 1e-12);
  EXPECT_NEAR(parts_s(r.breakdown), r.latency_s, 1e-12);
}

// With nothing to overlap, the launch extends every op: the step grows by exactly 4 launches.
TEST(Dispatch, LaunchesAddUpWhenNothingOverlaps) {
  DesignResult r = plan(compute_only({DispatchMode::traced, 0, 0.25}));
  EXPECT_NEAR(r.latency_s, 4 * (1 + 0.25), 1e-12);
  EXPECT_NEAR(r.breakdown.dispatch_s, 4 * 0.25, 1e-12);
  EXPECT_NEAR(r.ops[1].distribute_end_s, 1.25 + 0.25, 1e-12);
  EXPECT_NEAR(parts_s(r.breakdown), r.latency_s, 1e-12);
}

// Under a weight stream the launches extend the ops, but the next preloads keep streaming
// beside them: a launch shorter than the stall it fills costs the step nothing but the last one.
TEST(Dispatch, ShortLaunchesHideInTheStreamButTheLast) {
  DesignResult r = plan(preloaded({DispatchMode::traced, 0, 0.05}));
  EXPECT_NEAR(r.latency_s, 2.1 + 0.05, 1e-12);
  EXPECT_NEAR(r.breakdown.dispatch_s, 4 * 0.05, 1e-12);
  EXPECT_NEAR(parts_s(r.breakdown), r.latency_s, 1e-12);
}

TEST(Dispatch, CostsFollowTheMode) {
  OpFixedCosts fixed{19e-6, 1e-6, 4e-6};
  EXPECT_EQ(dispatch_costs(DispatchMode::none, fixed), DispatchCosts{});
  EXPECT_EQ(dispatch_costs(DispatchMode::traced, fixed),
            (DispatchCosts{DispatchMode::traced, 1e-6, 4e-6}));
  EXPECT_EQ(dispatch_costs(DispatchMode::host, fixed),
            (DispatchCosts{DispatchMode::host, 19e-6, 4e-6}));
  EXPECT_EQ(dispatch_costs(DispatchMode::host_async, fixed),
            (DispatchCosts{DispatchMode::host_async, 19e-6, 4e-6}));
}

}  // namespace
}  // namespace tessera::planner
