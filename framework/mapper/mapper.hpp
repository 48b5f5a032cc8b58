// TCM, the whole search for one Einsum on one architecture: every dataplacement, its
// non-redundant dataflows, one curried model per dataflow, and the tile-shape search with exact
// pruning — parallel over dataplacements with oneTBB. The mapping returned is optimal for the model
// (reference_model.hpp) and the same for any thread count.
//
// Threads and lifetimes: run_mapper searches in a oneTBB arena of MapperOptions::threads threads,
// the caller among them, and, when `progress` is set, starts one watcher std::thread that calls it;
// both are done before it returns. It borrows `problem`, `hierarchy` and `options` for the call
// only and keeps no state between calls, so calls may run at once (the chip's core mapper calls it
// from the planner's workers, one thread each: chip/core_cost.cpp). The MapResult owns its data;
// its LoopTrees index the Problem's ranks and the Hierarchy's levels, so render them with the same
// ones. diagnose_overflow only reads, on the calling thread.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "framework/mapper/evaluation.hpp"
#include "framework/mapper/objective.hpp"
#include "framework/mapper/tile_search.hpp"

namespace tessera::mapper {

struct MapperProgress {
  size_t dataplacements_done = 0;
  size_t dataplacements = 0;
  uint64_t evaluated = 0;
  double seconds = 0;
};

struct MapperOptions {
  Objective objective = Objective::edp;
  int pareto_level = 0;  // for Objective::pareto: the level whose usage is traded
  int threads = 0;       // 0: every hardware thread
  // Called about once a second from a watcher thread while the search runs (may be empty): that
  // thread only, never the caller's or a search worker, one call at a time, and never after
  // run_mapper returns (it waits for a call in progress). A search shorter than a second gets no
  // call, and none marks the end. The counts are read while the workers run, each on its own.
  std::function<void(const MapperProgress&)> progress;
};

// Sizes of the mapspace before and after each pruning stage (log10 for the huge ones).
struct MapspaceStats {
  size_t dataplacements = 0;
  double log10_dataflows_full = 0;    // Σ over dataplacements of all loop orders
  size_t dataflows = 0;               // non-redundant dataflows (templates) searched
  double log10_mapspace_full = 0;     // Σ over dataplacements of |DF|·|TS|, unpruned
  double log10_tile_shapes_full = 0;  // Σ over dataplacements of |TS| (every rank in every slot)
  double log10_after_dataflow = 0;    // Σ over templates of their |TS|
  TileSearchStats tile;
};

// Seconds per stage, summed over threads (CPU time), and the wall time of the whole search.
struct StageTimes {
  double dataplacement = 0;
  double dataflow = 0;
  double compile = 0;
  double tile_search = 0;
  double wall = 0;
};

struct MapResult {
  // The best mapping (energy, latency, edp) or the Pareto front sorted by latency; empty when no
  // mapping fits, then `infeasible` says which level overflows with which tensors.
  std::vector<Candidate> mappings;
  std::string infeasible;
  MapspaceStats stats;
  StageTimes times;
};

MapResult run_mapper(const Problem& problem, const Hierarchy& hierarchy,
                     const MapperOptions& options);

// Why no mapping can fit, naming the level and the tensors that overflow it even with one-element
// tiles; empty if the smallest tiles fit everywhere.
std::string diagnose_overflow(const Problem& problem, const Hierarchy& hierarchy);

}  // namespace tessera::mapper
