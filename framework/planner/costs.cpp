// The per-op cost formulas shared by every design and the timeline.
#include <algorithm>
#include <limits>
#include <span>

#include "framework/planner/schedule.hpp"

namespace tessera::planner {

CostContext::CostContext(const std::vector<int>& class_of, const std::vector<OpPlans>& class_plans,
                         const Machine& machine, double preload_network_share,
                         ExecutionContention contention, DispatchCosts dispatch)
    : class_of_(class_of),
      class_plans_(&class_plans),
      machine_(machine),
      preload_network_share_(preload_network_share),
      contention_(contention),
      dispatch_(dispatch) {
  for (const OpPlans& plans : class_plans) {
    auto& preload_costs = preload_costs_.emplace_back();
    double hbm_only_s =
        machine_.hbm_bytes_per_s > 0 ? plans.hbm_read_bytes / machine_.hbm_bytes_per_s : 0;
    for (const auto& list : plans.preload) {
      auto& costs = preload_costs.emplace_back();
      for (const PreloadPlan& p : list)
        costs.push_back({p.preload_bytes_per_core,
                         p.distribute_s + std::max(0.0, noc_s(p) - hbm_only_s), noc_s(p),
                         sram_port_s(p)});
    }
    std::vector<ExecCost>& costs = exec_costs_.emplace_back();
    bool loads = plans.hbm_read_bytes > 0 && !plans.preload.empty() && !plans.preload[0].empty();
    for (int e = 0; e < static_cast<int>(plans.exec.size()); ++e) {
      const ExecPlan& plan = plans.exec[e];
      ExecCost c{plan.exec_bytes_per_core, plan.time_s(), comm_of(plan, PreloadPlan{}), -1};
      if (loads) {
        c.fastest_preload = find_fastest_preload(plans, e);
        const PreloadPlan& fastest = plans.preload[e][c.fastest_preload];
        c.base_s += fastest.distribute_s;
        c.comm = comm_of(plan, fastest);
      }
      costs.push_back(c);
    }
  }
}

bool CostContext::has_load(int op) const {
  const OpPlans& p = plans(op);
  return p.hbm_read_bytes > 0 && !p.preload.empty() && !p.preload.front().empty();
}

double CostContext::hbm_s(int op) const {
  return machine_.hbm_bytes_per_s > 0 ? plans(op).hbm_read_bytes / machine_.hbm_bytes_per_s : 0;
}

double CostContext::noc_s(const PreloadPlan& plan) const {
  if (plan.network_s) return *plan.network_s / preload_network_share_;
  double rate = machine_.preload_bytes_per_s_per_core * machine_.cores * preload_network_share_;
  return rate > 0 ? plan.hbm_to_core_bytes / rate : 0;
}

double CostContext::load_s(int op, const PreloadPlan& plan) const {
  return std::max(hbm_s(op), noc_s(plan));
}

double CostContext::sram_port_s(const PreloadPlan& plan) const {
  double rate = machine_.sram_bytes_per_s_per_core * machine_.cores;
  return rate > 0 ? plan.hbm_to_core_bytes / rate : 0;
}

int CostContext::find_fastest_preload(const OpPlans& plans, int exec) const {
  const auto& list = plans.preload[exec];
  double hbm_only_s =
      machine_.hbm_bytes_per_s > 0 ? plans.hbm_read_bytes / machine_.hbm_bytes_per_s : 0;
  int best = -1;
  double best_s = std::numeric_limits<double>::infinity();
  for (int p = 0; p < static_cast<int>(list.size()); ++p) {
    double added_s = list[p].distribute_s + std::max(0.0, noc_s(list[p]) - hbm_only_s);
    if (added_s <= best_s) {  // `<=`: ties go to the larger plan (the list ascends in space)
      best_s = added_s;
      best = p;
    }
  }
  return best;
}

Decisions program_order(const CostContext& costs) {
  Decisions d;
  d.position.assign(costs.ops(), -1);
  for (int op = 0; op < costs.ops(); ++op) {
    if (!costs.has_load(op)) continue;
    d.position[op] = static_cast<int>(d.order.size());
    d.order.push_back(op);
  }
  return d;
}

std::vector<int> needed_positions(const Decisions& decisions) {
  std::vector<int> done(decisions.position.size());
  int needed = -1;
  for (size_t op = 0; op < done.size(); ++op) {
    needed = std::max(needed, decisions.position[op]);
    done[op] = needed;
  }
  return done;
}

Comm comm_of(const ExecPlan& exec, const PreloadPlan& preload) {
  // A resident op's move from its home is a distribution too (not priced beside a preload).
  const double distribute_s = preload.distribute_s + exec.home_distribute_s;
  Comm c{{distribute_s, {}}, {exec.shift_s, {}}, exec.sync_s};
  bool priced = false;
  for (size_t k = 0; k < kPreloadBusy.size(); ++k) {
    priced |= exec.shift_s_beside[k] > 0 || preload.distribute_s_beside[k] > 0;
    c.head.beside_s[k] = std::max(distribute_s, preload.distribute_s_beside[k]);
    c.tail.beside_s[k] = std::max(exec.shift_s, exec.shift_s_beside[k]);
  }
  if (!priced) c.head.beside_s = c.tail.beside_s = {};
  return c;
}

double CommPhase::extra_s(const BusyPoint& at) const {
  if (!priced()) return at.busy * alone_s;
  return planner::beside_s(alone_s, beside_s, at) - alone_s;
}

namespace {

// The loads still in flight at `start_s`: they run in order, so those over by then come first, and
// they take nothing from what starts later (the order search's windows hold many of them).
std::span<const LoadInterval> loads_after(std::span<const LoadInterval> loads, double start_s) {
  auto first = std::partition_point(
      loads.begin(), loads.end(), [&](const LoadInterval& load) { return load.end_s <= start_s; });
  return loads.subspan(static_cast<size_t>(first - loads.begin()));
}

double overlap_s(const LoadInterval& load, double start_s, double end_s) {
  return std::max(0.0, std::min(end_s, load.end_s) - std::max(start_s, load.start_s));
}

// Seconds a phase of traffic that starts at `start_s` takes beyond its alone_s beside the
// preloads in flight (one after another, in order): at its own pace while none is, and while one
// is at 1/f of it (f = beside / alone at that preload's busy fraction), but never losing more than
// `busy` of the time (the preload holds the network that much of it, no more).
double stretched_s(const CommPhase& phase, double start_s, std::span<const LoadInterval> loads) {
  if (!(phase.alone_s > 0) || !phase.priced()) return 0;
  double now_s = start_s, left_s = phase.alone_s;
  for (const auto& load : loads_after(loads, start_s)) {
    double length_s = load.end_s - load.start_s;
    if (length_s <= 0 || load.end_s <= now_s) continue;
    double free_s = std::min(left_s, std::max(0.0, load.start_s - now_s));
    left_s -= free_s;
    now_s += free_s;
    if (left_s <= 0) break;
    double busy = std::clamp(load.noc_s / length_s, 0.0, 1.0);
    double pace = std::max(phase.alone_s / (phase.alone_s + phase.extra_s(busy)), 1 - busy);
    double beside_s = load.end_s - now_s;
    if (left_s <= beside_s * pace) {
      now_s += left_s / pace;
      left_s = 0;
      break;
    }
    left_s -= beside_s * pace;
    now_s = load.end_s;
  }
  return now_s + left_s - (start_s + phase.alone_s);
}

}  // namespace

double contention_s(double start_s, double base_s, const Comm& comm,
                    const std::vector<LoadInterval>& loads) {
  const double end_s = start_s + base_s;
  double network_s = 0, port_s = 0;
  // Those starting after the window share none of it either.
  std::span<const LoadInterval> in_window = loads_after(loads, start_s);
  in_window = in_window.first(static_cast<size_t>(
      std::partition_point(in_window.begin(), in_window.end(),
                           [&](const LoadInterval& load) { return load.start_s < end_s; }) -
      in_window.begin()));
  for (const auto& load : in_window) {
    double length_s = load.end_s - load.start_s;
    if (length_s <= 0) continue;
    double share = overlap_s(load, start_s, end_s) / length_s;
    network_s += load.noc_s * share;
    port_s += load.sram_port_s * share;
  }
  // Each phase slowed on the links it shares with the preloads in flight beside it; the tail
  // starts as late as the head's slowing pushes it.
  double head_s = stretched_s(comm.head, start_s, loads);
  double shared_s =
      head_s + stretched_s(comm.tail, end_s - comm.tail_end_s - comm.tail.alone_s + head_s, loads);
  // The execution's own traffic and the preloads' share of the window must both cross the
  // network inside the window; what does not fit delays the execution.
  return std::max(std::max(0.0, comm.alone_s() + network_s - base_s), shared_s) + port_s;
}

double CostContext::execution_contention_s(double start_s, double base_s, const Comm& comm,
                                           const std::vector<LoadInterval>& loads) const {
  if (contention_ == ExecutionContention::ignored) return 0;
  return contention_s(start_s, base_s, comm, loads);
}

double CostContext::execution_extra_s(const Comm& comm, const BusyPoint& at) const {
  return contention_ == ExecutionContention::ignored ? 0 : comm.extra_s(at);
}

}  // namespace tessera::planner
