// Chip-to-chip collectives run on the simulator's flow network: one or several at once (four
// tensor-parallel groups all-reducing together, a data-parallel all-reduce beside a pipeline's
// sends), sharing the chip links max-min fairly, event by event. Where price()
// (collective/price.hpp) assumes each dependency level waits for the slowest message of the level
// and each collective has its links to itself, this lets every message go as soon as what it
// waits for has arrived, and lets collectives slow each other down.
#pragma once

#include <span>
#include <vector>

#include "framework/collective/collective.hpp"
#include "framework/common/status.hpp"

namespace tessera::sim {

struct CollectiveRun {
  // Per collective, in the order given: seconds from 0 (when all start) to its last arrival.
  std::vector<double> seconds;
  // Per collective: the algorithm it ran (automatic: the one price() chose alone on the graph).
  std::vector<collective::CollectiveAlgorithm> algorithms;
  std::vector<double> link_bytes;  // per ChipLink of the graph: the bytes that crossed it
  double total_link_bytes = 0;     // link_bytes summed: what energy charges
  double makespan_s = 0;           // the last arrival of all
};

// Each message starts when every message it waits for has arrived and its chip has issued the ones
// before it (ChipGraph::message_overhead_s each); its first byte then crosses its route's
// latency, its bytes flow along the route's links as one flow, and it arrives when the last byte
// is through. Errors: each collective's (schedule()'s and price()'s, prefixed with its index).
Result<CollectiveRun> simulate_collectives(const collective::ChipGraph& graph,
                                           std::span<const collective::Collective> concurrent);

}  // namespace tessera::sim
