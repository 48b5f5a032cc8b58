// The one compile/simulate pipeline. Every job that plans or simulates a model on a chip — the
// `compile` and `simulate` commands, each sweep point, the benchmarks (and the Python module) —
// goes through these calls; nothing else assembles the stages:
//
//   open_chip    a target and chip (ChipChoice) → the chip's plugin objects and Machine (OpenChip)
//   load         a model (ModelRequest: zoo name or file, shape options) → its graph
//   compile      per-op plans (partitioner, optionally through a cache), then every design asked
//                for (planner), each lowered to its program and simulated when asked
//   simulate     one plan → its program → the event-driven simulator → result and summary
//   reopen       a saved plan → the model and chip it names, refused when they no longer match
//
// Options arrive parsed (choices.hpp): designs, target + chip and the model request are typed
// values made once at the edge. Errors are Results with the stage's message: input errors for
// what the user gave, plugin errors for a failing plugin, never a partial answer.
//
// Threads and lifetimes: every call runs on the calling thread; only compile uses more (oneTBB
// arenas of CompileOptions::threads). Arguments are borrowed for the call only: what a call
// returns owns its data (graphs by shared_ptr) and points into none of them, and an OpenChip's
// plugin objects keep their libraries loaded, so chips, plans and compilations may outlive the
// PluginSet they came from. A PluginSet is not thread-safe (it caches libraries in an unguarded
// map): serialise resolve_chip, open_chip and reopen on one set. Jobs with their own PluginSet
// and chip are independent and may run at once, as a sweep's points do (dse/evaluate_point.cpp),
// sharing one OpPlanCache (thread-safe). Calls that take a non-const reference say (here or below)
// what they change; the others only read their arguments and may run concurrently on shared ones.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "framework/chip/chip_models.hpp"
#include "framework/codegen/program.hpp"
#include "framework/common/status.hpp"
#include "framework/driver/choices.hpp"
#include "framework/driver/op_plan_cache.hpp"
#include "framework/frontend/model_source.hpp"
#include "framework/ir/dtype.hpp"
#include "framework/planner/capacity.hpp"
#include "framework/planner/op_plans.hpp"
#include "framework/planner/plan.hpp"
#include "framework/planner/split.hpp"
#include "framework/plugin/plugin_set.hpp"
#include "framework/sim/sim_report.hpp"
#include "framework/sim/simulate.hpp"

