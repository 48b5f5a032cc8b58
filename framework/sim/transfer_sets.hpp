// What each instruction puts on the simulated network (docs/simulator.md, "Traffic from the
// plan"): its transfers, laid on their routes once and kept as one transfer set (link_load.hpp),
// which the engine runs as one flow.
//
// A set depends only on the network, the kind of traffic, how many cores the op uses and its plan's
// traffic description (planner/op_traffic.hpp, shared by identical ops), so each is made on first
// use (a route error shows only when traffic needs the route) and an instruction after that only
// scales it by its bytes. The plan's core k sits where the description says (OpTraffic::physical)
// or else on chip planner::chip_of(k), on that chip's cores in topology order; every used core
// gets an equal share of a kind without a description.
#pragma once

#include <array>
#include <compare>
#include <cstdint>
#include <map>
#include <vector>

#include "framework/common/status.hpp"
#include "framework/planner/handoff.hpp"
#include "framework/planner/op_traffic.hpp"
#include "framework/sim/link_load.hpp"
#include "framework/sim/sim_network.hpp"

namespace tessera::sim {

// ring and reduce are the even patterns of an op whose plan does not say which cores exchange
// what: each used core to the next used core of its chip, and a ring over the chips' first used
// cores. preload: every controller of a core's chip to the core; writeback: back; compute: every
// used core's SRAM port. rotation, gather and combine (one level: pass × levels + level) are the
// plan's (planner/op_traffic.hpp). handoff: the activations the op takes from other chips
// (planner/handoff.hpp), each move as up to 64 equal transfers spread over the sending and the
// receiving chip's used cores (a chip the op uses no core of: its first core).
enum class Traffic : uint32_t {
  ring,
  reduce,
  writeback,
  preload,
  compute,
  rotation,
  gather,
  combine,
  handoff
};

struct TrafficKey {
  Traffic kind = Traffic::ring;
  uint32_t cores = 0;
  // rotation, gather, combine; and preload, compute, writeback of a plan that places its cores
  // itself (OpTraffic::physical)
  const planner::OpTraffic* plan = nullptr;
  int level = 0;                              // combine only
  const planner::HandOff* handoff = nullptr;  // handoff only
  auto operator<=>(const TrafficKey&) const = default;
};

// Its flow's bytes are one transfer's (the mean), so its rate is a transfer's and every route entry
// weighs the transfers crossing the link (bytes there / one transfer's): links are shared as fairly
// per transfer as if each were a flow of its own, and the set alone takes the link-load bound.
struct SetPlan {
  std::vector<uint32_t> route;   // FlowNetwork links, ascending; empty: the set moves nothing
  std::vector<double> weights;   // per route entry: transfers crossing it
  double transfer_per_byte = 0;  // one transfer's bytes per byte of the instruction's total
  // Latency overlaps the transfer (link_load.hpp): the set joins once the nearest transfer through
  // its busiest link has arrived, and ends no earlier than floor_latency_s + bytes (one
  // transfer's) × floor_s_per_byte — the longest route and the slowest transfer alone (exact for
  // the symmetric sets of a lowered program, else an upper bound). Preloads add the memory's first
  // byte to both.
  double join_latency_s = 0;
  double floor_latency_s = 0;
  double floor_s_per_byte = 0;
  std::array<double, kLinkClasses> class_weight{};  // sum of the weights per link class

  // The set alone on an idle network carrying `total_bytes` (the instruction's): held back only
  // by its most constrained link (capacity / transfers on it), and never before its floor.
  double alone_s(const FlowNetwork& network, double total_bytes) const;
};

// The set of `key` on `net`, made from scratch: its transfers laid on their routes (`scratch` is
// only working space, empty again on return; `paths` keeps the routes found, for `net` only).
// Errors: a route the Topology cannot give. Callers on different threads need their own
// `scratch` and `paths`; `net` is only read.
Status make_set(const SimNetwork& net, double hbm_latency_s, const TrafficKey& key,
                LoadSum& scratch, PathCache& paths, SetPlan& set);

class TransferSets {
 public:
  // `hbm_latency_s`: the memory's first byte, added to preload routes. `net` must outlive this.
  TransferSets(const SimNetwork& net, double hbm_latency_s)
      : net_(net), hbm_latency_s_(hbm_latency_s) {}

  // The set of `key`, made on first use (make_set). Errors: a route the Topology cannot give.
  Result<const SetPlan*> get(const TrafficKey& key);

 private:
  const SimNetwork& net_;
  double hbm_latency_s_;
  std::map<TrafficKey, SetPlan> sets_;
  LoadSum sum_;
  PathCache paths_;
};

}  // namespace tessera::sim
