// The load a set of transfers puts on the links of a chip, and the time the set takes alone.
//
// A transfer set is the bulk-synchronous traffic of one instruction (a preload, a distribute, one
// compute-shift step, a reduction): its transfers start together and the instruction waits for the
// last byte. Its cost on an idle network is the link-load bound: every transfer's bytes are laid on
// every link of its Topology route; the set needs at least `bytes on a link / its bandwidth` on
// every link, and progressing all transfers in proportion (each at bytes / T) reaches that bound,
// so the set takes the most loaded link's time plus the longest route's latency. The simulator
// shares links between concurrent sets with these loads (flow_network.hpp, weighted routes); the
// planner prices candidates with the same numbers.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "framework/common/status.hpp"
#include "framework/sim/sim_network.hpp"

namespace tessera::sim {

// A link at the edge of a many-to-one or one-to-many pattern (a memory controller's way into and
// out of the network) stays busy only part of a batch in a cycle-level network: BookSim2 keeps a
// controller's injection link busy 86-95 % of a DRAM-read batch and a hot spot's ejection link
// 87-99 % (docs/simulator.md, "Checked against BookSim2"). The simulator derates every link of a
// memory controller to this fraction of its bandwidth, which brings those batches within 7 %.
inline constexpr double kMemoryEndpointEfficiency = 0.9;

struct Transfer {
  uint32_t src = 0, dst = 0;  // ChipGraph endpoint indices
  double bytes = 0;
};

// Bytes per link summed over routes, for any numbering of links (a chip's, a FlowNetwork's).
class LoadSum {
 public:
  // Every entry of `links` carries `bytes` (a link listed twice, twice).
  void add(std::span<const uint32_t> links, double bytes);
  // The loaded links in ascending order and their bytes, into the two vectors; then empty again.
  void take(std::vector<uint32_t>& links, std::vector<double>& bytes);

 private:
  std::vector<double> bytes_on_;  // by link
  std::vector<uint32_t> used_;
};

// Per physical link the set crosses (ascending link index, each once): its bytes.
struct LinkLoad {
  std::vector<uint32_t> links;
  std::vector<double> bytes;
  double latency_s = 0;  // the longest route's latency (sum of its links' latency_s)
};

// Errors: a route the Topology cannot give (its error), a transfer whose endpoints are out of range
// or whose bytes are negative or not finite (input errors naming the transfer). Transfers with
// src == dst or zero bytes put nothing on the network.
Result<LinkLoad> link_load(const ChipGraph& chip, std::span<const Transfer> transfers);

// The set alone on an idle network: max over its links of bytes / bytes_per_s, plus latency_s.
double alone_seconds(const ChipGraph& chip, const LinkLoad& load);

}  // namespace tessera::sim
