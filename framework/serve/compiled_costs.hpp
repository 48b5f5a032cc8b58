// The served machine as the compiler sees it: each grid point of the step-cost model compiled and
// simulated through the driver (one design; flat or a parallel strategy), the grid kept in a cache
// on disk. The KV cache's room on it is kv_room.hpp's.
#pragma once

#include <filesystem>
#include <functional>
#include <optional>
#include <string>

#include "framework/driver/driver.hpp"
#include "framework/parallel/strategy.hpp"
#include "framework/serve/step_cost.hpp"

namespace tessera::serve {

// What is served and how each step is compiled. `request` is the zoo decoder with its element
// types (batch, seq and mode are set per point). Borrowed: `plugins` and `chip` outlive it.
struct ServedMachine {
  PluginSet* plugins = nullptr;
  driver::OpenChip* chip = nullptr;
  ModelRequest request;
  planner::Design design = planner::Design::elk_full;
  std::optional<parallel::ParallelStrategy> strategy;  // nullopt: flat
  std::string strategy_text = "flat";
};

// The replicas the strategy runs (its dp: given, or the chips tp x pp leave); 1 when flat. Each is
// an independent server (event_loop.hpp).
int64_t replicas(const ServedMachine& machine);

// The batch every decode grid batch is a multiple of: the strategy's micro-batches (a pipeline
// splits each step's batch into them), 1 when flat.
int64_t grid_batch_step(const ServedMachine& machine);

// Usage error unless `max_batch` is a multiple of grid_batch_step (its largest grid batch).
Status check_max_batch(const ServedMachine& machine, int64_t max_batch);

// `base` at one step: decode with `batch` sequences of `seq` positions, or a prefill of `seq`
// tokens.
ModelRequest step_request(const ModelRequest& base, Phase phase, int64_t batch, int64_t seq);

// Usage error unless `request` names a zoo decoder (serving needs its decode and prefill modes).
Status check_servable(const ModelRequest& request);

// One step compiled and simulated: its simulated time (a strategy's composed step) and energy. A
// prefill (one prompt) runs through a pipeline as one micro-batch, whatever the strategy's mb.
// Errors: the driver's and the strategy's (a shape that does not fit, a failing plugin).
Result<StepCost> simulate_step(ServedMachine& machine, Phase phase, int64_t batch, int64_t seq);

// What keys a cached grid: the model and its types, the chip file's text, the target, design,
// strategy, the axes, the refinement's threshold and bound, and Tessera's version. A grid of
// another key is never read.
std::string grid_key(const ServedMachine& machine, const GridAxes& axes);

// The grid from `cache_dir` when a file of this key is there, else built and refined
// (build_cost_grid over simulate_step) and written there. `built` says which. Errors:
// build_cost_grid's, a cache file that cannot be written (files.hpp), an unreadable one.
Result<CostGrid> cached_cost_grid(ServedMachine& machine, const GridAxes& axes,
                                  const std::filesystem::path& cache_dir,
                                  const std::function<void(int, int)>& progress, bool& built);

// $TESSERA_CACHE_DIR, else $XDG_CACHE_HOME/tessera, else ~/.cache/tessera; then /serve.
std::filesystem::path default_cache_dir();

}  // namespace tessera::serve
