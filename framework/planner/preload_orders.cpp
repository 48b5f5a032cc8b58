// The order space of preload_orders.hpp.
#include "framework/planner/preload_orders.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <optional>
#include <utility>

namespace tessera::planner {

namespace {

class OrderTree {
 public:
  OrderTree(const std::vector<int>& kinds, int max_displacement,
            const std::function<bool(const std::vector<int>&)>& fits, size_t max_orders)
      : kinds_(kinds),
        d_(max_displacement),
        fits_(fits),
        max_orders_(max_orders),
        used_(kinds.size(), false),
        previous_of_kind_(kinds.size(), -1) {
    std::map<int, int> last;
    for (size_t x = 0; x < kinds.size(); ++x) {
      auto [it, fresh] = last.try_emplace(kinds[x], static_cast<int>(x));
      if (!fresh) previous_of_kind_[x] = std::exchange(it->second, static_cast<int>(x));
    }
  }

  // Every order, or nullopt once there are more than max_orders.
  std::optional<std::vector<std::vector<int>>> build() {
    grow();
    if (orders_.size() > max_orders_) return std::nullopt;
    return std::move(orders_);
  }

 private:
  void grow() {
    if (orders_.size() > max_orders_) return;
    int slot = static_cast<int>(prefix_.size());
    int n = static_cast<int>(kinds_.size());
    if (slot == n) {
      orders_.push_back(prefix_);
      return;
    }
    // An op more than d slots behind must take this slot, or no order completes.
    int overdue = slot - d_;
    bool forced = overdue >= 0 && !used_[overdue];
    for (int x = std::max(0, slot - d_); x <= std::min(n - 1, slot + d_); ++x) {
      if (used_[x] || (forced && x != overdue)) continue;
      // Units of one kind are taken in their own order: any order of the kinds that some
      // permutation gives, this one gives too (within the displacement whenever any does: the
      // order-keeping match of equal units moves none further), and it is the lexicographically
      // first. So each order of kinds is made once, without trying the factorial many of its
      // permutations (eight experts of one kind in a layer: 40,320 each).
      int before = previous_of_kind_[x];
      if (before >= 0 && !used_[before]) continue;
      prefix_.push_back(x);
      used_[x] = true;
      if (fits_(prefix_)) grow();
      used_[x] = false;
      prefix_.pop_back();
    }
  }

  const std::vector<int>& kinds_;
  int d_;
  const std::function<bool(const std::vector<int>&)>& fits_;
  size_t max_orders_;
  std::vector<bool> used_;
  std::vector<int> previous_of_kind_;  // the unit of the same kind before each, or -1
  std::vector<int> prefix_;
  std::vector<std::vector<int>> orders_;
};

}  // namespace

std::vector<LoadUnit> large_load_units(const CostContext& costs, const ir::RepeatedLayers& layers,
                                       const std::vector<int>& unit_of) {
  auto unit = [&](int op) { return unit_of.empty() ? op : unit_of[op]; };
  double layer_bytes = 0;
  for (int k = 0; k < layers.ops_per_layer; ++k)
    layer_bytes += costs.plans(layers.first_op + k).hbm_read_bytes;
  std::vector<LoadUnit> units;
  for (int k = 0; k < layers.ops_per_layer;) {
    int first = layers.first_op + k;
    LoadUnit u{k, 1};
    while (k + u.ops < layers.ops_per_layer && unit(first + u.ops) == unit(first)) ++u.ops;
    double bytes = 0;
    for (int i = 0; i < u.ops; ++i) bytes += costs.plans(first + i).hbm_read_bytes;
    if (costs.has_load(first) && bytes >= kLargeLoadShare * layer_bytes) units.push_back(u);
    k += u.ops;
  }
  return units;
}

std::vector<std::vector<int>> bounded_orders(
    const std::vector<int>& kinds, int max_displacement,
    const std::function<bool(const std::vector<int>& prefix)>& fits) {
  return *OrderTree(kinds, std::max(0, max_displacement), fits, SIZE_MAX).build();
}

BoundedOrders widest_bounded_orders(
    const std::vector<int>& kinds, int max_displacement, size_t max_orders,
    const std::function<bool(const std::vector<int>& prefix)>& fits) {
  for (int d = std::max(0, max_displacement); d > 0; --d)
    if (auto orders = OrderTree(kinds, d, fits, std::max<size_t>(max_orders, 1)).build())
      return {std::move(*orders), d};
  return {bounded_orders(kinds, 0, fits), 0};
}

Decisions permuted_order(const CostContext& costs, const ir::RepeatedLayers& layers,
                         const std::vector<LoadUnit>& units, const std::vector<int>& permutation) {
  Decisions d = program_order(costs);
  std::vector<int> slots;
  for (int layer = 0; layer < layers.count; ++layer) {
    int base = layers.first_op + layer * layers.ops_per_layer;
    slots.clear();
    for (const LoadUnit& u : units)
      for (int i = 0; i < u.ops; ++i) slots.push_back(d.position[base + u.offset + i]);
    std::sort(slots.begin(), slots.end());
    size_t next = 0;
    for (int x : permutation)
      for (int i = 0; i < units[x].ops; ++i) d.order[slots[next++]] = base + units[x].offset + i;
  }
  for (size_t m = 0; m < d.order.size(); ++m) d.position[d.order[m]] = static_cast<int>(m);
  return d;
}

bool prefix_fits(const CostContext& costs, const ir::RepeatedLayers& layers,
                 const std::vector<LoadUnit>& units, const std::vector<int>& prefix) {
  int n = static_cast<int>(units.size());
  std::vector<int> slot_of(n, -1);
  for (size_t s = 0; s < prefix.size(); ++s) slot_of[prefix[s]] = static_cast<int>(s);
  int needed = -1;
  for (int x = 0; x < n && slot_of[x] >= 0; ++x) {
    needed = std::max(needed, slot_of[x]);
    double bytes = costs.plans(layers.first_op + units[x].offset).exec.front().exec_bytes_per_core;
    for (int y = x + 1; y < n; ++y)
      if (slot_of[y] >= 0 && slot_of[y] <= needed)
        bytes += costs.plans(layers.first_op + units[y].offset).smallest_preload_bytes_per_core();
    if (bytes > costs.sram_bytes()) return false;
  }
  return true;
}

}  // namespace tessera::planner
