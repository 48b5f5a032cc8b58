// Execution plans chosen with the hand-off in view (framework/planner/handoff_choice.hpp), on a
// chain of two ops small enough to price by hand: y = relu(x) then z = relu(y), [8, 4] fp16.
#include <gtest/gtest.h>

#include "framework/planner/handoff.hpp"
#include "framework/planner/planner.hpp"
#include "tests/unit/planner/synthetic.hpp"

namespace tessera::planner {
namespace {

using ir::DType;
using ir::TensorRole;

ir::Graph chain() {
  ir::GraphBuilder b("chain");
  for (const char* t : {"x", "y", "z"})
    b.add_tensor(
         {t, {8, 4}, DType::fp16, *t == 'x' ? TensorRole::input : TensorRole::activation, ""})
        .take();
  for (auto [name, in, out] : {std::tuple{"a", "x[i,j]", "y[i,j]"}, {"b", "y[i,j]", "z[i,j]"}})
    b.add_op({name,
              ir::OpKind::unary,
              {{{"i", 8}, {"j", 4}},
               {ir::parse_operand(in).take()},
               ir::parse_operand(out).take(),
               "relu"},
              "test"})
        .take();
  return b.finish();
}

// An exec plan of `compute_s` in `bytes` per core: y's [8, 4] cut `factors` ways over the cores.
ExecPlan plan(std::string label, std::vector<int64_t> factors, std::vector<int> placement,
              double bytes, double compute_s) {
  ExecPlan e;
  e.label = std::move(label);
  e.cores_used = static_cast<uint32_t>(factors[0] * factors[1]);
  e.tile = {8 / factors[0], 4 / factors[1]};
  e.factors = std::move(factors);
  e.placement = std::move(placement);
  e.exec_bytes_per_core = bytes;
  e.compute_s = compute_s;
  return e;
}

OpPlans op_of(std::vector<ExecPlan> exec) {
  OpPlans p;
  p.flops = 32;
  p.exec = std::move(exec);
  p.preload.resize(p.exec.size());
  return p;
}

// a (1 s) cuts y by rows over 4 cores; b may cut by rows (10 s, half the SRAM) or by columns (9 s).
PlannerInput input_of(const ir::Graph& g, uint32_t chips, double chip_link_bytes_per_s) {
  PlannerInput in;
  in.graph = &g;
  in.classes.class_of = {0, 1};
  in.class_plans = {
      op_of({plan("a rows", {4, 1}, {0, 1}, 100, 1)}),
      op_of({plan("b rows", {2, 1}, {0, 1}, 100, 10), plan("b columns", {1, 2}, {1, 0}, 200, 9)})};
  in.machine = testing::round_machine();
  in.machine.cores = 4;
  in.machine.chips = chips;
  in.machine.chip_link_bytes_per_s = chip_link_bytes_per_s;
  return in;
}

DesignResult planned(const PlannerInput& in, Design design) {
  PlannerOptions options;
  options.threads = 1;
  return plan_design(in, design, options).take();
}

// On two chips a leaves rows 0-3 on chip 0 and rows 4-7 on chip 1. b's columns then lack 16 B on
// each chip, 32 B in all, at 2 chips x 8 B/s: 2 s, more than their 1 s saving. With the hand-off
// in view b takes the rows: 1 + 10 = 11 s, where the columns would plan 1 + 2 + 9 = 12 s.
TEST(HandOffChoice, ThePlanThatHandsOffLessWinsWhenTheHandOffOutweighsItsSaving) {
  ir::Graph g = chain();
  for (Design design : {Design::basic, Design::elk_dyn, Design::elk_full}) {
    DesignResult r = planned(input_of(g, 2, 8), design);
    ASSERT_EQ(r.ops.size(), 2u);
    EXPECT_EQ(r.ops[1].exec.label, "b rows") << to_string(design);
    EXPECT_EQ(r.ops[1].handoff, nullptr);
    EXPECT_NEAR(r.latency_s, 11.0, 1e-9) << to_string(design);
  }
  // A link four times faster hands the columns' 32 B off in 0.5 s: they win, 1 + 0.5 + 9 s.
  DesignResult fast = planned(input_of(g, 2, 32), Design::elk_dyn);
  EXPECT_EQ(fast.ops[1].exec.label, "b columns");
  ASSERT_NE(fast.ops[1].handoff, nullptr);
  EXPECT_DOUBLE_EQ(fast.ops[1].handoff->bytes(), 32);
  EXPECT_NEAR(fast.latency_s, 10.5, 1e-9);
}

// One chip, or chips without links (the per-core-rate accounting), hands nothing off: b keeps its
// fastest plan, 1 + 9 s.
TEST(HandOffChoice, NoHandOffKeepsTheFastestPlan) {
  ir::Graph g = chain();
  for (auto [chips, link] : {std::pair{1u, 8.0}, {2u, 0.0}}) {
    DesignResult r = planned(input_of(g, chips, link), Design::elk_dyn);
    EXPECT_EQ(r.ops[1].exec.label, "b columns");
    EXPECT_NEAR(r.latency_s, 10.0, 1e-9);
  }
}

}  // namespace
}  // namespace tessera::planner
