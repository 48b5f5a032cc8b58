// The inductive scheduler against an exhaustive search over every combination of preload counts
// on small random models. With one plan per op, a larger count only ends an op later (and leaves
// earlier ops more freedom), so the induction's choice is optimal and the two must agree exactly.
#include <gtest/gtest.h>

#include <functional>
#include <limits>
#include <random>

#include "framework/planner/planner.hpp"
#include "framework/planner/schedule.hpp"
#include "tests/unit/planner/synthetic.hpp"

namespace tessera::planner {
namespace {

std::vector<OpPlans> random_model(std::mt19937& rng, int ops) {
  std::uniform_real_distribution<double> time_s(0.1, 3), bytes(50, 400), hbm(0, 3000);
  std::bernoulli_distribution loads(0.7);
  std::vector<OpPlans> model;
  for (int i = 0; i < ops; ++i) {
    double hbm_bytes = loads(rng) ? hbm(rng) + 1 : 0;
    model.push_back(
        testing::synthetic_op(hbm_bytes, {{bytes(rng), time_s(rng)}}, {{bytes(rng), 0}}));
  }
  return model;
}

// Every non-decreasing window vector (k_i = window_i - done_i <= k_max) whose resident preloads
// fit beside each op, timed; the shortest latency.
double exhaustive_latency(const CostContext& costs, int k_max) {
  Decisions d = program_order(costs);
  int n = costs.ops(), m = static_cast<int>(d.order.size());
  d.exec_plan.assign(n, 0);
  d.preload_plan.assign(n, -1);
  for (int op : d.order) d.preload_plan[op] = 0;
  d.window.assign(n, -1);
  std::vector<int> done = needed_positions(d);
  double best = std::numeric_limits<double>::infinity();
  std::function<void(int, int)> choose = [&](int op, int floor) {
    if (op == n) {
      double latency_s = timeline_latency_s(costs, d, TimelineMode::shared);
      // The order search's latency-only pass is the timeline's arithmetic, to the bit.
      EXPECT_EQ(latency_s, evaluate_timeline(nullptr, costs, d, TimelineMode::shared).latency_s);
      best = std::min(best, latency_s);
      return;
    }
    int widest = op == n - 1 ? done[op] : std::min(m - 1, done[op] + k_max);
    for (int w = std::max(floor, done[op]); w <= widest; ++w) {
      double bytes = costs.plans(op).exec[0].exec_bytes_per_core;
      for (int p = done[op] + 1; p <= w; ++p)
        bytes += costs.plans(d.order[p]).preload[0][0].preload_bytes_per_core;
      if (bytes > costs.sram_bytes()) break;
      d.window[op] = w;
      choose(op + 1, w);
    }
  };
  choose(0, -1);
  return best;
}

TEST(Inductive, EqualsExhaustiveSearchOnRandomTinyModels) {
  std::mt19937 rng(20240607);
  int compared = 0;
  for (int trial = 0; trial < 300; ++trial) {
    int ops = 3 + trial % 5;
    PlannerInput in;
    in.class_plans = random_model(rng, ops);
    in.classes.class_of = testing::identity_classes(ops);
    in.machine = testing::round_machine(700);
    PlannerOptions options;
    options.max_preload_ops = 3;
    options.threads = 1;
    double inductive = plan_design(in, Design::elk_dyn, options).take().latency_s;
    CostContext costs(in.classes.class_of, in.class_plans, in.machine);
    double exhaustive = exhaustive_latency(costs, 3);
    ASSERT_NEAR(inductive, exhaustive, 1e-9 * exhaustive) << "trial " << trial;
    ++compared;
  }
  EXPECT_EQ(compared, 300);
}

}  // namespace
}  // namespace tessera::planner
