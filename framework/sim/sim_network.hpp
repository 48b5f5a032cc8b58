// The chip as the simulator sees it: core groups, HBM controllers and the aggregated network
// between them (docs/simulator.md, "Core groups").
//
// Simulating 5888 cores one by one is too slow for whole models, and symmetric cores behave the
// same, so the cores of each chip are cut into `groups_per_chip` groups of consecutive core indices
// (sizes differ by at most one). A group is one node of the simulated network; so is every other
// endpoint that serves one group only (a mesh core's router, a tree node whose subtree lies in one
// group); the rest (an IPU exchange, HBM controllers, DRAM tile routers, chip ports, tree nodes
// above the groups) stay themselves. Physical links between the same two nodes (same network and
// class) become one link whose capacity is their sum, so a group's flow — its cores' per-core
// flows together, carrying their bytes together — gets the per-core rate times the group size
// wherever the cores have links of their own, and shares single links (a memory controller's)
// with everyone. Routes between nodes are the Topology's routes between the groups' representative
// cores (the middle core), mapped link by link. With one core per group nothing is merged: the
// network is the chip's own.
//
// Every group also has an SRAM-port link (cores × the port's bytes per second) that its compute,
// the data it receives and the data other cores read from it all cross (access contention, seed
// §2.3), and every HBM controller an `hbm` link with the MemoryModel's rate.
#pragma once

#include <functional>
#include <map>
#include <utility>
#include <vector>

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
};

// Errors: the plugin's (a failing call), or a topology without memory controllers or with a link
// of zero bandwidth (input errors naming the chip).
Result<ChipGraph> read_chip_graph(const Topology& topology);

struct CoreGroup {
  uint32_t chip = 0, first_core = 0, cores = 0;
  uint32_t representative = 0;  // endpoint index of the middle core
  uint32_t sram_port = 0;       // link index in the FlowNetwork
};

struct Path {
  std::vector<uint32_t> links;  // FlowNetwork link indices, each at most once
  double latency_s = 0;         // sum over the physical route
};

struct Controller {
  uint32_t endpoint = 0, chip = 0;
  uint32_t hbm_link = 0;  // its MemoryModel-rate link in the FlowNetwork
};

class SimNetwork {
 public:
  // `hbm_bytes_per_s` per controller (> 0); groups_per_chip is clamped to the cores per chip.
  static Result<SimNetwork> build(const ChipGraph& chip, uint32_t groups_per_chip,
                                  double hbm_bytes_per_s);

  FlowNetwork& network() { return network_; }
  const std::vector<CoreGroup>& groups() const { return groups_; }
  const std::vector<Controller>& controllers() const { return controllers_; }
  // The links between memory controllers and the on-chip network, with their capacities: a
  // preload's copies fan out inside the network, so during a replicated preload these links,
  // like the controllers' own, carry the copies `replication` times faster (engine.cpp).
  const std::vector<std::pair<uint32_t, double>>& memory_links() const { return memory_links_; }
  uint32_t chips() const { return chips_; }
  uint32_t cores() const { return cores_; }
  // Cached; errors are the Topology's route errors.
  Result<const Path*> path(uint32_t src_endpoint, uint32_t dst_endpoint);
  // The core a group sends to in the distribute/shift ring: the next group's representative on
  // the same chip, or, for a chip with one group, the representative's neighbouring core.
  uint32_t ring_target(size_t group) const;

 private:
  void make_groups(const ChipGraph& chip, uint32_t groups_per_chip);
  void make_nodes(const ChipGraph& chip);
  void make_links(const ChipGraph& chip);

  ChipGraph chip_;  // its route function must stay valid: paths are found lazily
  FlowNetwork network_;
  std::vector<CoreGroup> groups_;
  std::vector<Controller> controllers_;
  std::vector<uint32_t> node_of_;  // endpoint -> node (groups are nodes 0..G-1)
  std::vector<uint32_t> link_of_;  // physical link -> FlowNetwork link
  std::vector<std::pair<uint32_t, double>> memory_links_;
  std::map<std::pair<uint32_t, uint32_t>, Path> paths_;
  uint32_t chips_ = 1, cores_ = 0;
};

}  // namespace tessera::sim
