#include "framework/sim/sim_network.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <string>
#include <utility>

#include "framework/sim/link_load.hpp"

namespace tessera::sim {

namespace {

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

Result<ChipGraph> scaled_chip_graph(const ChipModels& chip) {
  auto graph = read_chip_graph(chip.topology);
  if (!graph) return graph.error();
  graph->memory_endpoint_efficiency = chip.memory_endpoint_efficiency;
  for (Link& link : graph->links) {
    if (link.link_class == TESSERA_LINK_MEMORY) link.bytes_per_s *= chip.link_scale.memory;
    if (link.link_class == TESSERA_LINK_ON_CHIP) link.bytes_per_s *= chip.link_scale.on_chip;
  }
  return graph;
}

Result<SimNetwork> SimNetwork::build(const ChipGraph& chip, double hbm_bytes_per_s) {
  if (!(hbm_bytes_per_s > 0)) return input_error("the HBM rate per controller must be > 0");
  SimNetwork s;
  s.chip_ = chip;
  s.chips_ = chip.chips;
  for (const auto& l : chip.links) {
    bool at_memory = chip.endpoints[l.src].kind == TESSERA_ENDPOINT_MEMORY_CONTROLLER ||
                     chip.endpoints[l.dst].kind == TESSERA_ENDPOINT_MEMORY_CONTROLLER;
    double bytes_per_s = l.bytes_per_s * (at_memory ? chip.memory_endpoint_efficiency : 1.0);
    uint32_t link = s.network_.add_link(bytes_per_s, sim_class(l.link_class));
    if (l.link_class == TESSERA_LINK_MEMORY) s.memory_links_.emplace_back(link, bytes_per_s);
  }
  for (const auto& ep : chip.endpoints) {
    if (ep.kind == TESSERA_ENDPOINT_MEMORY_CONTROLLER)
      s.controllers_.push_back(
          {ep.index, ep.chip, s.network_.add_link(hbm_bytes_per_s, LinkClass::hbm)});
  }
  for (const auto& ep : chip.endpoints) {
    if (ep.kind == TESSERA_ENDPOINT_CORE)
      s.cores_.push_back(
          {ep.index, ep.chip, s.network_.add_link(chip.sram_bytes_per_s, LinkClass::sram_port)});
  }
  return s;
}

Result<Path> SimNetwork::path(uint32_t src, uint32_t dst) const {
  auto route = chip_.route(src, dst);
  if (!route) return route.error();
  Path p;
  for (uint32_t l : *route) {
    if (l >= chip_.links.size())
      return plugin_error("route " + std::to_string(src) + " -> " + std::to_string(dst) +
                          " names link " + std::to_string(l) + ", which does not exist");
    p.latency_s += chip_.links[l].latency_s;
  }
  p.links = std::move(*route);
  return p;
}

size_t PathCache::home(uint64_t key) const {
  // Fibonacci hashing: the product's top bits mix both endpoints (its low bits see only dst's).
  const size_t mask = slots_.size() - 1;
  return static_cast<size_t>((key * 0x9E3779B97F4A7C15ull) >> (64 - std::bit_width(mask)));
}

void PathCache::prefetch(uint32_t src, uint32_t dst) const {
  if (!slots_.empty()) __builtin_prefetch(&slots_[home((uint64_t{src} << 32) | dst)]);
}

PathCache::Slot& PathCache::slot(uint64_t key) {
  const size_t mask = slots_.size() - 1;
  size_t i = home(key);
  while (slots_[i].key != key && slots_[i].key != kEmpty) i = (i + 1) & mask;
  return slots_[i];
}

void PathCache::grow() {
  std::vector<Slot> old(std::max<size_t>(1024, slots_.size() * 2));
  old.swap(slots_);
  for (const Slot& s : old)
    if (s.key != kEmpty) slot(s.key) = s;
}

Result<PathCache::View> PathCache::path(const SimNetwork& net, uint32_t src, uint32_t dst) {
  const uint64_t key = (uint64_t{src} << 32) | dst;
  if (2 * (used_ + 1) > slots_.size()) grow();
  Slot* found = &slot(key);
  if (found->key == kEmpty) {
    auto p = net.path(src, dst);
    if (!p) return p.error();
    if (links_.size() + kLatencyWords + p->links.size() > kMaxLinks) {
      slots_.assign(slots_.size(), Slot{});
      used_ = 0;
      links_.clear();
      found = &slot(key);
    }
    *found = {key, static_cast<uint32_t>(links_.size()), static_cast<uint32_t>(p->links.size())};
    const auto latency = std::bit_cast<std::array<uint32_t, kLatencyWords>>(p->latency_s);
    links_.insert(links_.end(), latency.begin(), latency.end());
    links_.insert(links_.end(), p->links.begin(), p->links.end());
    ++used_;
  }
  std::array<uint32_t, kLatencyWords> latency;
  std::copy_n(links_.begin() + found->first, kLatencyWords, latency.begin());
  return View{std::span<const uint32_t>(links_).subspan(found->first + kLatencyWords, found->count),
              std::bit_cast<double>(latency)};
}

}  // namespace tessera::sim
