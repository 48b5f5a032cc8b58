#include "framework/sim/sim_network.hpp"

#include <algorithm>
#include <set>
#include <tuple>

namespace tessera::sim {

namespace {

constexpr uint32_t kNone = UINT32_MAX;

LinkClass sim_class(tessera_link_class c) {
  switch (c) {
    case TESSERA_LINK_MEMORY:
      return LinkClass::memory;
    case TESSERA_LINK_CHIP_TO_CHIP:
      return LinkClass::chip_to_chip;
    default:
      return LinkClass::on_chip;
  }
}

}  // namespace

Result<ChipGraph> read_chip_graph(const Topology& topology) {
  auto info = topology.info();
  if (!info) return info.error();
  ChipGraph g;
  g.cores = info->num_cores;
  g.chips = std::max(1u, info->num_chips);
  g.sram_bytes_per_s = info->sram_bytes_per_s;
  bool has_memory = false;
  for (uint32_t e = 0; e < info->num_endpoints; ++e) {
    auto ep = topology.endpoint(e);
    if (!ep) return ep.error();
    has_memory |= ep->kind == TESSERA_ENDPOINT_MEMORY_CONTROLLER;
    g.endpoints.push_back(*ep);
  }
  for (uint32_t l = 0; l < info->num_links; ++l) {
    auto link = topology.link(l);
    if (!link) return link.error();
    if (!(link->bytes_per_s > 0))
      return input_error("chip '" + info->name + "': link " + std::to_string(l) +
                         " has no bandwidth; the simulator needs every link's bytes_per_s > 0");
    g.links.push_back(*link);
  }
  if (!has_memory)
    return input_error("chip '" + info->name +
                       "' has no memory controller endpoint; the simulator preloads from HBM "
                       "controllers (give the topology an hbm/dram section)");
  if (!(g.sram_bytes_per_s > 0) || g.cores == 0)
    return input_error("chip '" + info->name + "': cores and the SRAM port rate must be > 0");
  g.route = [&topology](uint32_t src, uint32_t dst) { return topology.route(src, dst); };
  return g;
}

Result<SimNetwork> SimNetwork::build(const ChipGraph& chip, uint32_t groups_per_chip,
                                     double hbm_bytes_per_s) {
  if (!(hbm_bytes_per_s > 0)) return input_error("the HBM rate per controller must be > 0");
  SimNetwork s;
  s.chip_ = chip;
  s.chips_ = chip.chips;
  s.cores_ = chip.cores;
  s.make_groups(chip, groups_per_chip);
  s.make_nodes(chip);
  s.make_links(chip);
  for (uint32_t link : std::set<uint32_t>(s.link_of_.begin(), s.link_of_.end()))
    if (s.network_.link_class(link) == LinkClass::memory)
      s.memory_links_.emplace_back(link, s.network_.capacity(link));
  for (const auto& ep : chip.endpoints) {
    if (ep.kind != TESSERA_ENDPOINT_MEMORY_CONTROLLER) continue;
    s.controllers_.push_back(
        {ep.index, ep.chip, s.network_.add_link(hbm_bytes_per_s, LinkClass::hbm)});
  }
  for (auto& g : s.groups_)
    g.sram_port = s.network_.add_link(g.cores * chip.sram_bytes_per_s, LinkClass::sram_port);
  return s;
}

void SimNetwork::make_groups(const ChipGraph& chip, uint32_t groups_per_chip) {
  // Cores are chip-major in every in-tree topology; group by the chip each core reports.
  std::vector<std::vector<uint32_t>> per_chip(chips_);
  for (const auto& ep : chip.endpoints) {
    if (ep.kind == TESSERA_ENDPOINT_CORE && ep.chip < chips_) per_chip[ep.chip].push_back(ep.index);
  }
  for (uint32_t c = 0; c < chips_; ++c) {
    const auto& cores = per_chip[c];
    uint32_t n = static_cast<uint32_t>(cores.size());
    uint32_t groups = std::clamp(groups_per_chip, 1u, std::max(1u, n));
    for (uint32_t g = 0; g < groups && n > 0; ++g) {
      uint32_t begin = g * n / groups, end = (g + 1) * n / groups;
      groups_.push_back({c, cores[begin], end - begin, cores[begin + (end - begin) / 2], 0});
    }
  }
}

void SimNetwork::make_nodes(const ChipGraph& chip) {
  size_t n = chip.endpoints.size();
  node_of_.assign(n, kNone);
  for (uint32_t g = 0; g < groups_.size(); ++g) {
    for (uint32_t k = 0; k < groups_[g].cores; ++k) node_of_[groups_[g].first_core + k] = g;
  }
  // An endpoint linked to cores of one group only (and to no core elsewhere) joins that group;
  // then, for trees, a node whose children all joined one group joins it, level by level.
  std::vector<std::set<uint32_t>> touching(n);
  for (const auto& l : chip.links) {
    for (auto [a, b] : {std::pair{l.src, l.dst}, std::pair{l.dst, l.src}}) {
      if (chip.endpoints[b].kind == TESSERA_ENDPOINT_CORE && node_of_[a] == kNone)
        touching[a].insert(node_of_[b]);
    }
  }
  for (uint32_t e = 0; e < n; ++e) {
    if (node_of_[e] == kNone && touching[e].size() == 1) node_of_[e] = *touching[e].begin();
  }
  for (bool changed = true; changed;) {
    changed = false;
    std::vector<std::set<uint32_t>> children(n);
    std::vector<bool> open_child(n, false);
    for (const auto& ep : chip.endpoints) {
      if (ep.parent >= n) continue;
      if (node_of_[ep.index] == kNone)
        open_child[ep.parent] = true;
      else
        children[ep.parent].insert(node_of_[ep.index]);
    }
    for (uint32_t e = 0; e < n; ++e) {
      if (node_of_[e] == kNone && !open_child[e] && children[e].size() == 1 &&
          chip.endpoints[e].kind == TESSERA_ENDPOINT_TREE_NODE) {
        node_of_[e] = *children[e].begin();
        changed = true;
      }
    }
  }
  uint32_t next = static_cast<uint32_t>(groups_.size());
  for (auto& node : node_of_) {
    if (node == kNone) node = next++;
  }
}

void SimNetwork::make_links(const ChipGraph& chip) {
  // The endpoint kinds keep a core's way in apart from its way out when both ends joined one group.
  using Key = std::tuple<uint32_t, uint32_t, uint32_t, int, int, int>;
  std::map<Key, uint32_t> merged;
  for (const auto& l : chip.links) {
    Key key{node_of_[l.src],
            node_of_[l.dst],
            l.network,
            static_cast<int>(l.link_class),
            static_cast<int>(chip.endpoints[l.src].kind),
            static_cast<int>(chip.endpoints[l.dst].kind)};
    auto [it, fresh] = merged.emplace(key, 0);
    if (fresh) {
      it->second = network_.add_link(l.bytes_per_s, sim_class(l.link_class));
    } else {
      network_.set_capacity(it->second, network_.capacity(it->second) + l.bytes_per_s);
    }
    link_of_.push_back(it->second);
  }
}

Result<const Path*> SimNetwork::path(uint32_t src, uint32_t dst) {
  auto [it, fresh] = paths_.try_emplace({src, dst});
  if (!fresh) return &it->second;
  auto route = chip_.route(src, dst);
  if (!route) {
    paths_.erase(it);
    return route.error();
  }
  Path& p = it->second;
  for (uint32_t l : *route) {
    if (l >= link_of_.size()) {
      paths_.erase(it);
      return plugin_error("route " + std::to_string(src) + " -> " + std::to_string(dst) +
                          " names link " + std::to_string(l) + ", which does not exist");
    }
    p.latency_s += chip_.links[l].latency_s;
    uint32_t link = link_of_[l];
    if (std::find(p.links.begin(), p.links.end(), link) == p.links.end()) p.links.push_back(link);
  }
  return &p;
}

uint32_t SimNetwork::ring_target(size_t group) const {
  const CoreGroup& g = groups_[group];
  size_t next = group + 1;
  if (next < groups_.size() && groups_[next].chip == g.chip) return groups_[next].representative;
  size_t first = group;
  while (first > 0 && groups_[first - 1].chip == g.chip) --first;
  if (first != group) return groups_[first].representative;
  // One group on this chip: the representative's neighbour inside it.
  return g.cores > 1 ? g.first_core + (g.representative - g.first_core + 1) % g.cores
                     : g.representative;
}

}  // namespace tessera::sim
