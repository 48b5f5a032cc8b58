#include "framework/planner/handoff_choice.hpp"

#include "framework/planner/handoff_times.hpp"

namespace tessera::planner {

namespace {

// The largest preload plan of exec plan `exec` holding at most `bytes` per core; -1: none.
int preload_within(const OpPlans& plans, int exec, double bytes) {
  int best = -1;
  for (int p = 0; p < static_cast<int>(plans.preload[exec].size()); ++p)
    if (plans.preload[exec][p].preload_bytes_per_core <= bytes) best = p;
  return best;
}

// What op `op`'s current plans cost the step: its execution and distribution, and the hand-offs
// into it and into the ops reading it.
double op_cost_s(const CostContext& costs, const HandOffTimes& handoffs, const Decisions& d,
                 int op) {
  const OpPlans& plans = costs.plans(op);
  const int exec = d.exec_plan[op], preload = d.preload_plan[op];
  double s = plans.exec[exec].time_s() + handoffs.seconds(costs, d, op);
  if (preload >= 0) s += plans.preload[exec][preload].distribute_s;
  for (int reader : handoffs.consumers()[op])
    if (reader < costs.ops()) s += handoffs.seconds(costs, d, reader);  // a screening slice ends
  return s;
}

void choose(const CostContext& costs, const HandOffTimes& handoffs, Decisions& d, int op) {
  const OpPlans& plans = costs.plans(op);
  const int chosen = d.exec_plan[op], chosen_preload = d.preload_plan[op];
  const double preload_bytes =
      chosen_preload >= 0 ? plans.preload[chosen][chosen_preload].preload_bytes_per_core : 0;
  int best = chosen, best_preload = chosen_preload;
  double best_s = op_cost_s(costs, handoffs, d, op);
  // Exec plans are a Pareto front by bytes ascending: those below `chosen` need less SRAM.
  for (int e = 0; e < chosen; ++e) {
    const int p = chosen_preload >= 0 ? preload_within(plans, e, preload_bytes) : -1;
    if (chosen_preload >= 0 && p < 0) continue;
    d.exec_plan[op] = e;
    d.preload_plan[op] = p;
    if (double s = op_cost_s(costs, handoffs, d, op); s < best_s)
      best_s = s, best = e, best_preload = p;
  }
  d.exec_plan[op] = best;
  d.preload_plan[op] = best_preload;
}

}  // namespace

Decisions with_handoffs_weighed(const CostContext& costs, Decisions decisions) {
  const HandOffTimes* handoffs = costs.handoffs();
  if (handoffs == nullptr || handoffs->consumers().empty()) return decisions;
  for (int op = 0; op < costs.ops(); ++op) choose(costs, *handoffs, decisions, op);
  return decisions;
}

}  // namespace tessera::planner
