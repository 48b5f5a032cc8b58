// The baselines of baselines.hpp.
#include "framework/planner/baselines.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>
#include <tuple>

namespace tessera::planner {

namespace {

// The largest plan in `list` (bytes ascending) within `bytes`, or -1.
template <class T, class Bytes>
int largest_within(const std::vector<T>& list, double bytes, Bytes bytes_of) {
  int best = -1;
  for (int p = 0; p < static_cast<int>(list.size()); ++p)
    if (bytes_of(list[p]) <= bytes) best = p;
  return best;
}

double preload_bytes(const CostContext& costs, const Decisions& d, int op) {
  return costs.plans(op).preload[d.exec_plan[op]][d.preload_plan[op]].preload_bytes_per_core;
}

}  // namespace

Decisions basic_decisions(const CostContext& costs) {
  Decisions d = program_order(costs);
  int n = costs.ops();
  d.exec_plan.assign(n, 0);
  d.preload_plan.assign(n, -1);
  d.window.assign(n, -1);
  for (int op = 0; op < n; ++op)
    d.exec_plan[op] = static_cast<int>(costs.plans(op).exec.size()) - 1;
  std::vector<int> done = needed_positions(d);
  int first = 0;  // first op of the run of ops that share done(op)
  for (int op = 0; op < n; ++op) {
    if (op + 1 < n && done[op + 1] == done[op]) continue;
    // ops first..op run while preload done[op] + 1 is the next one to issue
    int next = done[op] + 1;
    double biggest = 0;
    for (int h = first; h <= op; ++h)
      biggest = std::max(biggest, costs.plans(h).exec[d.exec_plan[h]].exec_bytes_per_core);
    int window = done[op];
    if (next < static_cast<int>(d.order.size())) {
      int j = d.order[next];
      const auto& list = costs.plans(j).preload[d.exec_plan[j]];
      int p = largest_within(list, costs.sram_bytes() - biggest,
                             [](const PreloadPlan& x) { return x.preload_bytes_per_core; });
      d.preload_plan[j] = p >= 0 ? p : costs.fastest_preload(j, d.exec_plan[j]);
      if (p >= 0) window = next;
    }
    for (int h = first; h <= op; ++h) d.window[h] = window;
    first = op + 1;
  }
  if (!d.order.empty() && d.preload_plan[d.order[0]] < 0) {
    int j = d.order[0];
    d.preload_plan[j] = costs.fastest_preload(j, d.exec_plan[j]);
  }
  return d;
}

std::vector<StaticSplit> static_splits(const CostContext& costs, StaticBaseline coding) {
  double floor = 0;
  std::set<double> sizes;
  for (int op = 0; op < costs.ops(); ++op) {
    const auto& exec = costs.plans(op).exec;
    floor = std::max(floor, exec.front().exec_bytes_per_core);
    for (const auto& plan : exec) sizes.insert(plan.exec_bytes_per_core);
  }
  std::vector<double> regions;
  if (coding == StaticBaseline::elk_artifact) {
    constexpr double kKiB = 1024, kStepBytes = 10 * kKiB;  // launch.py's exec_kb_list
    for (double r = std::ceil(floor / kKiB) * kKiB; r <= costs.sram_bytes(); r += kStepBytes)
      regions.push_back(r);
  } else {
    for (double s : sizes)
      if (s >= floor && s <= costs.sram_bytes()) regions.push_back(s);
  }
  std::vector<StaticSplit> splits;
  for (double r : regions)
    for (bool largest : {false, true}) splits.push_back({r, largest});
  return splits;
}

namespace {

// The artifact's (execution, preload) plans of an op that loads (DNNProgram.baseline_cold_hot):
// the preload plan of least bytes, or of most bytes among those beside an execution plan within
// `region`; then the largest execution plan within it beside a preload plan of those bytes. The
// sweep starts at the largest smallest plan, so one exists; if none did (the artifact asserts),
// the smallest plans.
std::pair<int, int> artifact_plans(const OpPlans& plans, double region, bool largest_cold) {
  double cold = largest_cold ? -1 : std::numeric_limits<double>::infinity();
  for (size_t e = 0; e < plans.exec.size(); ++e) {
    if (largest_cold && plans.exec[e].exec_bytes_per_core > region) continue;
    for (const PreloadPlan& p : plans.preload[e])
      cold = largest_cold ? std::max(cold, p.preload_bytes_per_core)
                          : std::min(cold, p.preload_bytes_per_core);
  }
  std::pair<int, int> chosen{0, 0};
  for (int e = 0; e < static_cast<int>(plans.exec.size()); ++e) {
    if (plans.exec[e].exec_bytes_per_core > region) continue;
    const auto& list = plans.preload[e];
    for (int p = 0; p < static_cast<int>(list.size()); ++p)
      if (list[p].preload_bytes_per_core == cold) chosen = {e, p};
  }
  return chosen;
}

// Each op's plans for one split (static_decisions).
void choose_static_plans(const CostContext& costs, const StaticSplit& split, StaticBaseline coding,
                         Decisions& d) {
  double preload_region = costs.sram_bytes() - split.exec_region_bytes;
  auto exec_bytes = [](const ExecPlan& x) { return x.exec_bytes_per_core; };
  auto load_bytes = [](const PreloadPlan& x) { return x.preload_bytes_per_core; };
  for (int op = 0; op < costs.ops(); ++op) {
    const OpPlans& plans = costs.plans(op);
    d.exec_plan[op] = std::max(0, largest_within(plans.exec, split.exec_region_bytes, exec_bytes));
    if (!costs.has_load(op)) continue;
    if (coding == StaticBaseline::elk_artifact) {
      std::tie(d.exec_plan[op], d.preload_plan[op]) =
          artifact_plans(plans, split.exec_region_bytes, split.largest_preloads);
      continue;
    }
    const auto& list = plans.preload[d.exec_plan[op]];
    d.preload_plan[op] =
        split.largest_preloads ? std::max(0, largest_within(list, preload_region, load_bytes)) : 0;
  }
}

}  // namespace

Decisions static_decisions(const CostContext& costs, const StaticSplit& split,
                           StaticBaseline coding, int max_preload_ops) {
  Decisions d = program_order(costs);
  int n = costs.ops();
  double preload_region = costs.sram_bytes() - split.exec_region_bytes;
  d.exec_plan.assign(n, 0);
  d.preload_plan.assign(n, -1);
  d.window.assign(n, -1);
  choose_static_plans(costs, split, coding, d);
  // The artifact overlaps at most max_load ops ahead of the executing one; Tessera's coding, as
  // many as fit.
  auto within_reach = [&](int op, int position) {
    return coding != StaticBaseline::elk_artifact || d.order[position] - op <= max_preload_ops;
  };
  std::vector<int> done = needed_positions(d);
  int window = -1;
  double resident = 0;  // preload bytes of positions (done[op], window]
  int consumed = -1;
  for (int op = 0; op < n; ++op) {
    for (; consumed < done[op]; ++consumed)
      if (consumed + 1 <= window) resident -= preload_bytes(costs, d, d.order[consumed + 1]);
    window = std::max(window, done[op]);
    while (window + 1 < static_cast<int>(d.order.size()) && within_reach(op, window + 1) &&
           resident + preload_bytes(costs, d, d.order[window + 1]) <= preload_region) {
      ++window;
      resident += preload_bytes(costs, d, d.order[window]);
    }
    d.window[op] = window;
  }
  return d;
}

Decisions ideal_decisions(const CostContext& costs) {
  Decisions d = program_order(costs);
  int n = costs.ops();
  d.exec_plan.assign(n, 0);
  d.preload_plan.assign(n, -1);
  d.window = needed_positions(d);
  for (int op = 0; op < n; ++op) {
    const OpPlans& plans = costs.plans(op);
    double best_s = std::numeric_limits<double>::infinity();
    for (int e = 0; e < static_cast<int>(plans.exec.size()); ++e) {
      if (!costs.has_load(op)) {
        if (plans.exec[e].time_s() < best_s) best_s = plans.exec[e].time_s(), d.exec_plan[op] = e;
        continue;
      }
      for (int p = 0; p < static_cast<int>(plans.preload[e].size()); ++p) {
        double time_s = plans.exec[e].time_s() + plans.preload[e][p].distribute_s;
        if (time_s < best_s) best_s = time_s, d.exec_plan[op] = e, d.preload_plan[op] = p;
      }
    }
  }
  return d;
}

Decisions vendor_decisions(const CostContext& costs) {
  Decisions d = program_order(costs);
  int n = costs.ops();
  d.exec_plan.assign(n, -1);
  d.preload_plan.assign(n, -1);
  d.window = needed_positions(d);
  for (int op = 0; op < n; ++op) {
    const OpPlans& plans = costs.plans(op);
    double best_s = std::numeric_limits<double>::infinity();
    for (int e = 0; e < static_cast<int>(plans.exec.size()); ++e) {
      const ExecPlan& exec = plans.exec[e];
      double tail_s = exec.shift_s + exec.sync_s;
      if (!costs.has_load(op)) {
        if (exec.time_s() < best_s) best_s = exec.time_s(), d.exec_plan[op] = e;
        continue;
      }
      for (int p = 0; p < static_cast<int>(plans.preload[e].size()); ++p) {
        const PreloadPlan& preload = plans.preload[e][p];
        double head_s = preload.distribute_s + exec.home_distribute_s + exec.compute_s;
        double time_s = std::max(costs.load_s(op, preload), head_s) + tail_s;
        if (time_s < best_s) best_s = time_s, d.exec_plan[op] = e, d.preload_plan[op] = p;
      }
    }
  }
  return d;
}

}  // namespace tessera::planner
