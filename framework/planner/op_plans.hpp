// Per-op plans (Elk §3.1, §3.3, §4.3): the ways one op can run on the chip and the ways its
// HBM data can wait on chip before it runs, each reduced to a Pareto curve. Made by the
// partitioner (partition/), read by the scheduler. Sizes are bytes per core; times are seconds.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "framework/planner/pricing.hpp"

namespace tessera::planner {

// One digit of a plan's placement given as cores (a plugin's plan: tree_simd's levels): `count`
// blocks of rank `rank`, the Topology core index moving `core_stride` per block.
struct CoreDigit {
  int rank = 0;
  int64_t count = 1;
  int64_t core_stride = 0;
  bool operator==(const CoreDigit&) const = default;
};

// The execution state: a spatial partition of the op's ranks over the cores × a temporal
// ("compute-shift") schedule in which shared operands are either replicated or split and rotated
// between cores step by step.
struct ExecPlan {
  std::string label;          // e.g. "b/16 n/368 · rotate k×4"
  std::vector<int64_t> tile;  // per rank, in the Einsum's loop order: extent one core computes
  uint32_t cores_used = 0;
  double exec_bytes_per_core = 0;  // SRAM of the whole execution state (double buffers included)
  // The part of exec_bytes_per_core holding HBM-resident operands (weights, KV cache): what the
  // preload plus distribute_data must have put on each core before local_execute starts.
  double hbm_operand_bytes_per_core = 0;
  double compute_s = 0;  // slowest core, all temporal steps (the target's CostModel)
  double shift_s = 0;    // rotations of shared operands while executing
  // shift_s with a preload in flight beside the execution, at pricing.hpp's kPreloadBusy points
  // (0: not priced on the routes; shift_s stands).
  BesideSeconds shift_s_beside{};
  double sync_s = 0;       // barriers between steps
  double shift_bytes = 0;  // total bytes moved core-to-core while executing
  // Of the partial results merged while executing, the bytes that travel between chips (the
  // partials of one output tile on consecutive cores, chips holding consecutive cores; 0 on one
  // chip). Their time is in shift_s, priced on the chip-to-chip links; the program moves them
  // over those links (reduce_bytes).
  double cross_chip_bytes = 0;
  // Where the tiles sit and what moves between them (op_traffic.hpp); factors empty: the plan does
  // not say (a plugin's plan).
  std::vector<int64_t> factors;  // per rank, in the Einsum's loop order: cores it is split over
  int rotated_operand = -1;      // input operand rotated between the cores sharing it; -1: none
  int64_t rotation_steps = 1;
  double combine_bytes = 0;  // the part of shift_bytes merging partial results (a tree per tile)
  // The placement of the tiles on the plan's cores (op_traffic.hpp): every rank once, in the order
  // of the cores' mixed radix over the factors, fastest first. Empty: not chosen by the planner
  // (op_traffic.hpp's op_traffic then chooses).
  std::vector<int> placement;
  // Where a plugin's plan puts its tiles, as the plugin said (plugin_abi.h, core_digits): tile
  // cores are Σ digit × core_stride on the chip's Topology; a rank's block counts in mixed radix
  // over its digits, the first listed fastest, and the plan's cores 0..cores_used-1
  // (op_traffic.hpp) in mixed radix over all digits in their order. Empty: the plan's cores sit on
  // each chip's first cores in order (op_traffic.hpp's chip_of), the tiles as `placement` says.
  std::vector<CoreDigit> core_digits;
  // One core's step tile as the cost model was asked about it, in the orientation chosen: what a
  // report shows the core's mapping of (chip/core_cost.hpp). Unset when no tile was timed here (a
  // plugin plan on the plugin's own cost model).
  std::optional<tessera_tile_query> core_tile;
  // An op whose off-chip operands stay in SRAM across steps (residency.hpp): their home, each
  // byte once spread over every core, is held outside exec_bytes_per_core (which keeps only the
  // rest of the execution state), and as the op starts they move from the home to the execution
  // layout, as a preload's distribute_data would (priced as the least preload plan's: the home
  // on the plan's cores). All 0 for an op that is not resident.
  double home_bytes_per_core = 0;
  double home_distribute_bytes = 0;
  double home_distribute_s = 0;
  double time_s() const { return home_distribute_s + compute_s + shift_s + sync_s; }
};

// The preload state of an op for one of its execution plans: the layout its HBM data waits in.
// Less replication needs less space and more distribute_data traffic when the op starts.
struct PreloadPlan {
  std::string label;                  // e.g. "replicate ×1"
  double preload_bytes_per_core = 0;  // SRAM held from the preload's start until the op runs
  double hbm_to_core_bytes = 0;  // bytes the HBM controllers put on the network (copies counted)
  double distribute_bytes = 0;   // total bytes distribute_data moves core-to-core
  double distribute_s = 0;       // distribute_data's time, sync included
  // The preload's time on the network alone, the memory's own rate left out, when the planner
  // priced it on the chip's routes (pricing.hpp); absent: the Machine's per-core rates price it.
  std::optional<double> network_s;
  BesideSeconds distribute_s_beside{};  // beside a preload in flight, as ExecPlan::shift_s_beside
};

// All plans of one class of identical ops (ir::identical_ops), searched once.
struct OpPlans {
  int representative_op = -1;  // the class's first op in the graph
  double hbm_read_bytes = 0;   // from HBM (weights, KV cache, inputs): ir::op_cost().hbm_bytes_in
  double hbm_write_bytes = 0;  // to HBM (a KV-cache update)
  double flops = 0;
  // Pareto front: exec_bytes_per_core strictly ascending, time_s() strictly descending. Never
  // empty for a feasible op (the partitioner reports an op that fits nowhere as an error).
  std::vector<ExecPlan> exec;
  // preload[e]: the Pareto front for exec[e], preload_bytes_per_core strictly ascending,
  // distribute_s strictly descending. Empty lists when the op reads nothing from HBM.
  std::vector<std::vector<PreloadPlan>> preload;
  // Its off-chip operands stay in SRAM across steps (residency.hpp): nothing is preloaded
  // (hbm_read_bytes and hbm_write_bytes 0, `preload` empty), each exec plan's home_* set.
  bool resident = false;

  // The least preload state any exec plan can wait in (0: the op preloads nothing).
  double smallest_preload_bytes_per_core() const {
    double least = std::numeric_limits<double>::infinity();
    for (const auto& front : preload)
      if (!front.empty()) least = std::min(least, front.front().preload_bytes_per_core);
    return std::isfinite(least) ? least : 0;
  }
};

}  // namespace tessera::planner
