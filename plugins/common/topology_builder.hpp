// Shared by the in-tree topology plugins (ipu_alltoall, mesh_tenstorrent, tree_simd): the endpoint
// and link tables every topology answers from, parameter helpers every chip family needs, and a
// route checker the unit tests use. Header-only so each plugin `.so` stays self-contained.
#pragma once

#include <tessera/plugin_abi.h>

#include <array>
#include <cstdint>
#include <deque>
#include <map>
#include <string>
#include <tessera/sdk/error.hpp>
#include <tessera/sdk/interfaces.hpp>
#include <tessera/sdk/params.hpp>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

namespace tessera::plugins {

inline constexpr uint32_t kNoParent = UINT32_MAX;

// An endpoint that is not part of a tree (level 0, no parent).
inline tessera_endpoint flat_endpoint(tessera_endpoint_kind kind, uint32_t chip, int32_t x,
                                      int32_t y, uint64_t memory_bytes) {
  tessera_endpoint e{};
  e.kind = kind;
  e.chip = chip;
  e.x = x;
  e.y = y;
  e.level = 0;
  e.parent = kNoParent;
  e.memory_bytes = memory_bytes;
  return e;
}

// Endpoints and directed links, built once in a topology's constructor and read-only afterwards,
// so concurrent const readers need no locking. Names live in a deque: its elements never move, so
// the `const char*` handed out through the ABI stays valid for the life of the tables.
class TopologyTables {
 public:
  TopologyTables() = default;
  TopologyTables(const TopologyTables&) = delete;
  TopologyTables& operator=(const TopologyTables&) = delete;

  uint32_t add_endpoint(tessera_endpoint endpoint, std::string name) {
    names_.push_back(std::move(name));
    endpoint.name = names_.back().c_str();
    endpoints_.push_back(endpoint);
    return static_cast<uint32_t>(endpoints_.size() - 1);
  }

  // At most one link per ordered endpoint pair: every topology here gives each network its own
  // routers, so (src, dst) identifies a link and routes can be looked up by their endpoints.
  uint32_t add_link(uint32_t src, uint32_t dst, tessera_link_class link_class, uint32_t network,
                    double bytes_per_s, double latency_s) {
    if (src >= endpoints_.size() || dst >= endpoints_.size() || src == dst)
      throw sdk::Error(TESSERA_INTERNAL, "link between invalid endpoints " + std::to_string(src) +
                                             " and " + std::to_string(dst));
    auto index = static_cast<uint32_t>(links_.size());
    if (!by_ends_.emplace(key(src, dst), index).second)
      throw sdk::Error(TESSERA_INTERNAL, "duplicate link " + describe(src, dst));
    tessera_link l{};
    l.src = src;
    l.dst = dst;
    l.link_class = link_class;
    l.network = network;
    l.bytes_per_s = bytes_per_s;
    l.latency_s = latency_s;
    links_.push_back(l);
    return index;
  }

  // A wire used in both directions: two links with the same bandwidth and latency.
  void add_duplex(uint32_t a, uint32_t b, tessera_link_class link_class, uint32_t network,
                  double bytes_per_s, double latency_s) {
    add_link(a, b, link_class, network, bytes_per_s, latency_s);
    add_link(b, a, link_class, network, bytes_per_s, latency_s);
  }

  uint32_t link_between(uint32_t src, uint32_t dst) const {
    auto it = by_ends_.find(key(src, dst));
    if (it == by_ends_.end()) throw sdk::Error(TESSERA_INTERNAL, "no link " + describe(src, dst));
    return it->second;
  }

  // Appends the links along a walk through `path` (consecutive endpoints must be linked).
  void append_walk(const std::vector<uint32_t>& path, std::vector<uint32_t>& links) const {
    for (size_t i = 1; i < path.size(); ++i) links.push_back(link_between(path[i - 1], path[i]));
  }

  const tessera_endpoint& endpoint(uint32_t index) const { return endpoints_.at(index); }
  const tessera_link& link(uint32_t index) const { return links_.at(index); }
  uint32_t num_endpoints() const { return static_cast<uint32_t>(endpoints_.size()); }
  uint32_t num_links() const { return static_cast<uint32_t>(links_.size()); }

 private:
  static uint64_t key(uint32_t src, uint32_t dst) { return (uint64_t{src} << 32) | dst; }
  std::string describe(uint32_t src, uint32_t dst) const {
    auto name = [&](uint32_t i) {
      return i < endpoints_.size() ? std::string(endpoints_[i].name) : std::to_string(i);
    };
    return "from '" + name(src) + "' to '" + name(dst) + "'";
  }

