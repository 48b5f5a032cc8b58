// The chips of a machine and the links between them, as collectives see them: one directed
// ChipLink per ordered pair of neighbouring chips, however many physical links join them. What
// happens inside a chip (the on-chip route to its Ethernet or IPU-Link port) is not here: a
// collective's messages are priced on the chip-to-chip links alone.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <vector>

#include "framework/common/status.hpp"
#include "framework/plugin/objects.hpp"

namespace tessera::collective {

// No chip, no link, no message: where an index is absent.
inline constexpr uint32_t kNone = std::numeric_limits<uint32_t>::max();

// The links from one chip to another, directed. Parallel physical links between the same two
// chips are one ChipLink: their rates summed, `links` counting them, the smallest latency.
struct ChipLink {
  uint32_t from_chip = 0, to_chip = 0;
  double bytes_per_s = 0;  // > 0: all `links` together, one direction
  double latency_s = 0;    // >= 0: one traversal, first byte in to first byte out
  uint32_t links = 1;      // physical links summed into this one
};

struct ChipGraph {
  uint32_t chips = 0;
  std::vector<ChipLink> links;  // sorted by (from_chip, to_chip), one per ordered pair
  // The fixed cost of issuing one message (software, a DMA descriptor, a handshake), paid by the
  // sending chip one message after another: a message's flow starts this long after the chip is
  // free to issue it, and the chip issues its next message only then. 0: messages cost only
  // latency and bytes. It is what makes few large steps (trees) beat many small ones (rings) for
  // short messages.
  double message_overhead_s = 0;

  ChipGraph() = default;
  // Chips 0 .. chips-1 and `links` between them (each from_chip, to_chip < chips and different,
  // bytes_per_s > 0: the caller's to keep). Links between the same ordered pair are merged as
  // ChipLink says, whatever their `links` count.
  ChipGraph(uint32_t chips, std::span<const ChipLink> links);

  // ChipLink indices along a shortest path (fewest hops) from chip `from` to chip `to`, in order;
  // empty when from == to. Ties go to the path found first by a breadth-first search that tries
  // each chip's links by ascending destination chip. Errors: a chip outside the graph, no path.
  Result<std::vector<uint32_t>> route(uint32_t from, uint32_t to) const;
  // Hops of route(from, to) for every chip `to` from `from` (< chips); nullopt where unreachable.
  std::vector<std::optional<uint32_t>> hops_from(uint32_t from) const;
  // The index of the link from `from` to `to`, or nullopt when they are not direct neighbours.
  std::optional<uint32_t> link_between(uint32_t from, uint32_t to) const;

 private:
  // Per chip: indices of the links leaving it, by ascending to_chip (a range of `links`).
  std::vector<uint32_t> first_out_;
  // Breadth-first search from `from`: per chip, the link it was reached by (kNone: not reached).
  std::vector<uint32_t> reached_by(uint32_t from) const;
};

// The chip graph of a topology: its TESSERA_LINK_CHIP_TO_CHIP links, each between the chips of
// its two endpoints, merged per ordered pair of chips. Errors: the topology's own (plugin errors),
// a chip-to-chip link whose endpoints are on one chip.
Result<ChipGraph> chip_graph(const Topology& topology);

// A group of chips laid out as an x by y mesh: chips[row * x + column], and every two chips next
// to each other in a row or a column joined both ways by a direct link. Other links (a torus's
// wraparound) may exist too.
struct ChipMesh {
  uint32_t x = 0, y = 0;
  std::vector<uint32_t> chips;
};

// The group as a mesh with x, y > 1, when it is one (found from its links alone: the corner with
// the smallest chip number is (0, 0), its neighbour with the smaller number is (1, 0)); nullopt
// otherwise. `group` holds distinct chips of the graph.
std::optional<ChipMesh> mesh_of(const ChipGraph& graph, std::span<const uint32_t> group);

// The group's chips in an order for a ring: each chip and the next (and the last and the first)
// direct neighbours when the group has such a cycle — a mesh with an even side goes in snake
// order, any other group is searched for one (within a bounded effort) — and otherwise few hops
// around: a mesh with both sides odd has one step of two hops, any other group the order a
// nearest-neighbour tour improved by 2-opt finds. Starts at group[0]. `group` holds distinct
// chips of the graph.
std::vector<uint32_t> ring_order(const ChipGraph& graph, std::span<const uint32_t> group);

}  // namespace tessera::collective
