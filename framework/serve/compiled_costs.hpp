// The served machine as the compiler sees it: each grid point of the step-cost model compiled and
// simulated through the driver (one design; flat or a parallel strategy), the grid kept in a cache
// on disk, and the KV cache's room: the off-chip memory the compiled model leaves after its
// weights.
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

// Usage error unless `request` names a zoo decoder (serving needs its decode and prefill modes).
Status check_servable(const ModelRequest& request);

// One step compiled and simulated: its simulated time (a strategy's composed step) and energy.
// Errors: the driver's and the strategy's (a shape that does not fit, a failing plugin).
Result<StepCost> simulate_step(ServedMachine& machine, Phase phase, int64_t batch, int64_t seq);

// What keys a cached grid: the model and its types, the chip file's text, the target, design,
// strategy, the axes and Tessera's version. A grid of another key is never read.
std::string grid_key(const ServedMachine& machine, const GridAxes& axes);

// The grid from `cache_dir` when a file of this key is there, else built (build_cost_grid over
// simulate_step) and written there. `built` says which. Errors: build_cost_grid's, a cache file
// that cannot be written (files.hpp), an unreadable one.
Result<CostGrid> cached_cost_grid(ServedMachine& machine, const GridAxes& axes,
                                  const std::filesystem::path& cache_dir,
                                  const std::function<void(int, int)>& progress, bool& built);

// $TESSERA_CACHE_DIR, else $XDG_CACHE_HOME/tessera, else ~/.cache/tessera; then /serve.
std::filesystem::path default_cache_dir();

// The KV cache's room on the machine (all its chips): the off-chip capacity less the weights (and
// constants and inputs) of the compiled model, in blocks of `block_tokens` positions, less what
// the decode steps at the room's edge (one sequence, and `max_batch` of them) spill off chip.
struct KvRoom {
  double capacity_bytes = 0, weight_bytes = 0;
  double bytes_per_token = 0;  // K and V of every layer, from the model's KV-cache tensors
  int64_t block_tokens = 16;
  int64_t blocks = 0;
  int64_t tokens() const { return blocks * block_tokens; }
};
// Input errors: a chip that states no off-chip capacity, weights that leave no room for a block.
Result<KvRoom> kv_room(const ServedMachine& machine, int64_t block_tokens, int64_t max_batch);

// The most tokens one request may hold: the KV room, or the model's learned positions when fewer;
// `why` says which ("the KV cache's 61234 tokens on wormhole-t3000").
int64_t request_context_limit(const ServedMachine& machine, const KvRoom& room, std::string& why);

}  // namespace tessera::serve