  std::vector<tessera_endpoint> endpoints_;
  std::deque<std::string> names_;
  std::vector<tessera_link> links_;
  std::unordered_map<uint64_t, uint32_t> by_ends_;
};

// ---- Parameters --------------------------------------------------------------------------------

// A count that fits the ABI's uint32 fields.
inline uint32_t get_count(const sdk::Params& params, const std::string& key, int64_t fallback,
                          int64_t max, int64_t min = 1) {
  return static_cast<uint32_t>(params.get_int(key, fallback, min, max));
}

inline const char* dtype_key(tessera_dtype dtype) {
  static constexpr std::array<const char*, TESSERA_DTYPE_COUNT> kNames = {
      "fp32", "fp16", "bf16", "fp8", "int8", "int32", "fp64", "bfp8", "bfp4", "bfp2"};
  return kNames.at(dtype);
}

// Peak FLOP per cycle of one core for every dtype, read from `flops_per_cycle.<dtype>`; 0 means
// the core does not compute in that dtype. For a storage type (bfp8, bfp4, bfp2) non-zero means the
// core unpacks it to its math format: weights may be stored in it.
class FlopsPerCycle {
 public:
  using Table = std::array<double, TESSERA_DTYPE_COUNT>;
  FlopsPerCycle(const sdk::Params& params, const Table& defaults) {
    for (uint32_t d = 0; d < TESSERA_DTYPE_COUNT; ++d) {
      std::string key = std::string("flops_per_cycle.") + dtype_key(static_cast<tessera_dtype>(d));
      table_[d] = params.get_non_negative(key, defaults[d]);
    }
  }
  double per_s(tessera_dtype dtype, double clock_hz) const { return table_.at(dtype) * clock_hz; }

 private:
  Table table_{};
};

inline tessera_topology_info make_info(const TopologyTables& tables, uint32_t num_cores,
                                       uint32_t num_chips, uint32_t num_levels,
                                       uint64_t sram_bytes_per_core, double sram_bytes_per_s,
                                       double clock_hz, const std::string& name) {
  tessera_topology_info info{};
  info.num_cores = num_cores;
  info.num_endpoints = tables.num_endpoints();
  info.num_links = tables.num_links();
  info.num_chips = num_chips;
  info.num_levels = num_levels;
  info.sram_bytes_per_core = sram_bytes_per_core;
  info.sram_bytes_per_s = sram_bytes_per_s;
  info.clock_hz = clock_hz;
  info.name = name.c_str();
  return info;
}

// The part every table-driven topology shares: endpoints and links answered from `tables_`, the
// core clock (`clock_hz`) and per-dtype peak FLOP/s (`flops_per_cycle.<dtype>`). A subclass fills
// `tables_` in its constructor.
class TableTopology : public sdk::Topology {
 public:
  double peak_flops_per_s(tessera_dtype dtype) const override {
    return flops_.per_s(dtype, clock_hz_);
  }
  tessera_endpoint endpoint(uint32_t index) const override { return tables_.endpoint(index); }
  tessera_link link(uint32_t index) const override { return tables_.link(index); }

 protected:
  TableTopology(const sdk::Params& params, double default_clock_hz,
                const FlopsPerCycle::Table& default_flops_per_cycle)
      : clock_hz_(params.get_double("clock_hz", default_clock_hz, 0.0)),
        flops_(params, default_flops_per_cycle) {}

  double clock_hz_;
  FlopsPerCycle flops_;
  TopologyTables tables_;
};

// ---- Checks (used by the unit tests; cheap enough for debug assertions) -----------------------

// Why `route` is not a valid, loop-free path from src to dst over existing links; "" when it is.
inline std::string route_problem(const sdk::Topology& topology, uint32_t src, uint32_t dst,
                                 const std::vector<uint32_t>& route) {
  std::string where = "route " + std::to_string(src) + " -> " + std::to_string(dst) + ": ";
  if (src == dst) return route.empty() ? "" : where + "must be empty";
  if (route.empty()) return where + "is empty";
  uint32_t num_links = topology.info().num_links;
  uint32_t at = src;
  std::unordered_set<uint32_t> visited{src};
  for (uint32_t index : route) {
    if (index >= num_links) return where + "link " + std::to_string(index) + " does not exist";
    tessera_link l = topology.link(index);
    if (l.src != at)
      return where + "link " + std::to_string(index) + " does not start where the last ended";
    at = l.dst;
    if (!visited.insert(at).second)
      return where + "visits endpoint " + std::to_string(at) + " twice";
  }
  return at == dst ? "" : where + "ends at " + std::to_string(at);
}

// Routes every source to every destination and checks each; the first problem, or "".
inline std::string check_routes(const sdk::Topology& topology, const std::vector<uint32_t>& sources,
                                const std::vector<uint32_t>& destinations) {
  std::vector<uint32_t> route;
  for (uint32_t src : sources)
    for (uint32_t dst : destinations) {
      route.clear();
      topology.route(src, dst, route);
      std::string problem = route_problem(topology, src, dst, route);
      if (!problem.empty()) return problem;
    }
  return "";
}

// The route from src to dst, checked; a broken route throws an INTERNAL error saying why.
inline std::vector<uint32_t> checked_route(const sdk::Topology& topology, uint32_t src,
                                           uint32_t dst) {
  std::vector<uint32_t> route;
  topology.route(src, dst, route);
  std::string problem = route_problem(topology, src, dst, route);
  if (!problem.empty()) throw sdk::Error(TESSERA_INTERNAL, problem);
  return route;
}

// A topology built from literal parameters (tests, tools).
template <class TopologyImpl>
TopologyImpl build_topology(std::map<std::string, std::string> values = {}) {
  sdk::Params params(std::move(values));
  return TopologyImpl(params);
}

// Builds a topology the way the SDK does (constructor, then unknown-key check) and returns the
// error message, or "" when the parameters are accepted.
template <class TopologyImpl>
std::string construction_error(std::map<std::string, std::string> values) {
  try {
    sdk::Params params(std::move(values));
    TopologyImpl topology(params);
    params.reject_unknown("topology");
  } catch (const sdk::Error& e) {
    return e.what();
  }
  return "";
}

}  // namespace tessera::plugins
