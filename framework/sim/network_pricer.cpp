#include "framework/sim/network_pricer.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>

namespace tessera::sim {

namespace {

// The pricer's network leaves the memory's own rate out (the scheduler times HBM reads itself):
// the controllers' hbm links are as fast as a link can be, and a preload's price skips them.
constexpr double kUnboundedBytesPerS = std::numeric_limits<double>::max() / 4;

// A transfer leaves its core through the core's SRAM port and one of the core's links: the fastest
// any transfer can go is the best core's slower of those two.
double fastest_bytes_per_s_of(const ChipGraph& chip) {
  std::vector<double> out(chip.endpoints.size(), 0);
  for (const Link& l : chip.links) out[l.src] = std::max(out[l.src], l.bytes_per_s);
  double fastest = 0;
  for (const Endpoint& e : chip.endpoints)
    if (e.kind == TESSERA_ENDPOINT_CORE)
      fastest = std::max(fastest, std::min(out[e.index], chip.sram_bytes_per_s));
  return fastest;
}

// The cores as a grid (planner::CoreGrid): one chip whose cores' coordinates fill rows of equal
// columns, numbered row by row. nullopt otherwise (several chips, a tree, an all-to-all's cores
// without coordinates, a grid numbered otherwise).
std::optional<planner::CoreGrid> grid_of(const ChipGraph& chip) {
  if (chip.chips != 1) return std::nullopt;
  std::vector<std::pair<int32_t, int32_t>> at;  // (y, x) per core, in core order
  for (const Endpoint& e : chip.endpoints)
    if (e.kind == TESSERA_ENDPOINT_CORE) {
      if (e.x < 0 || e.y < 0) return std::nullopt;
      at.emplace_back(e.y, e.x);
    }
  if (at.size() < 4 || !std::is_sorted(at.begin(), at.end())) return std::nullopt;
  uint32_t columns = 0;
  while (columns < at.size() && at[columns].first == at.front().first) ++columns;
  if (at.size() % columns != 0) return std::nullopt;
  for (size_t k = columns; k < at.size(); ++k)  // each row's x's are the first row's
    if (at[k].second != at[k % columns].second || at[k].first != at[k - k % columns].first ||
        (k % columns == 0 && at[k].first == at[k - 1].first))
      return std::nullopt;
  const auto rows = static_cast<uint32_t>(at.size() / columns);
  if (columns < 2 || rows < 2) return std::nullopt;
  return planner::CoreGrid{columns, rows};
}

}  // namespace

size_t FlowNetworkPricer::KeyHash::operator()(const std::vector<uint32_t>& key) const {
  // FNV-1a over pairs of words, in four independent lanes: a key holds two words per core
  // (thousands), and one chain of multiplies per word made hashing a tenth of the planning.
  constexpr uint64_t kPrime = 1099511628211ull;
  uint64_t lane[4] = {1469598103934665603ull, 1469598103934665603ull ^ 1,
                      1469598103934665603ull ^ 2, 1469598103934665603ull ^ 3};
  size_t i = 0;
  for (; i + 8 <= key.size(); i += 8)
    for (size_t l = 0; l < 4; ++l)
      lane[l] = (lane[l] ^ (key[i + 2 * l] | uint64_t{key[i + 2 * l + 1]} << 32)) * kPrime;
  for (; i < key.size(); ++i) lane[0] = (lane[0] ^ key[i]) * kPrime;
  return static_cast<size_t>((lane[0] ^ (lane[1] * 3) ^ (lane[2] * 5) ^ (lane[3] * 7)) * kPrime);
}

Result<std::unique_ptr<FlowNetworkPricer>> FlowNetworkPricer::build(const ChipModels& chip) {
  auto graph = scaled_chip_graph(chip);
  if (!graph) return graph.error();
  return build(*graph, chip.machine.hbm_latency_s);
}

Result<std::unique_ptr<FlowNetworkPricer>> FlowNetworkPricer::build(const ChipGraph& chip,
                                                                    double hbm_latency_s) {
  auto net = SimNetwork::build(chip, kUnboundedBytesPerS);
  if (!net) return net.error();
  std::unique_ptr<FlowNetworkPricer> pricer(new FlowNetworkPricer(
      std::move(*net), hbm_latency_s, fastest_bytes_per_s_of(chip), grid_of(chip)));
  if (Status laid = pricer->lay_beside_preload(); !laid) return laid.error();
  return pricer;
}

Status FlowNetworkPricer::lay_beside_preload() {
  SetPlan set;
  const auto cores = static_cast<uint32_t>(net_.cores().size());
  if (Status made = make_set(net_, hbm_latency_s_, {Traffic::preload, cores, nullptr, 0},
                             scratch_.local(), paths_.local(), set);
      !made)
    return made;
  const FlowNetwork& network = net_.network();
  preload_transfers_.assign(network.links(), 0);
  double rate = std::numeric_limits<double>::infinity();
  for (size_t i = 0; i < set.route.size(); ++i) {
    LinkClass c = network.link_class(set.route[i]);
    if (c == LinkClass::hbm || c == LinkClass::memory) continue;  // as the preload's price
    rate = std::min(rate, network.capacity(set.route[i]) / set.weights[i]);
    if (c != LinkClass::sram_port) preload_transfers_[set.route[i]] = set.weights[i];
  }
  preload_saturated_bytes_per_s_ = std::isfinite(rate) ? rate : 0;
  return ok_status();
}

// On each link the preload's transfers, at `busy` of their saturated rate, take their bytes per
// second first when they leave the set more than its fair share per transfer (they are held
// back elsewhere: max-min sharing gives the set the rest); else the link is shared per transfer.
planner::BesideSeconds FlowNetworkPricer::beside_s_per_byte(const SetPlan& set) const {
  const FlowNetwork& network = net_.network();
  planner::BesideSeconds rate;  // one transfer of the set, at each point
  rate.fill(std::numeric_limits<double>::infinity());
  for (size_t i = 0; i < set.route.size(); ++i) {
    const double capacity = network.capacity(set.route[i]), mine = set.weights[i];
    const double theirs = preload_transfers_[set.route[i]];
    if (theirs == 0) {
      // A link the preload leaves free (the exchange's SRAM ports, links off the preload's
      // routes): the lines below give capacity / mine at every point, bit for bit, in five
      // divisions where one does (this function was 8 % of a googlenet compile on mncore2).
      const double alone = capacity / mine;
      for (double& r : rate) r = std::min(r, alone);
      continue;
    }
    const double fair = capacity / (mine + theirs);
    for (size_t k = 0; k < rate.size(); ++k) {
      double taken = theirs * planner::kPreloadBusy[k] * preload_saturated_bytes_per_s_;
      rate[k] = std::min(rate[k], std::max(std::max(0.0, capacity - taken) / mine, fair));
    }
  }
  planner::BesideSeconds out{};
  for (size_t k = 0; k < out.size(); ++k)
    out[k] = std::isfinite(rate[k]) ? set.transfer_per_byte / rate[k] : 0;
  return out;
}

Result<planner::SetPrice> FlowNetworkPricer::price(const TrafficKey& key) const {
  SetPlan set;
  if (auto made = make_set(net_, hbm_latency_s_, key, scratch_.local(), paths_.local(), set); !made)
    return made.error();
  planner::SetPrice p;
  if (set.route.empty()) return p;
  const FlowNetwork& network = net_.network();
  for (size_t i = 0; i < set.route.size(); ++i) {
    LinkClass c = network.link_class(set.route[i]);
    if (c == LinkClass::hbm || c == LinkClass::memory) continue;  // a preload's: pricing.hpp
    p.s_per_byte = std::max(
        p.s_per_byte, set.weights[i] * set.transfer_per_byte / network.capacity(set.route[i]));
  }
  p.latency_s = set.join_latency_s;
  p.floor_latency_s = set.floor_latency_s;
  auto links = [&](LinkClass c) {
    return set.class_weight[static_cast<size_t>(c)] * set.transfer_per_byte;
  };
  p.on_chip_links_per_byte = links(LinkClass::on_chip) + links(LinkClass::memory);
  p.chip_links_per_byte = links(LinkClass::chip_to_chip);
  // A preload's slowest transfer is at its controller's link, which the price leaves out.
  if (key.kind != Traffic::preload) {
    p.floor_s_per_byte = set.floor_s_per_byte * set.transfer_per_byte;
    p.beside_s_per_byte = beside_s_per_byte(set);
  }
  return p;
}

Result<planner::SetPrice> FlowNetworkPricer::exchange(const planner::OpTraffic& traffic,
                                                      planner::Exchange kind, int level) const {
  Traffic t = kind == planner::Exchange::rotation ? Traffic::rotation
              : kind == planner::Exchange::gather ? Traffic::gather
                                                  : Traffic::combine;
  const std::vector<uint32_t>& partners = t == Traffic::rotation ? traffic.rotation_next
                                          : t == Traffic::gather ? traffic.gather_next
                                                                 : traffic.combine_order;
  std::vector<uint32_t> key{static_cast<uint32_t>(t), static_cast<uint32_t>(level), traffic.cores,
                            t == Traffic::combine ? traffic.combine_parts : 0};
  key.insert(key.end(), partners.begin(), partners.end());
  key.insert(key.end(), traffic.physical.begin(), traffic.physical.end());
  return cached(std::move(key), {t, traffic.cores, &traffic, level});
}

Result<planner::SetPrice> FlowNetworkPricer::exchange_by_shape(
    const std::vector<uint32_t>& shape, planner::Exchange kind, int level,
    const std::function<Result<const planner::OpTraffic*>()>& lay) const {
  std::vector<uint32_t> key{static_cast<uint32_t>(kind), static_cast<uint32_t>(level)};
  key.insert(key.end(), shape.begin(), shape.end());
  {
    std::lock_guard lock(mutex_);
    if (auto it = by_shape_.find(key); it != by_shape_.end()) return it->second;
  }
  auto traffic = lay();
  if (!traffic) return traffic.error();
  auto p = exchange(**traffic, kind, level);
  if (!p) return p.error();
  std::lock_guard lock(mutex_);
  by_shape_.try_emplace(std::move(key), *p);
  return p;
}

Result<planner::SetPrice> FlowNetworkPricer::preload(uint32_t cores,
                                                     const planner::OpTraffic* placed) const {
  return by_cores(preloads_, Traffic::preload, cores, placed);
}

Result<planner::SetPrice> FlowNetworkPricer::ring(uint32_t cores,
                                                  const planner::OpTraffic* placed) const {
  return by_cores(rings_, Traffic::ring, cores, placed);
}

Result<planner::SetPrice> FlowNetworkPricer::by_cores(std::map<uint32_t, planner::SetPrice>& kept,
                                                      Traffic kind, uint32_t cores,
                                                      const planner::OpTraffic* placed) const {
  if (placed != nullptr && !placed->physical.empty()) {
    std::vector<uint32_t> key{static_cast<uint32_t>(kind), 0, cores, 0};
    key.insert(key.end(), placed->physical.begin(), placed->physical.end());
    return cached(std::move(key), {kind, cores, placed, 0});
  }
  {
    std::lock_guard lock(mutex_);
    if (auto it = kept.find(cores); it != kept.end()) return it->second;
  }
  auto p = price({kind, cores, nullptr, 0});
  if (!p) return p.error();
  std::lock_guard lock(mutex_);
  return kept.try_emplace(cores, *p).first->second;
}

// Kept by the moves' shares (the set's shape: a price scales with the total bytes), so the
// timelines and energy estimates of every schedule compared lay each shape once.
Result<planner::SetPrice> FlowNetworkPricer::handoff(const planner::HandOff& handoff,
                                                     uint32_t cores) const {
  const double total = handoff.bytes();
  std::vector<uint32_t> key{static_cast<uint32_t>(Traffic::handoff), 0, cores, 0};
  for (const planner::ChipMove& m : handoff.moves) {
    auto share = std::bit_cast<uint64_t>(m.bytes / total);
    key.insert(key.end(), {m.from_chip, m.to_chip, static_cast<uint32_t>(share >> 32),
                           static_cast<uint32_t>(share)});
  }
  return cached(std::move(key), {Traffic::handoff, cores, nullptr, 0, &handoff});
}

Result<planner::SetPrice> FlowNetworkPricer::cached(std::vector<uint32_t> key,
                                                    const TrafficKey& set) const {
  {
    std::lock_guard lock(mutex_);
    if (auto it = exchanges_.find(key); it != exchanges_.end()) return it->second;
  }
  auto p = price(set);
  if (!p) return p.error();
  std::lock_guard lock(mutex_);
  if (cached_words_ + key.size() > kMaxCachedWords) {
    exchanges_.clear();
    cached_words_ = 0;
  }
  cached_words_ += key.size();
  exchanges_.try_emplace(std::move(key), *p);
  return p;
}

}  // namespace tessera::sim
