// The default partitioner's internals, one job per source file:
//   einsum_roles.cpp  an op's ranks and operands as the search sees them (OpShape)
//   spatial.cpp       factorisations of the ranks over the cores, pruned
//   temporal.cpp      compute-shift rotations of operands a spatial plan replicates
//   evaluate.cpp      bytes, traffic and time of every candidate (one batched CostModel call)
//   preload.cpp       the preload plans of one execution plan
//   price.cpp         a candidate's exchanges on the chip's routes, and the placement for them
//   pareto.cpp        Pareto reduction
//   plugin_plans.cpp  a plugin Partitioner's plans, converted
// Sizes are bytes (per core where the name says so), times seconds. Nothing here owns plugin
// objects; callers keep the CostModel/Partitioner alive for the duration of a call.
#pragma once

#include <tessera/plugin_abi.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "framework/chip/machine.hpp"
#include "framework/chip_spec/conventions.hpp"
#include "framework/common/status.hpp"
#include "framework/ir/graph.hpp"
#include "framework/planner/op_plans.hpp"
#include "framework/planner/pricing.hpp"
#include "framework/plugin/objects.hpp"

namespace tessera::planner::partition {

// What a rank is to the CostModel's matmul query (tessera_tile_query batch × m × k × n). Ops
// that are not matmul-like report `elements` (output elements) and ignore the roles.
enum class Role { batch, m, k, n };

struct IndexTerm {
  int rank = 0;       // index into OpShape::extents
  int64_t coeff = 1;  // |coefficient| of the rank in the affine index
};

struct OperandShape {
  std::string label;  // "in0", "in1", ..., "out"
  std::vector<int64_t> dims;
  // Per tensor dimension, the affine terms; empty for a constant index (one position).
  std::vector<std::vector<IndexTerm>> terms;
  // Per tensor dimension: -1, or the input operand whose values choose the position (`$i`).
  std::vector<int> indirect;
  std::vector<bool> uses_rank;  // per rank: some dimension's index depends on it
  double element_bytes = 2;
  bool in_hbm = false;
  bool is_output = false;
};

struct OpShape {
  std::string name;
  ir::OpKind kind = ir::OpKind::other;
  tessera_dtype dtype = TESSERA_DTYPE_FP16;  // the compute type (describe_op)
  uint32_t math_fidelity = 0;                // ir::Op's, passed on in every tile query
  std::vector<std::string> rank_names;
  std::vector<int64_t> extents;
  std::vector<Role> roles;
  // Per rank: splitting it over cores leaves partial results that a combine step must merge
  // (ranks absent from the output; the normalised rank of a softmax or normalisation).
  std::vector<bool> combined;
  std::vector<OperandShape> operands;  // inputs in order, then the output
  bool matmul_like = false;            // matmul, batched matmul, conv: rotations are considered
  double flops = 0;
  double points = 1;  // iteration points (product of extents)
};

// The compute type is that of the first input that is not an index list (a gather's `$i`
// operand), else the output's; an input error when it has no compute type in the ABI.
Result<OpShape> describe_op(const ir::Graph& graph, const ir::Op& op);

// Elements of `operand` one core touches when it computes `tile` (extent per rank).
double tile_elements(const OpShape& op, const OperandShape& operand,
                     const std::vector<int64_t>& tile);

struct SpatialPlan {
  std::vector<int64_t> factors;  // per rank: cores the rank is split over
  std::vector<int64_t> tile;     // per rank: ceil(extent / factor)
  uint32_t cores_used = 1;       // product of factors
};

// Spatial pruning thresholds (documented in docs/planner.md "Per-op plans"):
inline constexpr double kMinCoreFraction = 0.5;       // of min(cores, iteration points)
inline constexpr double kMinPaddingEfficiency = 0.8;  // useful points / computed points
inline constexpr size_t kMaxDivisorsPerRank = 24;
inline constexpr size_t kMaxSpatialPlans = 384;
inline constexpr size_t kMaxRotationsPerOperand = 8;

// Factorisations with product <= cores that use at least kMinCoreFraction of the usable cores (or
// the artifact's share, PlanPruning::elk_artifact) and pad at most 1 - kMinPaddingEfficiency; at
// most kMaxSpatialPlans, most useful parallelism (cores × padding efficiency) first. Never empty:
// the unsplit plan survives when nothing else does.
std::vector<SpatialPlan> spatial_plans(const OpShape& op, uint32_t cores,
                                       PlanPruning pruning = PlanPruning::tessera);

struct Rotation {
  int operand = -1;  // input operand rotated between the cores that share it; -1: none
  int rank = -1;     // rank whose tile is cut into `steps` pieces
  int64_t steps = 1;
};

// Copies of `operand`'s tile the spatial plan keeps: product of factors of ranks it ignores.
int64_t replication(const OpShape& op, const OperandShape& operand, const SpatialPlan& plan);

// The rotation-free plan first, then per replicated input of a matmul-like op up to
// kMaxRotationsPerOperand step counts that divide its replication.
std::vector<Rotation> rotations(const OpShape& op, const SpatialPlan& plan);

// An HBM operand's part of one core's execution state, for preload planning.
struct HbmHolding {
  std::string label;
  double bytes_per_core = 0;  // held while executing (one buffer of a rotated operand)
  int64_t copies = 1;         // cores holding each byte in the execution layout
};

struct ExecCandidate {
  ExecPlan plan;
  std::vector<HbmHolding> hbm;
  std::optional<SetPrice> gather;  // its distribute ring on the network, once priced
  // Compute after the steps (CombineModel::elk_artifact): the reduction of gathered partials.
  std::optional<tessera_tile_query> reduce;
};

// The CostModel query of one core's tile of `op` spanning `step[r]` in every rank r.
tessera_tile_query tile_query(const OpShape& op, const std::vector<int64_t>& step);
// The orientations a core may compute `q` in under `orientation` (chip_spec/conventions.hpp): for a
// matmul or batched matmul, `q` and its transpose (m and n swapped) when the fastest is chosen, `q`
// alone as written, the artifact's one for elk_artifact; any other kind: `q`. Conv is never
// transposed: its m ranks index a sliding window of the input, so its transpose is not a matmul of
// the same two tiles.
std::vector<tessera_tile_query> orientations(
    const OpShape& op, const tessera_tile_query& q,
    TileOrientation orientation = TileOrientation::fastest);

// Every (spatial plan × rotation) of the op, timed with one batched tile_seconds call; a matmul or
// batched matmul tile in the fastest of its `orientations` (label "· transposed" when m and n
// are swapped; a tie keeps the roles' orientation). A plugin error is returned as is.
Result<std::vector<ExecCandidate>> evaluate(const OpShape& op,
                                            const std::vector<SpatialPlan>& spatial,
                                            const Machine& machine, const TileCost& cost_model,
                                            const PlanningConventions& conventions = {});

// Preload plans of one execution plan: replication levels of its HBM operands from each byte
// once on chip up to the execution layout. Pareto front (bytes ascending, time descending).
// distribute_data is priced on the network when the candidate was (price_exchanges), else at the
// Machine's per-core shift rate.
std::vector<PreloadPlan> preload_plans(const ExecCandidate& exec, const Machine& machine);
// The most distribute_data can move for it (each byte once on chip), the preload plans' largest.
double widest_distribute_bytes(const ExecCandidate& exec);

// Re-times the candidate's exchanges on the chip's routes (pricing.hpp) in the placement that
// makes them fastest (placement_orders, op_traffic.hpp; or only its default), which it records
// (plan.placement):
// shift_s = the rotation ring's set + the combine tree's, one set per level (the simulator's
// stages); gather: the distribute ring's price, for preload_plans (the plan's gather ring, or the
// even ring the simulator carries a distribution on when the plan names none). The weight of
// distribute_data in the choice is widest_distribute_bytes. Leaves a plan without factors alone.
// Errors: a route the Topology cannot give; an order that cannot ring the rotation is skipped.
enum class Placements {
  few,   // the default and local_order (op_traffic.hpp)
  every  // placement_orders
};
Status price_exchanges(const OpShape& op, ExecCandidate& candidate, const NetworkPricer& pricer,
                       Placements placements);
// price_exchanges on the candidates that can be on the Pareto front, fewest bytes per core first,
// each in the default placement: one whose lower bound (compute, syncs, and its exchanged bytes
// per core at the pricer's fastest transfer rate) is no better than a priced candidate's time with
// no more space is left out. Then every placement of the ones that led when priced (faster than
// all with less space). Returns the priced ones' indices, ascending; the others' times are not on
// the network's terms.
Result<std::vector<size_t>> price_candidates(const OpShape& op,
                                             std::vector<ExecCandidate>& candidates,
                                             const NetworkPricer& pricer);

// A plan that places itself (a plugin's, ExecPlan::core_digits) priced where it says: its
// exchanges (shift_s, shift_s_beside) and its preload's network time on the routes. A plan
// without factors is left alone. Errors: the plan's placement (naming the op and plan), a route
// the Topology cannot give.
Status price_placed(const OpShape& op, ExecPlan& exec, PreloadPlan& preload, uint32_t chips,
                    const NetworkPricer& pricer);

// Indices of the Pareto-optimal points: space strictly ascending, time strictly descending.
// Ties (same space and time) keep the first index, so the result is deterministic.
std::vector<size_t> pareto_front(const std::vector<double>& space, const std::vector<double>& time);

// The plugin's plans for the op: nullopt when it answers UNIMPLEMENTED (or nothing), else its
// plans (each one exec plan with its one preload plan). Plugin errors are returned as is.
using PluginAnswer = std::optional<std::vector<std::pair<ExecPlan, PreloadPlan>>>;
Result<PluginAnswer> plugin_plans(const Partitioner& partitioner, const ir::Graph& graph,
                                  const ir::Op& op, const OpShape& shape);

}  // namespace tessera::planner::partition
