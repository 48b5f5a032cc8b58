// Attention whose scores do not fit the chip's SRAM, computed in tiles as the stacks do: the chain
// scores → (soft-cap) → softmax → weighted sum of values cut into blocks of queries
// (chain_split.hpp), each block's scores and probabilities together at most the chip's SRAM
// (cores × SRAM per core), computed block after block, so no op holds prompt × prompt scores. A
// query's softmax still sees all its keys inside its block, so blocks need no rescaling: the FLOPs
// are attention's; each block reads all the keys and values, which is what a schedule tiled over
// queries moves; within a block the partitioner may split the keys over cores, the softmax's
// statistics then combined (the online softmax's rescale, docs/planner.md "Per-op plans").
#pragma once

#include <vector>

#include "framework/chip/machine.hpp"
#include "framework/ir/graph.hpp"
#include "framework/planner/plan.hpp"

namespace tessera::planner {

// At most this many blocks per attention (3 ops each, per layer: Llama 2 7B prefill at 128K
// tokens on ipu-pod4-hbm3e needs 1024, 99,203 ops in all); beyond, a block's scores exceed the
// SRAM and count as activations beyond it (planner/capacity.hpp).
inline constexpr int64_t kMaxBlocks = 1024;

// One chain split (OpSplit::through set) per attention of `graph` whose scores and probabilities
// exceed the machine's SRAM: along the longest rank the whole chain keeps (the queries), into the
// fewest blocks, a power of two, that fit the SRAM (at most one query per block, at most
// kMaxBlocks). Empty when every attention fits.
std::vector<OpSplit> attention_tiles(const ir::Graph& graph, const Machine& machine);

}  // namespace tessera::planner
