#include "framework/sim/flow_network.hpp"

#include <algorithm>
#include <cassert>
#include <queue>
#include <utility>

namespace tessera::sim {

namespace {

// Finishing within this fraction of its bytes counts as finished: the flow that defines the
// next event time ends at ~0 remaining, give or take rounding.
constexpr double kFinishedFraction = 1e-9;

// Per-solve state of progressive filling, sized to the links the flows use.
struct Filling {
  std::vector<double> residual;
  std::vector<uint32_t> count;
  std::vector<std::vector<uint32_t>> flows_on;  // link -> flows crossing it
  std::vector<uint32_t> used;

  explicit Filling(std::span<const double> capacity)
      : residual(capacity.begin(), capacity.end()),
        count(capacity.size(), 0),
        flows_on(capacity.size()) {}
};

}  // namespace

const char* to_string(LinkClass link_class) {
  switch (link_class) {
    case LinkClass::on_chip:
      return "on-chip";
    case LinkClass::memory:
      return "memory";
    case LinkClass::chip_to_chip:
      return "chip-to-chip";
    case LinkClass::hbm:
      return "hbm";
    case LinkClass::sram_port:
      return "sram-port";
  }
  return "?";
}

const char* to_string(FlowKind kind) {
  switch (kind) {
    case FlowKind::preload:
      return "preload";
    case FlowKind::distribute:
      return "distribute";
    case FlowKind::compute:
      return "compute";
    case FlowKind::shift:
      return "shift";
    case FlowKind::reduce:
      return "reduce";
    case FlowKind::writeback:
      return "writeback";
  }
  return "?";
}

void max_min_rates(std::span<const double> capacity_bytes_per_s,
                   std::span<const std::vector<uint32_t>* const> routes,
                   std::vector<double>& rates) {
  rates.assign(routes.size(), FlowNetwork::kNever);
  Filling fill(capacity_bytes_per_s);
  for (uint32_t f = 0; f < routes.size(); ++f) {
    for (uint32_t l : *routes[f]) {
      if (fill.count[l]++ == 0) fill.used.push_back(l);
      fill.flows_on[l].push_back(f);
    }
  }
  // Min-heap of (fair share, link); an entry is stale when the link's share has changed since.
  using Entry = std::pair<double, uint32_t>;
  std::priority_queue<Entry, std::vector<Entry>, std::greater<>> heap;
  for (uint32_t l : fill.used) heap.emplace(fill.residual[l] / fill.count[l], l);
  std::vector<bool> frozen(routes.size(), false);
  while (!heap.empty()) {
    auto [share, l] = heap.top();
    heap.pop();
    if (fill.count[l] == 0 || share != fill.residual[l] / fill.count[l]) continue;
    for (uint32_t f : fill.flows_on[l]) {
      if (frozen[f]) continue;
      frozen[f] = true;
      rates[f] = share;
      for (uint32_t other : *routes[f]) {
        fill.residual[other] = std::max(0.0, fill.residual[other] - share);
        if (--fill.count[other] > 0 && other != l)
          heap.emplace(fill.residual[other] / fill.count[other], other);
      }
    }
  }
}

uint32_t FlowNetwork::add_link(double bytes_per_s, LinkClass link_class) {
  assert(bytes_per_s > 0);
  capacity_.push_back(bytes_per_s);
  class_.push_back(link_class);
  class_capacity_[static_cast<size_t>(link_class)] += bytes_per_s;
  return static_cast<uint32_t>(capacity_.size() - 1);
}

void FlowNetwork::set_capacity(uint32_t link, double bytes_per_s) {
  assert(bytes_per_s > 0);
  class_capacity_[static_cast<size_t>(class_[link])] += bytes_per_s - capacity_[link];
  capacity_[link] = bytes_per_s;
}

uint32_t FlowNetwork::add_flow(std::span<const uint32_t> route, double bytes, uint32_t owner,
                               FlowKind kind) {
  uint32_t id;
  if (free_.empty()) {
    id = static_cast<uint32_t>(flows_.size());
    flows_.emplace_back();
  } else {
    id = free_.back();
    free_.pop_back();
  }
  Flow& f = flows_[id];
  f.route.assign(route.begin(), route.end());
  f.bytes = f.remaining = bytes;
  f.rate = 0;
  f.owner = owner;
  f.kind = kind;
  // Kept sorted by id, so finishing order and tie-breaking do not depend on history.
  active_.insert(std::upper_bound(active_.begin(), active_.end(), id), id);
  return id;
}

void FlowNetwork::recompute() {
  routes_scratch_.clear();
  for (uint32_t id : active_) routes_scratch_.push_back(&flows_[id].route);
  max_min_rates(capacity_, routes_scratch_, rates_scratch_);
  kind_rate_.fill(0);
  class_rate_.fill(0);
  for (size_t i = 0; i < active_.size(); ++i) {
    Flow& f = flows_[active_[i]];
    f.rate = rates_scratch_[i];
    kind_rate_[static_cast<size_t>(f.kind)] += f.rate;
    for (uint32_t l : f.route) class_rate_[static_cast<size_t>(class_[l])] += f.rate;
  }
}

double FlowNetwork::next_finish_s() const {
  double next = kNever;
  for (uint32_t id : active_) {
    const Flow& f = flows_[id];
    if (f.rate > 0) next = std::min(next, f.remaining / f.rate);
  }
  return next;
}

void FlowNetwork::advance(double seconds, std::vector<uint32_t>& finished,
                          std::vector<uint32_t>& ids) {
  size_t kept = 0;
  for (uint32_t id : active_) {
    Flow& f = flows_[id];
    f.remaining -= f.rate * seconds;
    if (f.remaining <= f.bytes * kFinishedFraction) {
      finished.push_back(f.owner);
      ids.push_back(id);
      free_.push_back(id);
    } else {
      active_[kept++] = id;
    }
  }
  active_.resize(kept);
}

}  // namespace tessera::sim
