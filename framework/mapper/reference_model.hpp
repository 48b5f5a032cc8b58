// The uncurried model: evaluates one complete LoopTree by walking it, with no precomputation. It is
// the definition the curried model (compiled_model.hpp) must reproduce exactly, and what
// `tessera map --evaluate` and the random-sampling baseline use. The semantics, per storage node s
// of tensor t at level l with parent node p (the node of t one level up) — docs/mapper.md:
//   tile      product over t's dimensions of Σ|c|·(size_r − 1) + 1, size_r = product of the r-loops
//             below s; a loop over a rank in a sum (p in p+r) directly under s makes s a line
//             buffer, which holds the tile without that loop but fetches all of it;
//   fills     F = product of temporal loops above s (refetch per iteration);
//   reads at p (per instance of p): F × tile × X, X = spatial loops between p and s that cannot
//             multicast t (they index t, or the fan-out does not multicast t);
//   output    the first of the N distinct tiles (N = temporal loops above s indexing t) needs no
//             read: fills (F − N) × tile, write-backs F × tile;
//   compute   reads the innermost node of each input once per step per unit (multicast merges),
//             updates the output's innermost node likewise.
#pragma once

#include "framework/mapper/evaluation.hpp"
#include "framework/mapper/looptree.hpp"

namespace tessera::mapper {

// `tree` must pass check_looptree. Invalid (with a reason) when a level overflows its capacity.
Evaluation evaluate_reference(const Problem& problem, const Hierarchy& hierarchy,
                              const LoopTree& tree);

}  // namespace tessera::mapper
