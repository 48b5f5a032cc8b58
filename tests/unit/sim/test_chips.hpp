// Hand-built chips for the simulator's tests: plain ChipGraphs whose answers can be worked out
// by hand, so no plugin is needed.
#pragma once

#include <vector>

#include "framework/sim/sim_network.hpp"

namespace tessera::sim::chips {

struct AllToAllSpec {
  uint32_t cores = 8, controllers = 2;
  double core_link_bytes_per_s = 4e9;         // core <-> exchange, each way
  double controller_link_bytes_per_s = 20e9;  // controller <-> exchange, each way
  double sram_bytes_per_s = 16e9;
  double link_latency_s = 0;
};

// Endpoints: cores 0..n-1, the exchange (router) n, controllers n+1...; every route goes through
// the exchange (IPU-like, one chip).
inline ChipGraph all_to_all(const AllToAllSpec& s) {
  ChipGraph g;
  g.cores = s.cores;
  g.sram_bytes_per_s = s.sram_bytes_per_s;
  uint32_t exchange = s.cores;
  for (uint32_t e = 0; e < s.cores + 1 + s.controllers; ++e) {
    Endpoint ep;
    ep.index = e;
    ep.kind = e < s.cores     ? TESSERA_ENDPOINT_CORE
              : e == exchange ? TESSERA_ENDPOINT_ROUTER
                              : TESSERA_ENDPOINT_MEMORY_CONTROLLER;
    g.endpoints.push_back(ep);
  }
  // Links 2e and 2e+1: endpoint e -> exchange and back.
  for (uint32_t e = 0; e < g.endpoints.size(); ++e) {
    if (e == exchange) continue;
    bool core = e < s.cores;
    double rate = core ? s.core_link_bytes_per_s : s.controller_link_bytes_per_s;
    auto link_class = core ? TESSERA_LINK_ON_CHIP : TESSERA_LINK_MEMORY;
    uint32_t up = static_cast<uint32_t>(g.links.size());
    g.links.push_back({up, e, exchange, link_class, 0, rate, s.link_latency_s});
    g.links.push_back({up + 1, exchange, e, link_class, 0, rate, s.link_latency_s});
  }
  auto up_link = [exchange](uint32_t e) { return 2 * (e > exchange ? e - 1 : e); };
  g.route = [up_link](uint32_t src, uint32_t dst) -> Result<std::vector<uint32_t>> {
    return std::vector<uint32_t>{up_link(src), up_link(dst) + 1};
  };
  return g;
}

}  // namespace tessera::sim::chips
