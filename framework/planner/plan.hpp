// The Plan (Elk §4.5): what the planner decided for one design — per op the chosen execution
// and preload plans, the preload order, the SRAM allocation per core, and the estimated start/end
// of preload, distribution and execution. Saved as plan.yaml (plan_yaml.hpp); the input of code
// generation (framework/codegen) and of the simulator (framework/sim). Times are seconds from the
// start of one inference step (one decode token).
//
// "Elk §N" in the planner's comments: the paper "Elk: Exploring the Efficiency of Inter-core
// Connected AI Chips with Deep Learning Compiler Techniques" (MICRO'25, arXiv:2507.11506).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "framework/chip/energy.hpp"
#include "framework/chip/machine.hpp"
#include "framework/chip_spec/conventions.hpp"
#include "framework/planner/collective_op.hpp"
#include "framework/planner/op_plans.hpp"
#include "framework/planner/pricing.hpp"

namespace tessera::planner {

// Elk's five designs (Elk §6.1), then `vendor`: the chip's own software stack as it ships
// (PlanningConventions::vendor), where the chip file names one.
enum class Design { basic, static_split, elk_dyn, elk_full, ideal, vendor };

// "basic", "static", "elk-dyn", "elk-full", "ideal", "vendor".
const char* to_string(Design design);

// How one core runs the op's tile when the mapper timed it (a chip's core_cost tcm,
// chip/core_cost.hpp): the optimal mapping of the chosen plan's step tile on the core's hierarchy.
struct CoreMappingRecord {
  std::string arch;        // the core hierarchy's name
  std::string einsum;      // the tile's Einsum with its extents
  std::string looptree;    // one line per node (mapper/looptree.hpp)
  double tile_s = 0;       // one tile on one core, the mapping's latency
  double tile_j = 0;       // its energy at the hierarchy's rates (not in the planned energy)
  double utilization = 0;  // MACs / (tile_s × the core's peak)
};

struct OpSchedule {
  int op = -1;  // index in the graph's execution order
  std::string name;
  int op_class = -1;
  ExecPlan exec;        // the chosen execution plan (a copy)
  PreloadPlan preload;  // the chosen preload plan; all zero when the op reads nothing from HBM
  double hbm_read_bytes = 0, hbm_write_bytes = 0, flops = 0;
  int preload_position = -1;       // index of this op in the preload order; -1: nothing to preload
  int preloads_during = 0;         // k: preloads that overlap this op's execution
  double sram_bytes_per_core = 0;  // exec space + every resident preload space while it executes
  double preload_start_s = 0, preload_end_s = 0;  // equal when nothing is preloaded
  double execute_start_s = 0;                     // the tag has been seen; the hand-off starts
  double distribute_end_s = 0;                    // local_execute starts
  double execute_end_s = 0;
  // Seconds of [execute_start_s, execute_end_s) before distribute_data starts: waiting for the
  // op's command beyond its data, then its launch (schedule.hpp, "Fixed costs"); 0 without
  // dispatch. Not in plan.yaml: the rule and the plan's dispatch costs give it again.
  double dispatch_s = 0;
  // The activations it takes from other chips before distribute_data (handoff.hpp; null: none),
  // and their time in [execute_start_s, distribute_end_s). Not in plan.yaml: the plans give them
  // again (codegen::attach_traffic).
  std::shared_ptr<const HandOff> handoff;
  double handoff_s = 0;
  // The collectives that follow its work (collective_op.hpp), in order, and their planned seconds
  // at the end of [execute_start_s, execute_end_s): the chip's cores wait, its preloads go on.
  std::vector<CollectiveOp> collectives;
  double collective_s = 0;
  std::optional<CoreMappingRecord> core_mapping;  // absent: the plugin's cost model timed the op
  // Its off-chip operands stay in SRAM across steps (exec.home_*): hbm_read_bytes and
  // hbm_write_bytes are 0, nothing is preloaded.
  bool resident = false;
  // Its preload streams inside its execution (the vendor design's `streamed` stack): the preload
  // starts as the op before it ends, the op starts with it, and its compute ends no earlier than
  // the last byte lands (schedule.hpp, TimelineMode::streamed).
  bool streamed = false;
};

// One candidate of residency.hpp's choice: tensors that stay in SRAM across steps together (a
// weight with the ops reading it, a KV cache with its write and reads; in repeated layers, the
// same tensor of every layer), resident or streamed from off-chip memory each step.
struct ResidentUnit {
  std::string label;   // its first op's name, e.g. "layers.0.q_proj (x32 layers)"
  std::string kind;    // "weights" or "kv_cache"
  double bytes = 0;    // its tensors' bytes, each once
  double saves_s = 0;  // the off-chip preload time per step its ops pay when streamed
  bool resident = false;
  std::string why;  // why it is resident or streamed
  bool operator==(const ResidentUnit&) const = default;
};

// What stays in SRAM across steps for the whole compile (every design plans with it).
struct ResidencyRecord {
  std::string mode = "off";         // off | auto | weights | weights+kv
  double bytes_per_core = 0;        // every core's SRAM held by the resident homes, beside every op
  std::vector<ResidentUnit> units;  // every candidate, resident or streamed
  int choices_tried = 0;            // resident sets planned by the search (auto)
  bool operator==(const ResidencyRecord&) const = default;
};

// Elk's breakdown of the step's latency (Elk §6.2, Fig. 18a), and the fixed cost per op outside
// it; the five parts sum to latency_s.
struct Breakdown {
  double execution_only_s = 0;  // executing, no preload in flight
  double overlapped_s = 0;      // executing while a preload is in flight
  double preload_stall_s = 0;   // only preloading: an execute waits for its data
  double congestion_s = 0;      // time added by preload and execution traffic sharing the network
  double dispatch_s = 0;        // waiting for ops' commands beyond their data, and their launches
};

// What each op pays outside the overlap (schedule.hpp, "Fixed costs"): the chip's OpFixedCosts
// under a dispatch mode. none: all 0.
struct DispatchCosts {
  DispatchMode mode = DispatchMode::none;
  double command_s = 0;  // per op, its command: see command_arrival_s
  double launch_s = 0;   // per op, starting its kernels once the command is there
  // When the command of the op at program position `op` arrives, the op before it having ended
  // at `previous_end_s` (schedule.hpp, "Fixed costs"): host prepares it only then; the other
  // modes issue the commands command_s apart from the step's start.
  double command_arrival_s(int op, double previous_end_s) const {
    if (mode == DispatchMode::host) return previous_end_s + command_s;
    return (op + 1) * command_s;
  }
  bool operator==(const DispatchCosts&) const = default;
};
// traced: dispatch_traced_s and launch_s; host, host-async: dispatch_host_s and launch_s; none:
// nothing.
DispatchCosts dispatch_costs(DispatchMode mode, const OpFixedCosts& fixed);

struct DesignResult {
  Design design = Design::elk_full;
  std::vector<OpSchedule> ops;     // execution order, one per graph op
  std::vector<int> preload_order;  // graph op indices in the order their preloads are issued
  double latency_s = 0;            // one step, end of the last execute
  // Of latency_s, what the ops' collectives add (collective_op.hpp): latency_s less the same
  // schedule's without them; the rest of their time the later ops' preloads covered. 0: none.
  double collective_exposed_s = 0;
  Breakdown breakdown;
  double hbm_utilisation = 0;           // bytes read+written / (latency × peak HBM bandwidth)
  double interconnect_utilisation = 0;  // bytes moved on chip / (latency × interconnect capacity)
  double achieved_flops_per_s = 0;
  uint64_t orders_tried = 1;  // preload orders evaluated (Elk-Full; 1 for the others)
  double search_s = 0;        // wall time the planner spent on this design
  // The planner's estimate of the step's energy (energy_estimate.hpp); absent when the chip file
  // states no energy rates.
  std::optional<EnergyBreakdown> energy;
  ResidencyRecord residency;  // mode off, no units: every op's data is preloaded each step
  DispatchCosts dispatch;     // what the timeline charged per op (mode none: nothing)
  // The vendor design's streamed ops read off-chip memory no faster than this, all chips together
  // (PlannerOptions::vendor_stream_bytes_per_s); 0: at the memory's own rate.
  double stream_bytes_per_s = 0;
};

// Where the plan came from, so `tessera simulate plan.yaml` can rebuild the same model and chip
// and refuse a plan that no longer matches them.
struct PlanSource {
  std::string tessera_version;
  std::string model;           // zoo name or file path, as given on the command line
  int64_t batch = 0, seq = 0;  // zoo models; 0 for files
  std::string mode;            // "decode" | "prefill" for zoo models
  std::string dtype;           // zoo models: element type given with --dtype; empty: the entry's
  std::string weight_dtype;    // zoo models: weights' type given with --weight-dtype; empty: dtype
  std::string onnx_dims;       // ONNX models: the --dim bindings, "batch=2,seq=16"
  int skip_unsupported = 0;    // ONNX models: 1 when imported with --skip-unsupported
  std::string graph_name;
  size_t graph_ops = 0;
  std::string target;  // plugin name given with --target
  std::string chip;    // preset name or chip file, as given (empty: the target's default)
  // Zoo MoE models: --expert-skew; written only when above 0, so other plans keep their bytes.
  double expert_skew = 0;
  // Zoo models: the --precision file's settings as a precision file's text (zoo/precision.hpp),
  // so a reopened plan rebuilds the same types without the file; empty (and not written) without.
  std::string precision;
  // A stage of a parallel strategy (`tessera compile --parallel`): one chip's share of a zoo
  // decoder (zoo::Shard: tp, ep, the layers [first_layer, last_layer)), planned on one chip of
  // the machine `target`/`chip` name, which has `one_chip_of` chips (0: the chip as named).
  // Absent from plans of a whole model on a whole chip, which keep their bytes.
  struct Stage {
    int64_t one_chip_of = 0;
    // zoo::Shard's fields; -1: unset (through the model's last layer; embedding and head where
    // the layer range says), else the layer, or 0/1.
    int64_t tp = 1, ep = 1, first_layer = 0, last_layer = -1, embedding = -1, head = -1;
    bool operator==(const Stage&) const = default;
  };
  std::optional<Stage> stage;
};

// An op too large for the chip, cut along one rank into slices (split.hpp), or a chain of ops
// from `op` through `through` cut alike into blocks computed one after the other (attention in
// tiles, chain_split.hpp): the graph a plan's ops are from is the model's with its splits
// applied, chains first.
struct OpSplit {
  std::string op;    // name in the unsplit graph (a chain's: in the model's graph)
  std::string rank;  // the rank cut into slices (a chain's: its first op's)
  int64_t slices = 1;
  std::string through;  // a chain's last op; empty for one op
  bool operator==(const OpSplit&) const = default;
};

struct Plan {
  PlanSource source;
  Machine machine;
  std::vector<OpSplit> splits;  // every op that was split, in graph order
  DesignResult result;
};

}  // namespace tessera::planner
