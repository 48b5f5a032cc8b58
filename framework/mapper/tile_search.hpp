// Tile-shape search for one template (TCM §V-D): loop bounds are chosen one loop at a time — the
// innermost loop of a rank first, then that rank's next loop outward until the rank is done, then
// the next rank (ranks inside a sum or not indexing the output first, whose parts are bounded
// loosely while open; then fewest factorisations over its loops; then the one whose innermost
// loop is deepest, TCM's order) — and a partial choice is dropped when
//   - its smallest possible usage of some level already exceeds the capacity, or
//   - its best possible score (every unchosen bound at the value that minimises each part of the
//     curried model's expressions, and the compute steps at least what the fan-outs left allow)
//     cannot beat a mapping already kept.
// Both bounds are exact lower bounds (compiled_model.hpp), so no optimal mapping is ever dropped.
// A line-buffer template's loop under its storage node is not given bound 1 unless the template
// is the first candidate's: that mapping repeats, or is dominated by, one of another template.
#pragma once

#include <atomic>
#include <cstdint>

#include "framework/mapper/compiled_model.hpp"
#include "framework/mapper/objective.hpp"

namespace tessera::mapper {

struct TileSearchStats {
  uint64_t partial_shapes = 0;    // partial tile shapes visited (loop-bound choices made)
  uint64_t evaluated = 0;         // complete tile shapes evaluated with the curried model
  uint64_t pruned_capacity = 0;   // partial choices dropped: a level overflows
  uint64_t pruned_objective = 0;  // partial choices dropped: cannot beat what is kept
  uint64_t pruned_fanout = 0;     // choices not made: more instances than a fan-out has
  uint64_t pruned_redundant = 0;  // choices not made: a line-buffer template's bound 1 (repeats)
  TileSearchStats& operator+=(const TileSearchStats& o);
};

struct TileSearchOptions {
  Objective objective = Objective::edp;
  int pareto_level = 0;  // the level whose usage the Pareto front trades against latency
  // Counts evaluated mappings for a progress line (may be null).
  std::atomic<uint64_t>* progress = nullptr;
};

// Searches every tile shape of `model`'s template (index `template_index` in the deterministic
// enumeration) and offers the mappings that can be kept to `incumbent`.
TileSearchStats search_tile_shapes(const Problem& problem, const Hierarchy& hierarchy,
                                   const CompiledModel& model, size_t template_index,
                                   const TileSearchOptions& options, Incumbent& incumbent);

}  // namespace tessera::mapper
