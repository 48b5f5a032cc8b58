// The chip as the simulator sees it: the Topology's own network, one node per endpoint and one
// link per physical link (docs/simulator.md, "The network"), plus what the Topology does not list:
// every core's SRAM port (the port's bytes per second; its compute, the data it receives and the
// data other cores read from it all cross it: access contention, Elk §2.3) and every HBM
// controller's `hbm` link (the MemoryModel's rate, or the controller's own: the Machine's HBM
// rate per controller). A memory controller's own links carry the chip's
// memory_endpoint_efficiency of their bandwidth (kMemoryEndpointEfficiency, chip_spec.hpp), the
// number the Machine's HBM rate counts them at.
#pragma once

#include <functional>
#include <span>
#include <utility>
#include <vector>

#include "framework/chip/chip_models.hpp"
#include "framework/common/status.hpp"
#include "framework/plugin/objects.hpp"
#include "framework/sim/flow_network.hpp"

namespace tessera::sim {

// A Topology read out once: endpoints, links and routes (plain data, so tests can build one). The
// route function of read_chip_graph calls the Topology, which must outlive the graph.
struct ChipGraph {
  uint32_t cores = 0, chips = 1;
  double sram_bytes_per_s = 0;  // one core's SRAM port
  std::vector<Endpoint> endpoints;
  std::vector<Link> links;
  // Link indices from `src` to `dst` (endpoint indices); an error for a pair with no route.
  std::function<Result<std::vector<uint32_t>>(uint32_t src, uint32_t dst)> route;
  // The fraction of its bandwidth a memory controller's link carries (the chip's).
  double memory_endpoint_efficiency = kMemoryEndpointEfficiency;
};

// Errors: the plugin's (a failing call), or a topology without memory controllers or with a link
// of zero bandwidth (input errors naming the chip).
Result<ChipGraph> read_chip_graph(const Topology& topology);
// read_chip_graph of the chip's Topology with the chip file's scale applied to its links and its
// memory endpoint efficiency (what the simulator and the planner's pricing run on). `chip` must
// outlive the graph.
Result<ChipGraph> scaled_chip_graph(const ChipModels& chip);

struct Path {
  std::vector<uint32_t> links;  // FlowNetwork link indices (the physical link indices), in order
  double latency_s = 0;         // sum over the route
};

struct Controller {
  uint32_t endpoint = 0, chip = 0;
  uint32_t hbm_link = 0;  // its MemoryModel-rate link in the FlowNetwork
};

struct Core {
  uint32_t endpoint = 0, chip = 0;
  uint32_t sram_port = 0;  // link index in the FlowNetwork
};

class SimNetwork {
 public:
  // `hbm_bytes_per_s` per controller (> 0). FlowNetwork link i is the chip's link i; the SRAM
  // ports and hbm links follow.
  static Result<SimNetwork> build(const ChipGraph& chip, double hbm_bytes_per_s);

  FlowNetwork& network() { return network_; }
  const FlowNetwork& network() const { return network_; }
  // Cores in endpoint order, which every in-tree topology numbers chip by chip (as the planner's
  // Machine numbers its cores).
  const std::vector<Core>& cores() const { return cores_; }
  const std::vector<Controller>& controllers() const { return controllers_; }
  // The links between memory controllers and the on-chip network, with their capacities: a
  // preload's copies fan out inside the network, so during a replicated preload these links,
  // like the controllers' own, carry the copies `replication` times faster (engine.cpp).
  const std::vector<std::pair<uint32_t, double>>& memory_links() const { return memory_links_; }
  uint32_t chips() const { return chips_; }
  // The links the Topology lists (the FlowNetwork's first links).
  size_t chip_links() const { return chip_.links.size(); }
  // Errors are the Topology's route errors, or a route naming a link that does not exist.
  Result<Path> path(uint32_t src_endpoint, uint32_t dst_endpoint) const;

 private:
  ChipGraph chip_;  // its route function must stay valid: paths are found on demand
  FlowNetwork network_;
  std::vector<Core> cores_;
  std::vector<Controller> controllers_;
  std::vector<std::pair<uint32_t, double>> memory_links_;
  uint32_t chips_ = 1;
};

// SimNetwork::path's answers for one thread, kept by (src, dst): the planner prices thousands of
// transfer sets of thousands of transfers each, and they cross the same routes again and again
// (a tree's route is a walk through a hash map per link). An open-addressing table, as the
// lookups are what pricing a set costs. Errors are not kept. Bounded: forgets every path once
// kMaxLinks link entries are kept.
class PathCache {
 public:
  struct View {
    std::span<const uint32_t> links;  // valid until the next call
    double latency_s = 0;
  };
  Result<View> path(const SimNetwork& net, uint32_t src_endpoint, uint32_t dst_endpoint);
  // A hint that path(src, dst) comes soon: its slot is fetched from memory meanwhile (a set's
  // lookups land all over a table of many megabytes, each a cache miss).
  void prefetch(uint32_t src_endpoint, uint32_t dst_endpoint) const;

 private:
  static constexpr size_t kMaxLinks = size_t{4} << 20;  // 16 MiB of link indices
  static constexpr uint64_t kEmpty = UINT64_MAX;        // no endpoint is UINT32_MAX
  // 16 bytes, the path's latency kept in links_ beside its links: the table's growth (fresh,
  // zero-filled pages) and its probes, each a cache miss, were 6 % of a Llama 2 13B compile on
  // ipu-pod4-hbm3e with 32-byte slots.
  struct Slot {
    uint64_t key = kEmpty;
    uint32_t first = 0;  // in links_: the latency's two words, then the links
    uint32_t count = 0;  // links
  };
  static constexpr size_t kLatencyWords = sizeof(double) / sizeof(uint32_t);
  size_t home(uint64_t key) const;  // where the probe for `key` starts
  Slot& slot(uint64_t key);         // its slot, or the empty one where it belongs
  void grow();

  std::vector<Slot> slots_;  // a power of two of them, at most half used
  size_t used_ = 0;
  std::vector<uint32_t> links_;
};

}  // namespace tessera::sim
