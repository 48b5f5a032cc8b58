#include "framework/sim/transfer_sets.hpp"

#include <algorithm>
#include <optional>
#include <utility>

namespace tessera::sim {

namespace {

std::vector<std::pair<uint32_t, uint32_t>> moves(const std::vector<uint32_t>& next) {
  std::vector<std::pair<uint32_t, uint32_t>> between;
  for (uint32_t k = 0; k < next.size(); ++k)
    if (next[k] != k) between.emplace_back(k, next[k]);
  return between;
}

}  // namespace

Result<const SetPlan*> TransferSets::get(const TrafficKey& key) {
  auto [it, fresh] = sets_.try_emplace(key);
  if (fresh) {
    if (auto made = make_set(net_, hbm_latency_s_, key, sum_, paths_, it->second); !made) {
      sets_.erase(it);
      return made.error();
    }
  }
  return &it->second;
}

double SetPlan::alone_s(const FlowNetwork& network, double total_bytes) const {
  if (route.empty() || !(total_bytes > 0)) return 0;
  double rate = FlowNetwork::kNever;
  for (size_t i = 0; i < route.size(); ++i)
    rate = std::min(rate, network.capacity(route[i]) / weights[i]);
  double bytes = total_bytes * transfer_per_byte;  // one transfer's
  return std::max(join_latency_s + bytes / rate, floor_latency_s + bytes * floor_s_per_byte);
}

namespace {

std::vector<const Controller*> feeders(const SimNetwork& net, uint32_t chip) {
  std::vector<const Controller*> out;
  for (const auto& c : net.controllers()) {
    if (c.chip == chip) out.push_back(&c);
  }
  if (out.empty()) {
    for (const auto& c : net.controllers()) out.push_back(&c);
  }
  return out;
}

// A hand-off's move is kHandOffTransfers transfers (fewer when the receiving chip uses fewer
// cores), spread evenly over both chips' used cores: enough that the cores' own links (an IPU
// tile's 5.3 GB/s) outrun the chip links, few enough that a 32-chip machine's moves stay a set of
// ~60k transfers. The senders are taken in a transposed order, so that a topology that picks one
// of several parallel chip links by the ends' indices (mesh_tenstorrent: (src + dst) mod links,
// up to 4) spreads a move over all of them.
constexpr size_t kHandOffTransfers = 64;
constexpr size_t kHandOffLinks = 4;

}  // namespace

// What one byte of an instruction's total puts on each link, summed over its transfers, each
// leaving and entering through SRAM ports (or a controller's hbm link).
Status make_set(const SimNetwork& net, double hbm_latency_s, const TrafficKey& key, LoadSum& sum,
                PathCache& paths, SetPlan& set) {
  const auto& cores = net.cores();
  const uint32_t chips = net.chips();
  // The plan's cores where it put them, else chip by chip: core k on chip chip_of(k), that
  // chip's next core.
  std::vector<std::vector<uint32_t>> on_chip(chips);
  for (uint32_t u = 0; u < cores.size(); ++u) on_chip[cores[u].chip].push_back(u);
  std::vector<uint32_t> physical(key.cores);
  std::vector<std::vector<uint32_t>> used(chips);
  if (key.plan != nullptr && !key.plan->physical.empty()) {
    physical = key.plan->physical;
    for (uint32_t u : physical) {
      if (u >= cores.size())
        return input_error("exec.core_digits: a tile on core " + std::to_string(u) +
                           ", beyond the chip's " + std::to_string(cores.size()) +
                           " cores; re-run tessera compile for this chip");
      used[cores[u].chip].push_back(u);  // the even patterns' rings, on these cores too
    }
  } else {
    for (uint32_t k = 0; k < key.cores; ++k) {
      uint32_t c = planner::chip_of(k, key.cores, chips);
      physical[k] = on_chip[c][used[c].size()];
      used[c].push_back(physical[k]);
    }
  }
  const double share = 1.0 / key.cores;
  const FlowNetwork& network = net.network();
  size_t transfers = 0;
  double most_s_per_share = 0;  // over transfers: its share / its slowest link's bytes per second
  std::optional<Error> error;
  auto send = [&](uint32_t src_port, uint32_t src, uint32_t dst, uint32_t dst_port, double bytes,
                  double extra_latency_s) {
    ++transfers;
    auto p = paths.path(net, src, dst);
    if (!p) {
      if (!error) error = p.error();
      return;
    }
    double latency_s = p->latency_s + extra_latency_s;
    uint32_t ends[] = {src_port, dst_port};
    sum.add(ends, bytes, latency_s);
    sum.add(p->links, bytes, latency_s);
    double slowest = std::min(network.capacity(src_port), network.capacity(dst_port));
    for (uint32_t l : p->links) slowest = std::min(slowest, network.capacity(l));
    most_s_per_share = std::max(most_s_per_share, bytes / slowest);
    set.floor_latency_s = std::max(set.floor_latency_s, latency_s);
  };
  auto core_to_core = [&](uint32_t a, uint32_t b, double bytes) {
    send(cores[a].sram_port, cores[a].endpoint, cores[b].endpoint, cores[b].sram_port, bytes, 0);
  };
  auto ring = [&](const std::vector<uint32_t>& members, double bytes) {
    for (size_t i = 0; members.size() > 1 && i < members.size(); ++i)
      core_to_core(members[i], members[(i + 1) % members.size()], bytes);
  };
  auto pairs = [&](const std::vector<std::pair<uint32_t, uint32_t>>& between) {
    constexpr size_t kAhead = 8;  // routes looked up while the ones before are laid
    for (size_t i = 0; i < between.size(); ++i) {
      if (i + kAhead < between.size()) {
        auto [a, b] = between[i + kAhead];
        paths.prefetch(cores[physical[a]].endpoint, cores[physical[b]].endpoint);
      }
      core_to_core(physical[between[i].first], physical[between[i].second], 1.0 / between.size());
    }
  };
  switch (key.kind) {
    case Traffic::ring:
      for (const auto& members : used) ring(members, share);
      break;
    case Traffic::reduce: {
      std::vector<uint32_t> firsts;
      for (const auto& members : used)
        if (!members.empty()) firsts.push_back(members.front());
      ring(firsts, 1.0 / firsts.size());
      break;
    }
    case Traffic::writeback:
    case Traffic::preload: {
      std::vector<std::vector<const Controller*>> feeding_chip(chips);
      for (uint32_t chip = 0; chip < chips; ++chip) feeding_chip[chip] = feeders(net, chip);
      for (uint32_t u : physical) {
        const auto& feeding = feeding_chip[cores[u].chip];
        for (const Controller* c : feeding) {
          double bytes = share / feeding.size();
          if (key.kind == Traffic::preload)
            send(c->hbm_link, c->endpoint, cores[u].endpoint, cores[u].sram_port, bytes,
                 hbm_latency_s);
          else
            send(cores[u].sram_port, cores[u].endpoint, c->endpoint, c->hbm_link, bytes, 0);
        }
      }
      break;
    }
    case Traffic::rotation:
      pairs(moves(key.plan->rotation_next));
      break;
    case Traffic::gather:
      pairs(moves(key.plan->gather_next));
      break;
    case Traffic::combine:
      pairs(planner::combine_transfers(*key.plan, key.level));
      break;
    case Traffic::handoff: {
      const double total = key.handoff->bytes();
      auto cores_on = [&](uint32_t chip) {
        return used[chip].empty() ? std::vector<uint32_t>{on_chip[chip].front()} : used[chip];
      };
      for (const planner::ChipMove& m : key.handoff->moves) {
        if (m.from_chip >= chips || m.to_chip >= chips)
          return input_error("a hand-off between chips " + std::to_string(m.from_chip) + " and " +
                             std::to_string(m.to_chip) + " on a machine of " +
                             std::to_string(chips) + "; re-run tessera compile for this chip");
        std::vector<uint32_t> from = cores_on(m.from_chip), to = cores_on(m.to_chip);
        const size_t count = std::min(kHandOffTransfers, to.size());
        const size_t stride = std::max<size_t>(1, count / kHandOffLinks);
        const double part = m.bytes / total / static_cast<double>(count);
        for (size_t r = 0; r < count; ++r) {  // spread over both chips' used cores
          // The senders in the transposed order of a kHandOffLinks-row grid: each once.
          const size_t sender = (r % kHandOffLinks * stride + r / kHandOffLinks) % count;
          core_to_core(from[sender * from.size() / count], to[r * to.size() / count], part);
        }
      }
      break;
    }
    case Traffic::compute:  // each core's port for compute_s at its full rate
      for (uint32_t u : physical) {
        uint32_t port[] = {cores[u].sram_port};
        sum.add(port, share, 0);
        most_s_per_share = std::max(most_s_per_share, share / network.capacity(port[0]));
        ++transfers;
      }
      break;
  }
  std::vector<double> least_latency_s;
  sum.take(set.route, set.weights, least_latency_s);
  if (error) return *error;
  if (transfers == 0) return ok_status();
  const auto count = static_cast<double>(transfers);
  set.transfer_per_byte = 1.0 / count;
  set.floor_s_per_byte = most_s_per_share * count;
  double busiest_s = -1;
  for (size_t i = 0; i < set.route.size(); ++i) {
    double& w = set.weights[i];
    w *= count;
    set.class_weight[static_cast<size_t>(network.link_class(set.route[i]))] += w;
    if (w / network.capacity(set.route[i]) > busiest_s) {
      busiest_s = w / network.capacity(set.route[i]);
      set.join_latency_s = least_latency_s[i];
    }
  }
  return ok_status();
}

}  // namespace tessera::sim
