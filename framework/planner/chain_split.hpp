// A chain of ops cut alike into blocks computed one after the other: attention's scores, softmax
// and weighted sum of values in blocks of queries, so that only one block's scores exist at a
// time (attention_tiles.hpp decides where). A chain is consecutive ops each of which reads what
// the one before it writes, that value read by nothing else (no graph output, no view). The
// chain is cut along a rank of its first op that each op writes unchanged into the next one's
// input (the same dimension, indexed by that rank alone) and that the last op keeps in its
// output: block i of each op covers part i of the rank (parts as split.hpp cuts them), the
// values between the ops become one tensor per block (`<tensor>@<rank><i>/<blocks>`), and the
// last op's blocks write their parts of its output. So FLOPs are the chain's, and every block
// reads what it needs of the chain's other inputs (each block of scores reads all the keys).
#pragma once

#include <string>
#include <vector>

#include "framework/common/status.hpp"
#include "framework/ir/graph.hpp"
#include "framework/planner/plan.hpp"

namespace tessera::planner {

// Per op of the chain ops[first..last] (graph order), the rank it is cut along, starting from
// `rank` of the first; an input error when they do not form a chain that can be cut so.
Result<std::vector<std::string>> chain_ranks(const ir::Graph& graph, size_t first, size_t last,
                                             const std::string& rank);

// The rank of op j + 1 that continues `rank` of op j along a chain (it reads the dimension of op
// j's output that `rank` alone indexes, by one rank alone, and nothing else reads that value), or
// "" when there is none.
std::string continued_rank(const ir::Graph& graph, size_t j, const std::string& rank);

// The graph with every chain split (OpSplit::through names its last op) applied: each chain
// replaced by its blocks, block after block. Input errors: an op that does not exist, a chain
// that is none (above), a rank that cannot be cut into that many blocks, chains that overlap.
Result<ir::Graph> apply_chain_splits(const ir::Graph& graph, const std::vector<OpSplit>& chains);

}  // namespace tessera::planner
