// A mapping as a LoopTree (docs/mapper.md): from the top, storage nodes ("level L keeps a tile of
// tensor T"), temporal loops and spatial loops over ranks, and an implicit compute node at the
// bottom. A storage node's tile spans the loops below it; it is refetched once per iteration of
// the temporal loops above it. Spatial loops of a fan-out at level f sit below every storage node
// of a level above f and above every storage node at level f or below.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "framework/common/status.hpp"
#include "framework/mapper/hierarchy.hpp"
#include "framework/mapper/problem.hpp"

namespace tessera::mapper {

enum class NodeKind : uint8_t { storage, temporal, spatial };

struct LoopTreeNode {
  NodeKind kind = NodeKind::temporal;
  int level = 0;      // storage: the memory level
  int tensor = 0;     // storage: the tensor kept
  int rank = 0;       // loops: the rank iterated
  int fanout = 0;     // spatial: index into Hierarchy::fanouts
  int64_t bound = 1;  // loops: iterations

  bool is_loop() const { return kind != NodeKind::storage; }
  bool operator==(const LoopTreeNode&) const = default;
};

struct LoopTree {
  std::vector<LoopTreeNode> nodes;  // top to bottom; the compute node is implicit after the last
  bool operator==(const LoopTree&) const = default;
};

// Structural rules a LoopTree must obey to mean anything: the backing store's nodes (one per
// tensor) first, storage nodes in hierarchy order and allowed by keep lists, each rank's loop
// bounds multiplying to its extent, spatial loops at their fan-out's place and within its size.
// Capacity is not checked here (overflow is an infeasible result, not a malformed tree). The
// error names the offending node by index (`node 4`).
Status check_looptree(const LoopTree& tree, const Problem& problem, const Hierarchy& hierarchy);

// One line per node, loops indenting what they enclose:
//   MainMemory keeps Q, K, QK
//   for m1 in [0:8)
//     GlobalBuffer keeps Q
//   ...
// Loops over a rank are numbered from the innermost (m0) outward, as in the TCM paper.
// `notes[i]`, when given and non-empty, is appended to node i's line.
std::string render_looptree(const LoopTree& tree, const Problem& problem,
                            const Hierarchy& hierarchy, const std::vector<std::string>& notes = {});

// `m1` for loop node i (its rank's name and its position counted from the innermost).
std::string loop_name(const LoopTree& tree, size_t i, const Problem& problem);

}  // namespace tessera::mapper
