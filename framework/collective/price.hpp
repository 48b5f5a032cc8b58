// What a collective costs on a chip graph, as the planner weighs parallel strategies: the
// step-synchronous bound of its schedule. Messages fall into dependency levels (a message with
// nothing to wait for is level 0, any other one level past the latest it waits for); a level takes
//   max over chip links (bytes the level puts on it / its bytes_per_s)
//   + the largest path latency among its messages (a route's link latencies summed)
//   + message_overhead_s times the most messages one chip sends in it,
// and the levels run one after another. Alone on its links a ring all-reduce is then exactly
// 2 (p - 1) (alpha + n / (p B)), the bound of Thakur, Rabenseifner and Gropp (IJHPCA 2005).
// sim/collective_sim.hpp runs the same schedules without the barriers between levels and with
// links shared among collectives.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "framework/collective/collective.hpp"

namespace tessera::collective {

struct CollectivePrice {
  CollectiveAlgorithm algorithm = CollectiveAlgorithm::ring;  // the concrete one priced
  double seconds = 0;
  // Bytes summed over every chip link each message crosses (a message of n bytes over 3 hops
  // counts 3n): what energy charges at the chip file's chip_link_pj_per_byte.
  double link_bytes = 0;
  uint32_t links_used = 0;  // chip links that carry any byte
  uint32_t steps = 0;       // dependency levels
};

// collective.algorithm fixed: its schedule's price (schedule()'s errors). automatic: the cheapest
// algorithm the kind has and the group can run, ties to the earlier in CollectiveAlgorithm's
// order.
Result<CollectivePrice> price(const ChipGraph& graph, const Collective& collective);
// Every algorithm the kind has and the group can run, priced, in enum order (what a report shows
// was tried); collective.algorithm is ignored. Errors: check_collective's.
Result<std::vector<CollectivePrice>> price_all(const ChipGraph& graph,
                                               const Collective& collective);
// A schedule's price, named `algorithm`. Errors: a message waiting for itself or a later one
// (internal), a route's.
Result<CollectivePrice> price_schedule(const ChipGraph& graph, std::span<const Message> messages,
                                       CollectiveAlgorithm algorithm);

// graph.route() of every message, in order (a pair's route found once).
Result<std::vector<std::vector<uint32_t>>> message_routes(const ChipGraph& graph,
                                                          std::span<const Message> messages);
// The latency of a route: its links' latencies summed.
double route_latency_s(const ChipGraph& graph, std::span<const uint32_t> route);

}  // namespace tessera::collective
