// Chip-to-chip collectives run on the simulator's flow network: one or several at once (four
// tensor-parallel groups all-reducing together, a data-parallel all-reduce beside a pipeline's
// sends), sharing the chip links max-min fairly, event by event; every message goes as soon as
// what it waits for has arrived. One collective alone on the graph, moved so, is also the
// planner's price of it (price_collective): planner and simulator read one computation, and
// differ only by what concurrent collectives do to each other on links they share.
#pragma once

#include <map>
#include <span>
#include <tuple>
#include <vector>

#include "framework/collective/collective.hpp"
#include "framework/collective/price.hpp"
#include "framework/common/status.hpp"

namespace tessera::sim {

struct CollectiveRun {
  // Per collective, in the order given: seconds from 0 (when all start) to its last arrival.
  std::vector<double> seconds;
  // Per collective: the algorithm it ran (automatic: the one price_collective() chose alone).
  std::vector<collective::CollectiveAlgorithm> algorithms;
  std::vector<double> link_bytes;  // per ChipLink of the graph: the bytes that crossed it
  double total_link_bytes = 0;     // link_bytes summed: what energy charges
  double makespan_s = 0;           // the last arrival of all
};

// Each message starts when every message it waits for has arrived and its chip has issued the ones
// before it (ChipGraph::message_overhead_s each); its first byte then crosses its route's
// latency, its bytes flow along the route's links as one flow, and it arrives when the last byte
// is through. Errors: each collective's (schedule()'s and price_collective()'s, prefixed with its
// index).
Result<CollectiveRun> simulate_collectives(const collective::ChipGraph& graph,
                                           std::span<const collective::Collective> concurrent);

// The collective alone on the graph, moved as simulate_collectives moves it: what the planner
// prices it at. collective.algorithm fixed: its schedule's run (schedule()'s errors). automatic:
// the fastest run among the algorithms the kind has and the group can run, ties to the earlier in
// CollectiveAlgorithm's order.
Result<collective::CollectivePrice> price_collective(const collective::ChipGraph& graph,
                                                     const collective::Collective& collective);

// What the planner prices a collective's use at: its copies (every replica's, which run at once)
// moved together as simulate_collectives moves them, each under the algorithm copy 0 runs fastest
// alone (or the one it fixes): seconds is the slowest copy's, the rest copy 0's alone. One copy:
// price_collective's figure. Each answer is computed once per list of copies (kind, algorithm,
// bytes, group each): a strategy prices the same all-reduce after every layer's attention and
// MLP. Borrows `graph` for its own lifetime; one thread at a time. Errors: price_collective's and
// simulate_collectives'.
class CollectivePricer {
 public:
  explicit CollectivePricer(const collective::ChipGraph& graph) : graph_(graph) {}
  Result<collective::CollectivePrice> price(std::span<const collective::Collective> copies);

 private:
  using Key = std::vector<std::tuple<collective::CollectiveKind, collective::CollectiveAlgorithm,
                                     double, std::vector<uint32_t>>>;
  Result<collective::CollectivePrice> alone(const collective::Collective& collective);
  const collective::ChipGraph& graph_;
  std::map<Key, collective::CollectivePrice> known_;
};

}  // namespace tessera::sim
