// The greedy of allocation.hpp and the option lists the scheduler hands it.
#include "framework/planner/allocation.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <limits>

namespace tessera::planner {

namespace {

double total_bytes(const std::vector<AllocationItem>& items, const std::vector<int>& chosen) {
  double bytes = 0;
  for (size_t i = 0; i < chosen.size(); ++i) bytes += items[i].options[chosen[i]].bytes_per_core;
  return bytes;
}

// The item whose next-smaller option has the best Δbytes/Δtime, or -1 when none can shrink.
int best_step(const std::vector<AllocationItem>& items, const std::vector<int>& chosen) {
  int best = -1;
  double best_ratio = -1;
  for (size_t i = 0; i < chosen.size(); ++i) {
    if (chosen[i] == 0) continue;
    const AllocationOption& now = items[i].options[chosen[i]];
    const AllocationOption& next = items[i].options[chosen[i] - 1];
    double freed = now.bytes_per_core - next.bytes_per_core;
    double added_s = next.time_s - now.time_s;
    double ratio = added_s > 0 ? freed / added_s : std::numeric_limits<double>::infinity();
    if (ratio > best_ratio) {
      best_ratio = ratio;
      best = static_cast<int>(i);
    }
  }
  return best;
}

}  // namespace

Allocation allocate(const std::vector<AllocationItem>& items, double capacity_bytes) {
  return allocate(items, items.size(), capacity_bytes);
}

std::string Allocation::reason() const {
  if (feasible) return {};
  return fmt::format(
      "with {} resident preloads it needs {:.0f} bytes per core at least, {:.0f} more than the "
      "{:.0f} available",
      chosen.size() - 1, bytes_per_core, bytes_per_core - capacity_bytes, capacity_bytes);
}

Allocation allocate(const std::vector<AllocationItem>& items, size_t count, double capacity_bytes) {
  Allocation a;
  allocate(items, count, capacity_bytes, a);
  return a;
}

void allocate(const std::vector<AllocationItem>& items, size_t count, double capacity_bytes,
              Allocation& a) {
  a.feasible = false;
  a.capacity_bytes = capacity_bytes;
  a.time_s = 0;
  a.steps = 0;
  a.chosen.resize(count);
  a.bytes_per_core = 0;
  for (size_t i = 0; i < count; ++i) {  // total_bytes and the times at the start, in one pass
    a.chosen[i] = items[i].start;
    const AllocationOption& o = items[i].options[items[i].start];
    a.bytes_per_core += o.bytes_per_core;
    a.time_s += o.time_s;
  }
  if (a.bytes_per_core <= capacity_bytes) {  // nearly always, in the order search
    a.feasible = true;
    return;
  }
  a.time_s = 0;
  while (a.bytes_per_core > capacity_bytes) {
    int step = best_step(items, a.chosen);
    if (step < 0) return;
    --a.chosen[step];
    ++a.steps;
    a.bytes_per_core = total_bytes(items, a.chosen);
  }
  a.feasible = true;
  for (size_t i = 0; i < count; ++i) a.time_s += items[i].options[a.chosen[i]].time_s;
}

void fill_exec_item(AllocationItem& item, const CostContext& costs, int op, double network_busy,
                    int from) {
  const auto& list = costs.exec_costs(op);
  const BusyPoint at = busy_point(network_busy);
  item.op = op;
  item.options.resize(list.size());
  for (int e = 0; e < static_cast<int>(list.size()); ++e) {
    const auto& c = list[e];
    item.options[e] = {c.bytes_per_core, e >= from ? c.base_s + costs.execution_extra_s(c.comm, at)
                                                   : std::numeric_limits<double>::quiet_NaN()};
  }
  item.start = static_cast<int>(item.options.size()) - 1;
}

void fill_preload_item(AllocationItem& item, const CostContext& costs, int op, int exec_plan,
                       int cap, bool in_flight, double exec_comm_share) {
  const auto& list = costs.preload_costs(op, exec_plan);
  item.op = op;
  item.options.clear();
  for (int p = 0; p <= cap; ++p) {
    double time_s = list[p].resting_s;
    if (in_flight) time_s += exec_comm_share * list[p].noc_s + list[p].sram_port_s;
    item.options.push_back({list[p].bytes_per_core, time_s});
  }
  item.start = cap;
}

}  // namespace tessera::planner
