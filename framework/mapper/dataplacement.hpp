// Dataplacements: which storage nodes exist below the backing store and in what order. A level
// keeps every tensor it must and any subset of those it may; storage nodes follow the hierarchy
// (every node of level l above every node of level l+1, so a tensor's outer copy is above its inner
// one), and the nodes of one level may come in any order — that order is the tensors' reuse
// priority (TCM §III).
#pragma once

#include <vector>

#include "framework/mapper/hierarchy.hpp"
#include "framework/mapper/problem.hpp"

namespace tessera::mapper {

struct StorageNode {
  int level = 0;
  int tensor = 0;
  bool operator==(const StorageNode&) const = default;
};

// Storage nodes below the backing store's, top to bottom.
using Dataplacement = std::vector<StorageNode>;

// Every dataplacement, in a fixed order (levels outermost first, subsets and orders
// lexicographic), so a search over them is deterministic.
std::vector<Dataplacement> enumerate_dataplacements(const Problem& problem,
                                                    const Hierarchy& hierarchy);

}  // namespace tessera::mapper
