// The load a set of transfers puts on the links of a chip, and the time the set takes alone.
//
// A transfer set is the bulk-synchronous traffic of one instruction (a preload, a distribute, one
// compute-shift step, a reduction): its transfers start together and the instruction waits for the
// last byte. Its cost on an idle network is the link-load bound: every transfer's bytes are laid on
// every link of its Topology route; the set needs at least `bytes on a link / its bandwidth` on
// every link, and progressing all transfers in proportion reaches that bound. Latency overlaps the
// transfer, as in a packet network (checked against BookSim2, docs/simulator.md): a link's bytes
// cannot start crossing it before the nearest transfer through it arrives (its least route
// latency), and no transfer ends before its own route's latency plus its bytes at its slowest
// link. The simulator shares links between concurrent sets with these loads (flow_network.hpp,
// weighted routes); the planner is to price candidates with the same numbers.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "framework/common/status.hpp"
#include "framework/sim/sim_network.hpp"

namespace tessera::sim {

struct Transfer {
  uint32_t src = 0, dst = 0;  // ChipGraph endpoint indices
  double bytes = 0;
};

// Bytes per link summed over routes, and the least latency of a route through each, for any
// numbering of links (a chip's, a FlowNetwork's).
class LoadSum {
 public:
  // Every entry of `links` carries `bytes` (a link listed twice, twice), on a route of latency_s;
  // bytes <= 0 loads nothing (a link is listed only once it carries a byte).
  void add(std::span<const uint32_t> links, double bytes, double latency_s);
  // The loaded links in ascending order, their bytes and least route latency; then empty again.
  void take(std::vector<uint32_t>& links, std::vector<double>& bytes,
            std::vector<double>& least_latency_s);

 private:
  std::vector<double> bytes_on_, least_on_;  // by link
  std::vector<uint32_t> used_;
};

// Per physical link the set crosses (ascending link index, each once): its bytes and the least
// latency of a route through it; and the latest a transfer alone can end.
struct LinkLoad {
  std::vector<uint32_t> links;
  std::vector<double> bytes;
  std::vector<double> least_latency_s;
  double floor_s = 0;  // max over transfers: route latency + bytes at the route's slowest link
};

// Errors: a route the Topology cannot give (its error), a transfer whose endpoints are out of range
// or whose bytes are negative or not finite (input errors naming the transfer). Transfers with
// src == dst or zero bytes put nothing on the network.
Result<LinkLoad> link_load(const ChipGraph& chip, std::span<const Transfer> transfers);

// The set alone on an idle network: the larger of floor_s and, over its links, least_latency_s +
// bytes / bytes_per_s.
double alone_seconds(const ChipGraph& chip, const LinkLoad& load);

}  // namespace tessera::sim
