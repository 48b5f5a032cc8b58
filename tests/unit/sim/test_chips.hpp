// Hand-built chips for the simulator's tests: plain ChipGraphs whose answers can be worked out
// by hand, so no plugin is needed.
#pragma once

#include <string>
#include <utility>
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

// A kx × ky mesh or torus the way BookSim2 builds one (docs/simulator.md, "Checked against
// BookSim2"): node x + kx*y has a core with an injection link into its router and an ejection link
// out of it, and each router a link to each neighbour (+x, -x, +y, -y; a torus wraps around).
// Routes are dimension order, x first; on a torus each dimension goes the shorter way, and a
// destination exactly half-way round is reached going +, or going - when the sink asks for it.
struct MeshSpec {
  uint32_t kx = 4, ky = 4;
  bool torus = false;
  double link_bytes_per_s = 32e9;  // every link, each way
  double inject_latency_s = 0, hop_latency_s = 0, eject_latency_s = 0;
};

// Endpoints: cores 0..N-1, routers N..2N-1, then four sinks per core, 2N + v*N + node: the core
// receiving, reached with the half-way ties of x (bit 0 of v) and y (bit 1) broken towards -. A
// core's transfer to its own sink crosses its injection and ejection links (BookSim sends such
// packets through the router). Links: injection i, ejection N + i, then the router links.
inline uint32_t mesh_sink(const MeshSpec& s, uint32_t node, uint32_t variant = 0) {
  uint32_t n = s.kx * s.ky;
  return 2 * n + variant * n + node;
}

// Whether a torus route from `src` to `dst` (nodes) meets a half-way tie in x and in y.
inline std::pair<bool, bool> mesh_ties(const MeshSpec& s, uint32_t src, uint32_t dst) {
  if (!s.torus) return {false, false};
  auto tie = [](uint32_t a, uint32_t b, uint32_t k) {
    return k % 2 == 0 && (b + k - a) % k == k / 2;
  };
  return {tie(src % s.kx, dst % s.kx, s.kx), tie(src / s.kx, dst / s.kx, s.ky)};
}

inline ChipGraph mesh(const MeshSpec& s) {
  ChipGraph g;
  const uint32_t n = s.kx * s.ky;
  g.cores = n;
  g.sram_bytes_per_s = s.link_bytes_per_s;
  for (uint32_t e = 0; e < 6 * n; ++e) {
    Endpoint ep;
    ep.index = e;
    ep.kind = e >= n && e < 2 * n ? TESSERA_ENDPOINT_ROUTER : TESSERA_ENDPOINT_CORE;
    g.endpoints.push_back(ep);
  }
  auto add = [&g, &s](uint32_t src, uint32_t dst, double latency_s) {
    auto index = static_cast<uint32_t>(g.links.size());
    g.links.push_back({index, src, dst, TESSERA_LINK_ON_CHIP, 0, s.link_bytes_per_s, latency_s});
    return index;
  };
  for (uint32_t i = 0; i < n; ++i) add(i, n + i, s.inject_latency_s);
  for (uint32_t i = 0; i < n; ++i) add(n + i, mesh_sink(s, i), s.eject_latency_s);
  // hop[4*node + d]: the link from node's router towards +x, -x, +y, -y (d = 0..3), if any.
  std::vector<int64_t> hop(4 * static_cast<size_t>(n), -1);
  for (uint32_t i = 0; i < n; ++i) {
    uint32_t x = i % s.kx, y = i / s.kx;
    const uint32_t to[4] = {(x + 1) % s.kx + y * s.kx, (x + s.kx - 1) % s.kx + y * s.kx,
                            x + (y + 1) % s.ky * s.kx, x + (y + s.ky - 1) % s.ky * s.kx};
    const bool edge[4] = {x + 1 == s.kx, x == 0, y + 1 == s.ky, y == 0};
    for (uint32_t d = 0; d < 4; ++d) {
      if ((d < 2 ? s.kx : s.ky) < 2 || (edge[d] && !s.torus)) continue;
      hop[4 * i + d] = add(n + i, n + to[d], s.hop_latency_s);
    }
  }
  g.route = [s, n, hop](uint32_t src, uint32_t dst) -> Result<std::vector<uint32_t>> {
    if (src >= n || dst < 2 * n || dst >= 6 * n)
      return input_error("mesh routes go from a core to a sink, not " + std::to_string(src) +
                         " to " + std::to_string(dst));
    uint32_t variant = (dst - 2 * n) / n, node = (dst - 2 * n) % n;
    std::vector<uint32_t> links{src};
    uint32_t at = src;
    for (uint32_t dim = 0; dim < 2; ++dim) {
      uint32_t k = dim == 0 ? s.kx : s.ky, stride = dim == 0 ? 1 : s.kx;
      uint32_t a = at / stride % k, b = node / stride % k;
      if (a == b) continue;
      uint32_t ahead = (b + k - a) % k;  // hops going +
      bool plus = s.torus ? (2 * ahead < k || (2 * ahead == k && !(variant >> dim & 1))) : b > a;
      for (uint32_t c = a; c != b; c = plus ? (c + 1) % k : (c + k - 1) % k) {
        links.push_back(static_cast<uint32_t>(hop[4 * at + 2 * dim + (plus ? 0 : 1)]));
        at = plus ? (c + 1 == k ? at - (k - 1) * stride : at + stride)
                  : (c == 0 ? at + (k - 1) * stride : at - stride);
      }
    }
    links.push_back(n + node);
    return links;
  };
  return g;
}

}  // namespace tessera::sim::chips