namespace tessera::driver {

// ---- the chip -----------------------------------------------------------------------------------

// A chip file resolved for its target, before any object is built: what `tessera topology` and
// `tessera layout` need, and what a sweep point edits before opening it.
struct ResolvedChip {
  ChipChoice choice;  // as the user gave it (plan.yaml records it)
  Manifest target;    // the plugin `choice.target` names
  ChipSpec spec;
};

struct OpenChip {
  ChipChoice choice;
  Manifest target;
  ChipSpec spec;
  ChipModels models;  // the plugin objects; not const: simulation drives the MemoryModel
  // Set by open_one_chip: this is one chip of a machine of this many chips (plan.yaml records it,
  // so reopening a stage's plan opens one chip again); 0: the chip file as it stands.
  int64_t one_chip_of = 0;
};

// Errors: an unknown target or chip preset (with the nearest names), a chip file that does not
// parse (file:line).
Result<ResolvedChip> resolve_chip(PluginSet& plugins, const ChipChoice& choice);
// Builds the chip's objects (build_chip's errors: a plugin the chip names, a parameter it rejects).
Result<OpenChip> open_chip(PluginSet& plugins, ResolvedChip chip);
Result<OpenChip> open_chip(PluginSet& plugins, const ChipChoice& choice);

// One chip of `machine`, as a parallel strategy's stage is planned on it: the chip file with its
// chip count set to 1 wherever a section states it (an IPU pod's `chips` in its topology and cost
// model, a Wormhole mesh's `chips.x` and `chips.y`) and the machine-wide HBM scale divided by the
// chips; the core cost is the machine's (a --core-cost choice carries over), and one_chip_of is
// the machine's chips. Errors: open_chip's; internal when the plugin still builds several chips.
Result<OpenChip> open_one_chip(PluginSet& plugins, const OpenChip& machine);

// --core-cost: who times one core's tiles for the planner (ChipModels::core_cost), over the chip
// file's choice. Usage error: tcm on a chip without a core: section. Writes `chip`: not while
// another thread uses it.
Status choose_core_cost(OpenChip& chip, CoreCost cost);

// ---- the model ----------------------------------------------------------------------------------

struct LoadedModel {
  ModelRequest request;
  std::shared_ptr<const ir::Graph> graph;  // shared: planner inputs and plans point into it
};

// load_model's errors (frontend/model_source.hpp).
Result<LoadedModel> load(const ModelRequest& request);

// ---- compiling ----------------------------------------------------------------------------------

// Progress of a long stage: (done, total) units of work; called as CompileOptions::progress says.
using Progress = std::function<void(double done, double total)>;

struct CompileOptions {
  std::vector<planner::Design> designs;  // planned in this order
  unsigned threads = 0;                  // 0: all hardware threads
  int max_displacement = 4;              // Elk-Full: slots a preload may move from program order
  int max_preload_ops = 0;               // K; 0: the ops of one repeated layer
  // What each design's search minimises: latency (Elk's), or the planned energy or energy ×
  // latency (planner/energy_estimate.hpp), which need the chip's energy rates.
  PlanObjective objective = PlanObjective::latency;
  // What stays in SRAM across steps (planner/residency.hpp), for every design; nullopt: the chip
  // file's `planner: residency:` (off unless it says).
  std::optional<ResidencyMode> residency;
  // How each op's command reaches the chip (planner/schedule.hpp, "Fixed costs"), for every
  // design; nullopt: the chip file's `planner: dispatch:` (none unless it says, so a chip file
  // without the key plans as before).
  std::optional<DispatchMode> dispatch;
  // Also lower and simulate every design but Ideal (a bound no chip runs), once per distinct
  // program: designs whose plans lower alike share one simulation (SimulatedDesign::same_as).
  bool simulate = false;
  sim::SimOptions sim;
  // The chip-to-chip collectives that follow the model's ops, named by CollectiveOp::after (a
  // parallel strategy's stage: parallel/parallel.hpp); planned and simulated as the ops' waits
  // (planner/collective_op.hpp). Empty: none. Error (internal): a name the graph has no op of.
  std::vector<planner::CollectiveOp> collectives;
  // Per-op plans shared with other compiles (a sweep's points); nullptr: this compile's own.
  // Borrowed for the call; thread-safe, so compiles running at once may share it (it keeps values,
  // nothing of a chip).
  OpPlanCache* op_plans = nullptr;
  // Given a stage's name ("per-op plans (classes)", "elk-full (preload orders)"), its progress
  // callback; empty, or returning an empty function: no progress. Called on the calling thread.
  // The Progress it returns is called from the stage's worker threads (any of them, the caller
  // included), one call at a time under the stage's lock: it need not be reentrant but must not
  // rely on a particular thread, and should be quick (workers wait for the lock). An exception it
  // throws leaves compile as that exception (oneTBB rethrows it), not as an Error. Counts reach
  // it in order, the last being (total, total).
  std::function<Progress(const std::string& stage)> progress;
};

// The energy of `counts` at `rates`; when it cannot be charged (a compute type the chip file
// prices not), a warning saying why and nullopt: the latency stands without it.
std::optional<EnergyBreakdown> reported_energy(const EnergyRates& rates, const EnergyCounts& counts,
                                               const OpenChip& chip);

struct SimulatedDesign {
  codegen::Program program;
  sim::SimResult result;
  sim::SimSummary summary;
  // From what the simulation moved and ran (sim_energy.hpp); absent when the chip file has no
  // energy section.
  std::optional<EnergyBreakdown> energy;
  // The earlier design of the compile whose program runs alike (codegen::same_run), whose
  // simulation this is a copy of; nullopt: simulated for this design.
  std::optional<planner::Design> same_as;
};

// The simulated step's power per utilisation bucket (sim::power_over_time); empty without energy.
std::vector<double> power_w(const SimulatedDesign& simulated);

struct CompiledDesign {
  planner::Plan plan;  // what plan.yaml holds
  std::optional<SimulatedDesign> simulated;
};

// The host's part of a prefill's time to first token: after the device's step the stack reads
// each user's logits back, in the chip file's rows (ChipSpec::host; tt-metal reads the whole
// 32-row tile holding the last token), at the rate its device-to-host reads reach. The same for
// every design: it follows the step.
struct FirstTokenRead {
  double bytes = 0;  // rows × the model's activation outputs (a decoder's last position's logits)
  int64_t rows = 1;
  double bytes_per_s = 0;  // 0: the chip file has no `host:` section, so it is not charged
  double seconds() const { return bytes_per_s > 0 ? bytes / bytes_per_s : 0; }
};
// Set for a whole zoo model's prefill (`--mode prefill`, no shard); nullopt otherwise: a decode
// step hands back token ids (sampled on the device), and a stage's or an ONNX model's outputs are
// not a first token's logits.
std::optional<FirstTokenRead> first_token_read(const ChipSpec& spec, const LoadedModel& model);

struct Compilation {
  // The graph the designs plan: the model's, with attention in tiles where its scores exceed the
  // SRAM and the model would not fit otherwise (tile_attention), then every op too large for the
  // chip replaced by its slices (the plans' `splits`, chains first).
  std::shared_ptr<const ir::Graph> graph;
  std::vector<planner::SplitDecision> splits;  // per class of ops that were split
  size_t op_classes = 0;                       // classes of identical ops in `graph`
  // Each with its simulation when simulated (CompileOptions::simulate), except Ideal's, whose
  // plan no chip runs.
  std::vector<CompiledDesign> designs;
  std::vector<planner::OpSplit> tiles;  // the attentions computed in tiles (chain splits)
  bool simulated = false;               // CompileOptions::simulate
  // Added to each design's step for the time to first token (first_token_read).
  std::optional<FirstTokenRead> first_token;
};

// What the model keeps off chip against the chip's capacity, and when it does not fit, what
// would: more chips of the kind; for zoo models a narrower --dtype, the largest --batch and --seq.
struct OffChipReport {
  planner::OffChipFootprint footprint;
  uint64_t capacity_bytes = 0;  // 0: the chip states none
  bool fits = true;
  std::vector<std::string> would_fit;  // empty when it fits
  bool attention_in_tiles = false;     // the planned graph is tile_attention's, not the model's
  // "168.5 GiB (weights 128.5 GiB, KV cache 40.0 GiB)", then " with attention computed in tiles"
  std::string needs() const;
  std::string options() const;  // would_fit joined with "; "
  // needs() " of 96.0 GiB: fits", or ": does not fit; what would fit: " options()
  std::string text() const;
};
// Of `planned`, the graph the designs plan; null: the one tile_attention gives (below). What would
// fit is found on the model's own graphs.
OffChipReport off_chip_report(const LoadedModel& model, const OpenChip& chip,
                              const ir::Graph* planned = nullptr);

// The graph the designs plan before any op is split: the model's, or, when its activations alone
// keep it from fitting the off-chip memory (weights, KV cache and inputs fit), with each attention
// whose scores exceed the SRAM computed in tiles (planner/attention_tiles.hpp) — and those chain
// splits. Internal error when a tiling the planner proposes cannot be applied.
struct TiledGraph {
  std::shared_ptr<const ir::Graph> graph;
  std::vector<planner::OpSplit> tiles;  // chain splits; empty: the model's graph
};
Result<TiledGraph> tile_attention(std::shared_ptr<const ir::Graph> graph, const Machine& machine);

// Refuses a model whose off-chip data (weights, KV cache, inputs, activations beyond SRAM) exceeds
// the chip's off-chip memory: one input error with what it needs by kind, what the chip has, and
// what would fit (more chips; for zoo models a narrower --dtype, the largest --batch and --seq).
// A chip that states no capacity is not checked (a warning says so). `planned`: as for
// off_chip_report.
Status check_off_chip(const LoadedModel& model, const OpenChip& chip,
                      const ir::Graph* planned = nullptr);

// The storage types --weight-dtype may name (fp16, bf16, fp8, bfp8) that this chip stores weights
// in: those its cores compute in or unpack (ChipModels::dtypes, from the chip file's
// flops_per_cycle), in that order.
std::vector<ir::DType> weight_dtypes(const OpenChip& chip);
// Refuses a zoo model asked for with a --weight-dtype the chip does not store weights in: a usage
// error "target T (chip C) does not store weights as D; it accepts: ...". OK without one. A
// precision file's tensor group in a type the chip does not store is refused the same way:
// "target T (chip C) does not store precision group G as D; it stores: ...".
Status check_weight_dtype(const LoadedModel& model, const OpenChip& chip);

// check_weight_dtype; check_off_chip; per-op plans; for each class of ops that fits no plan, the
// split search (planner/split.hpp) and the ops replaced by their slices; then each design, each
// simulated when asked. Errors: the model does not fit off chip, an op that fits no plan even split
// (input, naming it), a design that cannot place the model, a failing plugin, a simulation error.
// Per-op plans and Elk-Full's order search run in oneTBB arenas of options.threads threads, the
// caller among them; the rest, simulations included, on the calling thread. One chip may be
// compiled from several threads at once, as compile only reads it (the plugin ABI makes Topology,
// CostModel and Partitioner [concurrent]; the core mapper locks), except when it simulates with
// sim.memory full, which drives the chip's MemoryModel (not concurrent): serialise those.
Result<Compilation> compile(OpenChip& chip, const LoadedModel& model,
                            const CompileOptions& options);

// The OpPlanCache key of op `op`'s class in `graph` on this chip, planned for `objective` (which
// changes the plans only when a core's tiles are mapped, ChipModels::core_cost; exposed for tests).
std::string class_key(const OpenChip& chip, const ir::Graph& graph, int op,
                      PlanObjective objective);

// ---- simulating ---------------------------------------------------------------------------------

// Lowers the plan (or runs `program`, a hand-written one already checked against the plan's rules)
// on the chip. Errors: simulate_program's. On the calling thread alone; threads and the chip's
// MemoryModel as simulate_program (sim/simulate.hpp): fast only reads the chip, full drives it.
Result<SimulatedDesign> simulate(const planner::Plan& plan, OpenChip& chip, const ir::Graph& graph,
                                 const sim::SimOptions& options,
                                 std::optional<codegen::Program> program = std::nullopt);

// ---- plans on disk ------------------------------------------------------------------------------

// What plan.yaml records of where a plan came from, and back: the same model request and chip
// choice, so `tessera simulate` rebuilds exactly what `tessera compile` planned on. Model and chip
// files are recorded by absolute path (against the working directory at the call); read back, a
// relative one is relative to the plan's directory, so a plan works from any directory. `planned`
// is the graph the plan's ops are of (the model's with its splits applied).
planner::PlanSource plan_source(const LoadedModel& model, const OpenChip& chip,
                                const ir::Graph& planned);
// Input error naming `plan_file` for a malformed source.onnx_dims.
Result<ModelRequest> model_request(const planner::PlanSource& source, const std::string& plan_file);
ChipChoice chip_choice(const planner::PlanSource& source, const std::string& plan_file);

struct Reopened {
  LoadedModel model;
  std::shared_ptr<const ir::Graph> graph;  // the model's graph with the plan's splits applied
  OpenChip chip;
};

// The model and chip `plan` names, the model's ops split as the plan says, checked against it
// (a stage's plan: its shard of the model, on one chip of the machine, open_one_chip):
// the graph's ops (count, names), the chip's shape (name, cores, chips, SRAM, HBM controllers),
// and each op's numbers against what compile could write for that op (bytes within its tensors on
// every core, HBM traffic within its HBM data, FLOPs its Einsum's, space per core within the SRAM,
// tiles within its extents). Input errors name `plan_file` and the key at fault (source.model when
// the model cannot be loaded) and say to re-run `tessera compile`. Uses `plugins` as open_chip
// does (serialise calls on one set); borrows `plan` for the call, and the Reopened owns its data.
Result<Reopened> reopen(PluginSet& plugins, const planner::Plan& plan,
                        const std::string& plan_file);

}  // namespace tessera::driver
