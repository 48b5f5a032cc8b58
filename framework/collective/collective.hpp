// Chip-to-chip collectives, the communication of parallel strategies that span chips: tensor
// parallel all-reduces, pipeline parallel sends, data parallel gradient all-reduces, expert
// parallel all-to-alls. A Collective says what is exchanged among which chips; an algorithm turns
// it into a schedule, messages between chips with the messages each waits for.
// sim/collective_sim.hpp moves schedules on the simulator's flow network, one alone (the price the
// planner weighs strategies by) or several at once (what the simulator measures).
//
// Units: bytes and seconds. Every call only reads its arguments and returns values it owns.
// Errors (input errors, exact messages in tests/unit/collective): a group with fewer than two chips
// (send_recv: not exactly two), a repeated chip, a chip outside the graph, bytes not finite and
// > 0, two chips of the group with no path between them, an algorithm the kind does not have, an
// algorithm the group cannot run (ring_2d on a group that is no mesh, tree all-gather on a group
// that is no power of two).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "framework/collective/chip_graph.hpp"
#include "framework/common/status.hpp"

namespace tessera::collective {

enum class CollectiveKind : uint8_t {
  all_reduce,
  all_gather,
  reduce_scatter,
  send_recv,
  all_to_all
};

enum class CollectiveAlgorithm : uint8_t {
  automatic,           // the cheapest the kind and group allow (sim/collective_sim.hpp)
  ring,                // around ring_order(): reduce-scatter and/or all-gather, p - 1 steps each
  bidirectional_ring,  // half the data each way around the same ring
  ring_2d,             // a mesh group: along its rows, then its columns, then its rows again
  tree,                // binomial reduce to group[0] and broadcast back; all-gather and
                       // reduce-scatter: recursive doubling and halving (power-of-two groups)
  direct,              // every chip sends each peer its share straight, in one step per phase
};

const char* to_string(CollectiveKind kind);
const char* to_string(CollectiveAlgorithm algorithm);
// Input errors naming the text given and listing the valid names.
Result<CollectiveKind> parse_collective_kind(std::string_view text);
Result<CollectiveAlgorithm> parse_collective_algorithm(std::string_view text);

// `bytes` is the message size as NCCL's tests define it:
//   all_reduce      each chip's buffer (in and out)
//   all_gather      each chip's OUTPUT: each chip contributes bytes / p
//   reduce_scatter  each chip's INPUT: each chip keeps bytes / p of the reduction
//   all_to_all      each chip's whole send buffer: bytes / p to each peer (and itself)
//   send_recv       what group[0] sends to group[1]
// `group` lists the chips taking part (p of them), in the order trees root at (group[0]) and
// rings start from.
struct Collective {
  CollectiveKind kind = CollectiveKind::all_reduce;
  CollectiveAlgorithm algorithm = CollectiveAlgorithm::automatic;
  double bytes = 0;
  std::vector<uint32_t> group;
  bool operator==(const Collective&) const = default;
};

// The algorithms a kind has, in enum order, `automatic` not included.
std::span<const CollectiveAlgorithm> algorithms_of(CollectiveKind kind);

// The collective's own errors (group, chips, bytes, reachability), before any algorithm.
Status check_collective(const ChipGraph& graph, const Collective& collective);

// One message of a schedule: `bytes` from src_chip to dst_chip along graph.route(). It may start
// only when every message listed in `after` (indices into the same schedule, all smaller than its
// own) has arrived: the data it forwards or reduces is there.
struct Message {
  uint32_t src_chip = 0, dst_chip = 0;
  double bytes = 0;
  std::vector<uint32_t> after;
};

// The messages of `collective` under algorithm `concrete` (not automatic: choose one with
// sim::price_collective()), whatever collective.algorithm says. Errors: check_collective's; an
// algorithm the kind has not (the message lists the ones it has); one the group cannot run (the
// message says why: that error's code is failed_precondition, so that pricing can skip it).
Result<std::vector<Message>> schedule(const ChipGraph& graph, const Collective& collective,
                                      CollectiveAlgorithm concrete);

}  // namespace tessera::collective
