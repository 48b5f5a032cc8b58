// Dataflows of one dataplacement: the loops in each slot between consecutive storage nodes and
// their order. Slot k lies above the k-th storage node below the backing store (the last slot is
// above the compute node). TCM's pruning (§IV-B, §V-B), exact for this model:
//   - a temporal loop in a slot is helpful only if it indexes the tensor of the storage node below
//     (else moving it under that node cuts its refetches and changes nothing else) — not checked
//     in the last slot — and does not fully index the tensor of the node above (else moving it
//     above that node shrinks its tile and keeps its traffic) — not checked under the backing
//     store;
//   - the order within a slot does not matter except for the loop directly under the upper node:
//     a rank in a sum of that node's index (p in p+r) there makes it a line buffer, so each such
//     rank gets a dataflow with it first (even if it does not index the tensor below, as its line
//     buffer may save capacity); the rest follow in rank order;
//   - one loop per rank per slot (two would multiply into one).
// Spatial loops: one per fan-out dimension and allowed rank, at the fan-out's place (after the
// temporal loops of its slot). Ranks of extent 1 get no loops.
#pragma once

#include <vector>

#include "framework/mapper/dataplacement.hpp"
#include "framework/mapper/looptree.hpp"

namespace tessera::mapper {

// Ranks (extent > 1) whose temporal loops are helpful in each slot; [slot][i], in rank order.
std::vector<std::vector<int>> helpful_ranks(const Problem& problem, const Hierarchy& hierarchy,
                                            const Dataplacement& dp);

// The tree for `dp` with `slot_ranks[k]` as slot k's temporal loops in that order, spatial loops at
// their places, every bound 1.
LoopTree build_tree(const Problem& problem, const Hierarchy& hierarchy, const Dataplacement& dp,
                    const std::vector<std::vector<int>>& slot_ranks);

// The non-redundant dataflows of `dp` as trees with every bound 1, in a fixed order.
std::vector<LoopTree> pruned_dataflows(const Problem& problem, const Hierarchy& hierarchy,
                                       const Dataplacement& dp);

// Ranks with extent > 1 that a spatial loop of fan-out dimension `f` may iterate.
std::vector<int> spatial_ranks(const Problem& problem, const Hierarchy& hierarchy, int f);

}  // namespace tessera::mapper
