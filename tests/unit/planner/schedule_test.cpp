// The inductive scheduler and the timeline on models small enough to schedule by hand.
#include <gtest/gtest.h>

#include "framework/planner/inductive.hpp"
#include "framework/planner/planner.hpp"
#include "tests/unit/planner/synthetic.hpp"

namespace tessera::planner {
namespace {

using testing::round_machine;
using testing::synthetic_op;

PlannerInput input_of(std::vector<OpPlans> ops, double sram_bytes = 1000) {
  PlannerInput in;
  in.classes.class_of = testing::identity_classes(ops.size());
  in.class_plans = std::move(ops);
  in.machine = round_machine(sram_bytes);
  return in;
}

DesignResult plan(const PlannerInput& in, Design design) {
  PlannerOptions options;
  options.threads = 1;
  return plan_design(in, design, options).take();
}

// Op 0 computes for 5 s and reads nothing from HBM; ops 1 and 2 compute for 0.5 s each after
// loading 3000 B (3 s) and 2000 B (2 s). SRAM (1000 B) holds op 0 (100 B) with both preloads
// (300 B each). Worked backwards from the end (t = 0):
//   op 2: k = 0, runs [-0.5, 0]; its preload must end by -0.5, so it runs [-2.5, -0.5].
//   op 1: k = 0 would end it when op 2's preload starts (-2.5): start -3.
//         k = 1 (op 2's preload beside it, 400 B) lets it end at -0.5: start -1.  -> k = 1
//   op 0: k = 0: ends when op 1's preload starts (-2.5 - 3 = -5.5): start -10.5.
//         k = 1: ends when op 2's preload starts (-2.5): start -7.5.
//         k = 2 (700 B): ends when op 1 starts (-1): start -6.                    -> k = 2
// So 6 s: preloads [0, 3] and [3, 5] under op 0, then ops 1 and 2. Basic preloads only the next
// op: op 2's preload waits for op 0 ([5, 7]) and op 2 ends at 7.5.
TEST(Inductive, ThreeOpModelMatchesTheHandSchedule) {
  PlannerInput in =
      input_of({synthetic_op(0, {{100, 5}}), synthetic_op(3000, {{100, 0.5}}, {{300, 0}}),
                synthetic_op(2000, {{100, 0.5}}, {{300, 0}})});
  DesignResult dyn = plan(in, Design::elk_dyn);
  ASSERT_EQ(dyn.ops.size(), 3u);
  EXPECT_NEAR(dyn.latency_s, 6.0, 1e-12);
  EXPECT_EQ(dyn.ops[0].preloads_during, 2);
  EXPECT_EQ(dyn.ops[1].preloads_during, 1);
  EXPECT_EQ(dyn.ops[2].preloads_during, 0);
  EXPECT_NEAR(dyn.ops[0].sram_bytes_per_core, 700, 1e-9);
  EXPECT_NEAR(dyn.ops[1].preload_start_s, 0, 1e-12);
  EXPECT_NEAR(dyn.ops[1].preload_end_s, 3, 1e-12);
  EXPECT_NEAR(dyn.ops[2].preload_start_s, 3, 1e-12);
  EXPECT_NEAR(dyn.ops[2].preload_end_s, 5, 1e-12);
  EXPECT_NEAR(dyn.ops[2].execute_start_s, 5.5, 1e-12);
  EXPECT_EQ(dyn.preload_order, (std::vector<int>{1, 2}));
  // 5 s of op 0 overlap preloads; ops 1 and 2 run with none in flight.
  EXPECT_NEAR(dyn.breakdown.overlapped_s, 5, 1e-12);
  EXPECT_NEAR(dyn.breakdown.execution_only_s, 1, 1e-12);
  EXPECT_NEAR(dyn.breakdown.preload_stall_s, 0, 1e-12);
  EXPECT_NEAR(dyn.breakdown.congestion_s, 0, 1e-12);
  EXPECT_NEAR(dyn.hbm_utilisation, 5000.0 / (6 * 1000), 1e-12);
  EXPECT_NEAR(dyn.achieved_flops_per_s, 300.0 / 6, 1e-12);

  DesignResult basic = plan(in, Design::basic);
  EXPECT_NEAR(basic.latency_s, 7.5, 1e-12);
  EXPECT_NEAR(basic.ops[2].preload_start_s, 5, 1e-12);
  EXPECT_NEAR(basic.breakdown.preload_stall_s, 1.5, 1e-12);  // [5.5, 7] waits for op 2's data
  EXPECT_NEAR(plan(in, Design::ideal).latency_s, 6.0, 1e-12);
  EXPECT_NEAR(plan(in, Design::static_split).latency_s, 6.0, 1e-12);
}

// With 650 B of SRAM only one 300 B preload fits beside op 0: op 0 takes k = 1 and op 2's
// preload starts when op 0 ends, as in Basic.
TEST(Inductive, SramLimitsThePreloadCount) {
  PlannerInput in =
      input_of({synthetic_op(0, {{100, 5}}), synthetic_op(3000, {{100, 0.5}}, {{300, 0}}),
                synthetic_op(2000, {{100, 0.5}}, {{300, 0}})},
               650);
  DesignResult dyn = plan(in, Design::elk_dyn);
  EXPECT_EQ(dyn.ops[0].preloads_during, 1);
  EXPECT_NEAR(dyn.latency_s, 7.5, 1e-12);
  for (const auto& op : dyn.ops) EXPECT_LE(op.sram_bytes_per_core, 650);
}

// The execution plan trades against the preload count: op 0 has a 600 B plan taking 4 s and a
// 100 B plan taking 5 s. With the 600 B plan only op 1's preload (300 B) fits beside it:
// op 2's preload waits for op 0's end (4 s) and ends at 6, op 2 at 6.5. With the 100 B plan both
// preloads fit and op 0 ends at 5, op 1 at 5.5, op 2 at 6. The induction picks k = 2 with the
// slower plan (start -6 beats -6.5).
TEST(Inductive, SlowerExecutionPlanWinsWhenItLetsMorePreload) {
  PlannerInput in =
      input_of({synthetic_op(0, {{100, 5}, {600, 4}}), synthetic_op(3000, {{100, 0.5}}, {{300, 0}}),
                synthetic_op(2000, {{100, 0.5}}, {{300, 0}})});
  DesignResult dyn = plan(in, Design::elk_dyn);
  EXPECT_NEAR(dyn.latency_s, 6.0, 1e-12);
  EXPECT_EQ(dyn.ops[0].preloads_during, 2);
  EXPECT_NEAR(dyn.ops[0].exec.exec_bytes_per_core, 100, 1e-12);
  EXPECT_NEAR(plan(in, Design::basic).latency_s, 6.5, 1e-12);
}

TEST(Timeline, OpWithoutLoadHasNoPreloadInterval) {
  PlannerInput in = input_of({synthetic_op(0, {{100, 1}}), synthetic_op(0, {{100, 2}})});
  DesignResult r = plan(in, Design::elk_dyn);
  EXPECT_NEAR(r.latency_s, 3, 1e-12);
  EXPECT_EQ(r.ops[1].preload_position, -1);
  EXPECT_EQ(r.ops[1].preload_start_s, r.ops[1].preload_end_s);
  EXPECT_TRUE(r.preload_order.empty());
  EXPECT_NEAR(r.breakdown.execution_only_s, 3, 1e-12);
}

// Contention: op 0 computes 1 s and shifts 1 s; op 1's 2000 B preload is network-bound (2 s on
// a 1000 B/s preload network, as long as its HBM time). Overlapping them (k = 1) puts 1 s of
// shifts and 2 s of preload traffic into op 0's 2 s: 1 s does not fit and delays op 0 to 3 s;
// op 1 runs [3, 4]. Not overlapping (k = 0) gives 2 + 2 + 1 = 5 s, so k = 1 wins.
TEST(Timeline, NetworkContentionDelaysTheExecution) {
  std::vector<OpPlans> ops{synthetic_op(0, {{100, 1}}), synthetic_op(2000, {{100, 1}}, {{100, 0}})};
  ops[0].exec[0].shift_s = 1;
  PlannerInput in = input_of(std::move(ops));
  in.machine.preload_bytes_per_s_per_core = 1000;
  DesignResult r = plan(in, Design::elk_dyn);
  EXPECT_EQ(r.ops[0].preloads_during, 1);
  EXPECT_NEAR(r.ops[0].execute_end_s, 3, 1e-12);
  EXPECT_NEAR(r.latency_s, 4, 1e-12);
  EXPECT_NEAR(r.breakdown.congestion_s, 1, 1e-12);
  // op 0's 3 s span is 2/3 covered by the preload: its 2 s of work splits 4/3 overlapped.
  EXPECT_NEAR(r.breakdown.overlapped_s, 4.0 / 3, 1e-12);
  EXPECT_NEAR(r.breakdown.execution_only_s, 2.0 / 3 + 1, 1e-12);
  EXPECT_NEAR(plan(in, Design::ideal).latency_s, 3, 1e-12);  // own network: no contention
}

// The same two ops with contention ignored (the Elk artifact's delay_comp False): op 0 keeps its
// 2 s beside the preload, op 1 runs [2, 3]; several conventions: the best of them.
TEST(Timeline, IgnoredContentionLeavesTheExecutionAtItsOwnPace) {
  std::vector<OpPlans> ops{synthetic_op(0, {{100, 1}}), synthetic_op(2000, {{100, 1}}, {{100, 0}})};
  ops[0].exec[0].shift_s = 1;
  PlannerInput in = input_of(std::move(ops));
  in.machine.preload_bytes_per_s_per_core = 1000;
  PlannerOptions options;
  options.threads = 1;
  options.execution_contentions = {ExecutionContention::ignored};
  for (Design design : {Design::basic, Design::static_split, Design::elk_dyn, Design::elk_full}) {
    DesignResult r = plan_design(in, design, options).take();
    EXPECT_NEAR(r.latency_s, 3, 1e-12) << to_string(design);
    EXPECT_NEAR(r.breakdown.congestion_s, 0, 1e-12) << to_string(design);
  }
  options.execution_contentions = {ExecutionContention::charged, ExecutionContention::ignored};
  EXPECT_NEAR(plan_design(in, Design::elk_dyn, options).take().latency_s, 3, 1e-12);
  options.execution_contentions = {ExecutionContention::charged};
  EXPECT_NEAR(plan_design(in, Design::elk_dyn, options).take().latency_s, 4, 1e-12);
}

TEST(Pricing, BesideAPreloadIsLinearBetweenThePointsAndNeverFasterThanAlone) {
  const BesideSeconds at{2, 3, 4, 5};  // busy 0.25, 0.5, 0.75, 1
  EXPECT_NEAR(beside_s(1, at, 0), 1, 1e-15);
  EXPECT_NEAR(beside_s(1, at, 0.125), 1.5, 1e-15);
  EXPECT_NEAR(beside_s(1, at, 0.6), 3.4, 1e-15);
  EXPECT_NEAR(beside_s(1, at, 2), 5, 1e-15);  // clamped to 1
  EXPECT_NEAR(beside_s(3, at, 0.25), 3, 1e-15);
  EXPECT_NEAR(beside_s(3, at, 0.375), 3, 1e-15);  // between 3 (alone) and max(3, 3)
}

// An execution of 4 s whose 1 s of own traffic is its tail (its shifts, ending with the op: no
// sync), over [3, 4]. Beside a preload at busy 1 the tail runs at a third of its pace (3 s alone
// at that point), at busy 0.5 at half.
TEST(Contention, SharedLinksSlowTheTrafficWhileThePreloadIsInFlightBesideIt) {
  const Comm priced{{}, {1, {1.5, 2, 2.5, 3}}, 0};
  // In flight [3, 4]: a third of the tail done when the preload ends, the rest at its own pace.
  EXPECT_NEAR(contention_s(0, 4, priced, {{3, 4, 2, 0}}), 2.0 / 3, 1e-12);
  // In flight [2, 6], past the slowed tail: all of it at a third of its pace.
  EXPECT_NEAR(contention_s(0, 4, priced, {{2, 6, 4, 0}}), 2, 1e-12);
  // In flight all the window at busy 0.5: the tail at half its pace until the preload ends at 4.
  EXPECT_NEAR(contention_s(0, 4, priced, {{0, 4, 2, 0}}), 0.5, 1e-12);
  // In flight [0, 2]: beside the compute only, nothing to share.
  EXPECT_NEAR(contention_s(0, 4, priced, {{0, 2, 2, 0}}), 0, 1e-12);
  // Never losing more than the share of time the preload holds the network: at busy 0.25 the
  // tail would run at a third of its pace, but keeps three quarters of it: 1/3 s more.
  const Comm slow{{}, {1, {3, 5, 8, 11}}, 0};
  EXPECT_NEAR(contention_s(0, 4, slow, {{3, 7, 1, 0}}), 1.0 / 3, 1e-12);
  // Preloads one after another keep slowing it: a sixth done by 3.5, a half more by 5.
  EXPECT_NEAR(contention_s(0, 4, priced, {{3, 3.5, 0.5, 0}, {3.5, 5, 1.5, 0}}), 4.0 / 3, 1e-12);
  // Not priced on the routes: only what does not fit the window (1 + 2 < 4: nothing).
  const Comm unpriced{{}, {1, {}}, 0};
  EXPECT_NEAR(contention_s(0, 4, unpriced, {{0, 2, 2, 0}}), 0, 1e-12);
  EXPECT_NEAR(contention_s(0, 2, unpriced, {{0, 2, 2, 0}}), 1, 1e-12);
  // The SRAM port's time is charged on top, wherever the preload lands in the window.
  EXPECT_NEAR(contention_s(0, 4, priced, {{0, 4, 2, 0.25}}), 0.75, 1e-12);
  EXPECT_NEAR(contention_s(0, 4, priced, {{0, 2, 2, 0.25}}), 0.25, 1e-12);
}

// The head (distribution) runs as the op starts, over [0, 1]; the tail ends the op's 0.5 s sync
// before its end, over [2.5, 3.5]. At busy 1 the head runs at half its pace, the tail at a fifth.
TEST(Contention, EachPhaseIsSlowedOnlyWhereThePreloadOverlapsIt) {
  const Comm c{{1, {1.25, 1.5, 1.75, 2}}, {1, {2, 3, 4, 5}}, 0.5};
  EXPECT_NEAR(contention_s(0, 4, c, {{0, 1, 1, 0}}), 0.5, 1e-12);    // the head, half done
  EXPECT_NEAR(contention_s(0, 4, c, {{1, 2.5, 1.5, 0}}), 0, 1e-12);  // beside the compute
  // Past the tail's end: 4 s at a fifth of its pace cover 0.8 s of it, 0.2 s are left.
  EXPECT_NEAR(contention_s(0, 4, c, {{2.5, 6.5, 4, 0}}), 3.2, 1e-12);
  // At busy 0.25 over [3, 3.5]: half its pace, but three quarters kept: 0.125 s more.
  EXPECT_NEAR(contention_s(0, 4, c, {{3, 3.5, 0.125, 0}}), 0.125, 1e-12);
}

// A slowed head pushes the tail later, into a preload it would otherwise have missed: the head
// over [0, 1] runs at half its pace beside the first (0.5 s more), the tail then starts at 3.5,
// meets the second at 4 with half of it left and runs at a third of its pace until 5.
TEST(Contention, ASlowedHeadPushesTheTailIntoALaterPreload) {
  const Comm c{{1, {2, 2, 2, 2}}, {1, {3, 3, 3, 3}}, 0};  // window [0, 4]: head [0, 1], tail [3, 4]
  EXPECT_NEAR(contention_s(0, 4, c, {{0, 1, 1, 0}, {4, 5, 1, 0}}), 0.5 + 2.0 / 3, 1e-12);
  EXPECT_NEAR(contention_s(0, 4, c, {{4, 5, 1, 0}}), 0, 1e-12);  // without the head's delay
}

TEST(Contention, CommSplitsTheDistributionFromTheShiftsAtEveryPoint) {
  ExecPlan exec;
  exec.shift_s = 1;
  exec.shift_s_beside = {1, 2, 3, 4};
  exec.sync_s = 0.25;
  PreloadPlan preload;
  preload.distribute_s = 0.5;
  Comm c = comm_of(exec, preload);  // the distribution not priced beside: its time alone
  EXPECT_EQ(c.alone_s(), 1.5);
  EXPECT_EQ(c.head.beside_s, (BesideSeconds{0.5, 0.5, 0.5, 0.5}));
  EXPECT_EQ(c.tail.beside_s, (BesideSeconds{1, 2, 3, 4}));
  EXPECT_EQ(c.tail_end_s, 0.25);
  EXPECT_NEAR(c.extra_s(1), 3, 1e-15);
  Comm unpriced_plan = comm_of(ExecPlan{}, preload);  // nothing priced
  EXPECT_FALSE(unpriced_plan.head.priced() || unpriced_plan.tail.priced());
  const Comm unpriced{{0.5, {}}, {1.5, {}}, 0};  // the network as one resource
  EXPECT_NEAR(unpriced.extra_s(0.5), 1, 1e-15);
}

// SRAM-port contention: the 2000 B landing on the core at 4000 B/s steal 0.5 s from op 0.
TEST(Timeline, PreloadBytesStealTheSramPort) {
  PlannerInput in =
      input_of({synthetic_op(0, {{100, 2}}), synthetic_op(2000, {{100, 1}}, {{100, 0}})});
  in.machine.sram_bytes_per_s_per_core = 4000;
  DesignResult r = plan(in, Design::elk_dyn);
  EXPECT_NEAR(r.ops[0].execute_end_s, 2.5, 1e-12);
  EXPECT_NEAR(r.latency_s, 3.5, 1e-12);
  EXPECT_NEAR(r.breakdown.congestion_s, 0.5, 1e-12);
}

TEST(Planner, OpThatFitsNowhereIsAnInputErrorForEveryDesign) {
  PlannerInput in = input_of({synthetic_op(0, {{100, 1}}), synthetic_op(10, {{2000, 1}})});
  for (Design d :
       {Design::basic, Design::static_split, Design::elk_dyn, Design::elk_full, Design::ideal}) {
    auto r = plan_design(in, d, PlannerOptions{});
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().kind, ErrorKind::input);
    EXPECT_EQ(r.error().message,
              "op '#1' needs at least 2000 bytes of SRAM per core under any plan; the chip has "
              "1000");
  }
}

// A permuted order can force a later op's preload to sit beside an earlier op; when even the
// smallest plans do not fit, the induction names the op.
TEST(Planner, ForcedResidentThatDoesNotFitNamesTheOp) {
  std::vector<OpPlans> plans{synthetic_op(10, {{600, 1}}, {{100, 0}}),
                             synthetic_op(10, {{100, 1}}, {{500, 0}})};
  CostContext costs({0, 1}, plans, round_machine());  // borrows `plans`
  Decisions swapped = program_order(costs);
  swapped.order = {1, 0};
  swapped.position = {1, 0};
  InductiveResult r = schedule_inductively(costs, swapped, 4);
  EXPECT_FALSE(r.feasible);
  EXPECT_EQ(r.failed_op, 0);
  EXPECT_EQ(r.reason,
            "with 1 resident preloads it needs 1100 bytes per core at least, 100 more than the "
            "1000 available");
}

}  // namespace
}  // namespace tessera::planner
