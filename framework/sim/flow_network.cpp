#include "framework/sim/flow_network.hpp"

#include <algorithm>
#include <cassert>
#include <utility>

namespace tessera::sim {

namespace {

// Finishing within this fraction of its bytes counts as finished: the flow that defines the
// next event time ends at ~0 remaining, give or take rounding.
constexpr double kFinishedFraction = 1e-9;

// Progressive filling of `flows` flows, flow i along route_of(i), into rates[0..flows). The most
// contended link is the one of least (fair share = residual / count, index) among the links still
// carrying unfrozen flows; its unfrozen flows are frozen at that share, in flow order, and their
// bytes per second leave every link of their routes. A heap of (share, link) entries, one pushed
// per route entry, pops mostly stale entries; instead a scan of the live links finds the least
// share and every link tied at it. Symmetric cores make the ties many, and they are frozen in
// index order without rescanning while no link a freeze touched (only those change share) falls to
// the tied share or below. The links are picked in the heap's order, so the rates are
// bit-identical.
template <typename RouteOf, typename WeightOf>
void fill(std::span<const double> capacity_bytes_per_s, size_t flows, RouteOf route_of,
          WeightOf weight_of, FillingScratch& s, double* rates) {
  size_t links = capacity_bytes_per_s.size();
  if (s.count.size() < links) {
    s.residual_bytes_per_s.resize(links);
    s.share_bytes_per_s.resize(links);
    s.weight.resize(links, 0);
    s.count.resize(links, 0);
    s.first.resize(links);
    s.end.resize(links);
    s.touched_mark.resize(links, 0);
    s.tied_mark.resize(links, 0);
  }
  s.live.clear();
  size_t entries = 0;
  for (size_t f = 0; f < flows; ++f) {
    rates[f] = FlowNetwork::kNever;
    const auto& route = route_of(f);
    for (size_t i = 0; i < route.size(); ++i) {
      uint32_t l = route[i];
      if (s.count[l]++ == 0) s.live.push_back(l);
      s.weight[l] += weight_of(f, i);
      ++entries;
    }
  }
  // The flows of each used link, back to back, in flow order.
  s.flows_on.resize(entries);
  uint32_t next = 0;
  for (uint32_t l : s.live) {
    s.first[l] = s.end[l] = next;
    next += s.count[l];
    s.residual_bytes_per_s[l] = capacity_bytes_per_s[l];
    s.share_bytes_per_s[l] = s.residual_bytes_per_s[l] / s.weight[l];
  }
  for (size_t f = 0; f < flows; ++f) {
    for (uint32_t l : route_of(f)) s.flows_on[s.end[l]++] = static_cast<uint32_t>(f);
  }
  s.frozen.assign(flows, 0);
  auto freeze = [&](uint32_t l) {
    double share = s.share_bytes_per_s[l];
    s.touched.clear();
    for (uint32_t i = s.first[l]; i < s.end[l]; ++i) {
      uint32_t f = s.flows_on[i];
      if (s.frozen[f]) continue;
      s.frozen[f] = 1;
      rates[f] = share;
      const auto& route = route_of(f);
      for (size_t k = 0; k < route.size(); ++k) {
        uint32_t other = route[k];
        double w = weight_of(f, k);
        s.residual_bytes_per_s[other] = std::max(0.0, s.residual_bytes_per_s[other] - share * w);
        s.weight[other] -= w;
        if (--s.count[other] == 0) s.weight[other] = 0;  // no rounding residue for the next solve
        if (!s.touched_mark[other]) {
          s.touched_mark[other] = 1;
          s.touched.push_back(other);
        }
      }
    }
  };
  for (;;) {
    // Drop the links left without unfrozen flows; find the least share and the links tied at it.
    double least = FlowNetwork::kNever;
    size_t kept = 0;
    s.tied.clear();
    for (uint32_t l : s.live) {
      if (s.count[l] == 0) continue;
      s.live[kept++] = l;
      double share = s.share_bytes_per_s[l];
      if (share > least) continue;
      if (share < least) {
        least = share;
        s.tied.clear();
      }
      s.tied.push_back(l);
    }
    s.live.resize(kept);
    if (kept == 0) break;
    std::sort(s.tied.begin(), s.tied.end());
    for (uint32_t l : s.tied) s.tied_mark[l] = 1;
    bool rescan = false;
    for (size_t k = 0; k < s.tied.size() && !rescan; ++k) {
      uint32_t l = s.tied[k];
      // A tied link a freeze raised above the least share is no longer the bottleneck.
      if (s.count[l] == 0 || s.share_bytes_per_s[l] != least) continue;
      freeze(l);
      for (uint32_t other : s.touched) {
        s.touched_mark[other] = 0;
        if (s.count[other] == 0) continue;
        double& share = s.share_bytes_per_s[other];
        share = s.residual_bytes_per_s[other] / s.weight[other];
        // Now at or below the least share and not next in line among the ties: rescan.
        rescan |= share < least || (share == least && (!s.tied_mark[other] || other < l));
      }
    }
    for (uint32_t l : s.tied) s.tied_mark[l] = 0;
  }
}

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
                   std::span<const std::span<const uint32_t>> routes, std::vector<double>& rates,
                   std::span<const std::span<const double>> weights) {
  rates.resize(routes.size());
  FillingScratch scratch;
  fill(
      capacity_bytes_per_s, routes.size(), [routes](size_t f) { return routes[f]; },
      [weights](size_t f, size_t i) { return weights.empty() ? 1.0 : weights[f][i]; }, scratch,
      rates.data());
}

uint32_t FlowNetwork::add_link(double bytes_per_s, LinkClass link_class) {
  assert(bytes_per_s > 0);
  const auto link = static_cast<uint32_t>(capacity_.size());
  const size_t c = static_cast<size_t>(link_class);
  capacity_.push_back(bytes_per_s);
  class_.push_back(link_class);
  class_capacity_[c] += bytes_per_s;
  class_links_[c].push_back(link);
  class_changed_[c] = true;
  return link;
}

void FlowNetwork::set_capacity(uint32_t link, double bytes_per_s) {
  assert(bytes_per_s > 0);
  if (capacity_[link] == bytes_per_s) return;
  const size_t c = static_cast<size_t>(class_[link]);
  class_capacity_[c] += bytes_per_s - capacity_[link];
  capacity_[link] = bytes_per_s;
  class_changed_[c] = true;
}

uint32_t FlowNetwork::add_route(std::span<const uint32_t> links, std::span<const double> weights) {
  assert(weights.empty() || weights.size() == links.size());
  Route& r = routes_.emplace_back();
  r.links.assign(links.begin(), links.end());
  r.weights.assign(weights.begin(), weights.end());
  for (uint32_t l : links) r.crosses[static_cast<size_t>(class_[l])] = true;
  return static_cast<uint32_t>(routes_.size() - 1);
}

uint32_t FlowNetwork::add_flow(uint32_t route, double bytes, uint32_t owner, FlowKind kind) {
  return add_set(route, bytes, bytes, owner, kind);
}

uint32_t FlowNetwork::add_set(uint32_t route, double bytes, double payload_bytes, uint32_t owner,
                              FlowKind kind) {
  assert(route < routes_.size());
  uint32_t id;
  if (free_.empty()) {
    id = static_cast<uint32_t>(flows_.size());
    flows_.emplace_back();
  } else {
    id = free_.back();
    free_.pop_back();
  }
  Flow& f = flows_[id];
  f.route = route;
  f.bytes = f.remaining = bytes;
  f.payload_per_byte = payload_bytes / bytes;
  f.rate = 0;
  f.owner = owner;
  f.kind = kind;
  // Kept sorted by id, so finishing order and tie-breaking do not depend on history.
  active_.insert(std::upper_bound(active_.begin(), active_.end(), id), id);
  return id;
}

void FlowNetwork::add_class_rates(const Route& route, double rate,
                                  std::array<double, kLinkClasses>& into) const {
  // A run of entries of one class adds in a register: the same additions in the same order as
  // one entry at a time through memory, without waiting on the store of the one before.
  const size_t n = route.links.size();
  for (size_t k = 0; k < n;) {
    const size_t c = static_cast<size_t>(class_[route.links[k]]);
    double sum = into[c];
    for (; k < n && static_cast<size_t>(class_[route.links[k]]) == c; ++k)
      sum += rate * route.weight(k);
    into[c] = sum;
  }
}

size_t FlowNetwork::KeyHash::operator()(const std::vector<uint64_t>& key) const {
  uint64_t h = 0xcbf29ce484222325ull;  // FNV-1a's offset basis, over whole words
  for (uint64_t word : key) h = (h ^ word) * 0x100000001b3ull;
  return static_cast<size_t>(h);
}

const std::vector<uint64_t>& FlowNetwork::solve_key() {
  constexpr uint64_t kNotCrossed = ~uint64_t{0};
  std::array<bool, kLinkClasses> crossed{};
  for (uint32_t id : active_)
    for (size_t c = 0; c < kLinkClasses; ++c) crossed[c] |= routes_[flows_[id].route].crosses[c];
  key_scratch_.clear();
  for (size_t c = 0; c < kLinkClasses; ++c) {
    if (crossed[c] && class_changed_[c]) {
      std::vector<double> capacities;
      for (uint32_t l : class_links_[c]) capacities.push_back(capacity_[l]);
      auto [it, fresh] = capacities_ids_[c].try_emplace(std::move(capacities), 0);
      if (fresh) it->second = capacities_ids_[c].size() - 1;
      class_capacities_id_[c] = it->second;
      class_changed_[c] = false;
    }
    key_scratch_.push_back(crossed[c] ? class_capacities_id_[c] : kNotCrossed);
  }
  for (uint32_t id : active_) key_scratch_.push_back(flows_[id].route);
  return key_scratch_;
}

FlowNetwork::Solution FlowNetwork::solve() {
  Solution out;
  out.rates.resize(active_.size());
  fill(
      capacity_, active_.size(),
      [this](size_t i) -> const std::vector<uint32_t>& {
        return routes_[flows_[active_[i]].route].links;
      },
      [this](size_t i, size_t k) { return routes_[flows_[active_[i]].route].weight(k); }, filling_,
      out.rates.data());
  for (size_t i = 0; i < active_.size(); ++i)
    add_class_rates(routes_[flows_[active_[i]].route], out.rates[i], out.class_rate);
  return out;
}

void FlowNetwork::recompute() {
  const std::vector<uint64_t>& key = solve_key();
  auto it = solved_.find(key);
  if (it == solved_.end()) it = solved_.emplace(key, solve()).first;
  const Solution& solution = it->second;
  class_rate_ = solution.class_rate;
  kind_rate_.fill(0);
  for (size_t i = 0; i < active_.size(); ++i) {
    Flow& f = flows_[active_[i]];
    f.rate = solution.rates[i];
    kind_rate_[static_cast<size_t>(f.kind)] += f.rate * f.payload_per_byte;
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
    // Its finish time reached (as next_finish_s gave it): done, whatever the subtraction leaves.
    // With a denormal byte count rate * seconds loses its bits, and a flow left a remainder would
    // be given a next finish of 0 s, forever.
    const bool due = f.rate > 0 && seconds >= f.remaining / f.rate;
    f.remaining -= f.rate * seconds;
    if (due || f.remaining <= f.bytes * kFinishedFraction) {
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
