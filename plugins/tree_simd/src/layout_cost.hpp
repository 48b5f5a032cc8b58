// Communication cost on the tree: what moving elements between blocks costs, and what an op's
// access pattern costs under a layout. A move climbs from its source block to the lowest common
// ancestor and descends to its destination; every edge it crosses is charged to the level of the
// edge's lower end, at that level's up or down rate. The top level's edges join its blocks to each
// other (JP7770865B2: "Level A blocks are connected to each other").
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "layout.hpp"
#include "tree_chip.hpp"

namespace tessera::plugins::tree {

struct LevelTraffic {
  uint64_t crossings = 0;   // element-edge crossings, up and down
  double bytes = 0;         // crossings x element bytes
  double link_seconds = 0;  // Σ bytes / rate of the edge crossed (the cost weighted per level)
  double up_bytes = 0, down_bytes = 0;
};

class Traffic {
 public:
  explicit Traffic(const TreeChip& chip);

  // `elements` elements from flat block `from` of level `from_level` to flat block `to` of
  // `to_level`.
  void add_move(uint32_t from_level, uint64_t from, uint32_t to_level, uint64_t to,
                uint64_t elements = 1);
  void add(const Traffic& other);

  const std::vector<LevelTraffic>& per_level() const { return levels_; }
  uint64_t moves() const { return moves_; }  // moves that left their block
  uint64_t crossings() const;
  double link_seconds() const;  // the sum of every crossing's cost
  // Time with each level's traffic spread evenly over its edges, levels one after another.
  double spread_seconds() const;

 private:
  const TreeChip* chip_;
  std::vector<LevelTraffic> levels_;
  uint64_t moves_ = 0;
};

// The deepest level at which the ancestors of two blocks coincide; -1 when they differ even at
// the top level (they meet only through the top-level links).
int32_t common_level(const TreeChip& chip, uint32_t level_a, uint64_t a, uint32_t level_b,
                     uint64_t b);

// What an op does with the elements of one tensor, as pairs of elements it combines.
struct AccessPattern {
  enum class Kind { elementwise, stencil, reduce };
  Kind kind = Kind::elementwise;
  uint32_t window = 1;       // stencil: k of a k x k window (k odd) over the last two axes
  uint32_t reduce_axis = 0;  // reduce: the axis summed over
  double ops_per_element = 1;
  std::string name;  // as given, e.g. "stencil3x3"
};

// stencilKxK (odd K, 3..15), row-reduce (sum over the last axis: per-row statistics),
// col-reduce (over the first axis), matmul-lhs (its contraction axis is the last),
// matmul-rhs (the first), elementwise. Throws INVALID_ARGUMENT listing the choices.
AccessPattern parse_access_pattern(const std::string& text, uint32_t rank);
std::string access_pattern_names();

// The traffic of `pattern` on a tensor in `layout`:
//  * stencil: every element x combines with each x + d, d in the window (inside the tensor); a
//    pair in different blocks moves one element;
//  * reduce: each block sums its part of every output first; each other block holding part of an
//    output sends one partial sum to the block of the output's first element;
//  * elementwise: nothing moves.
// Throws RESOURCE_EXHAUSTED for tensors over 2^24 elements (every element is visited).
Traffic pattern_traffic(const TreeLayout& layout, const AccessPattern& pattern);

}  // namespace tessera::plugins::tree
