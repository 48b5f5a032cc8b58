// Bytes, traffic and time of every (spatial plan × rotation) candidate of one op.
//
// Per core, for tile t (the spatial tile) and a rotation of operand X in q steps along rank r:
//   step tile        t with t_r cut to ceil(t_r / q)
//   exec bytes       Σ tile bytes of the other operands and the output + 2 × X's piece (the piece
//                    being computed on and the one arriving: the artifact's double buffer)
//   compute          q × CostModel time of the step tile (one batched call for all candidates);
//                    for a matmul or batched matmul the faster of C = A·B and Cᵀ = Bᵀ·Aᵀ
//   shift            (q - 1) pieces at the core's shift rate
//   syncs            one barrier per step (q; 1 without rotation)
// Splitting a combined rank (a reduced k rank; the normalised rank of softmax/normalisation) over
// p cores adds a tree combine: ceil(log2 p) levels, each moving one partial (the output tile; for
// softmax/normalisation two statistics per row) and one barrier; softmax/normalisation broadcast
// the result back down the tree, so their levels count twice. Combine traffic in all:
// cores_used × (p - 1)/p partials per pass. A chip's planning conventions may replace the tree
// and the per-step barriers by the Elk artifact's shuffle (chip_spec/conventions.hpp,
// CombineModel).
#include <cmath>
#include <limits>
#include <optional>
#include <utility>

#include "framework/planner/partition/plan_space.hpp"

namespace tessera::planner::partition {

namespace {

double bytes_of(const OpShape& op, const OperandShape& operand, const std::vector<int64_t>& tile) {
  return tile_elements(op, operand, tile) * operand.element_bytes;
}

std::string spatial_label(const OpShape& op, const SpatialPlan& plan) {
  std::string label;
  for (size_t r = 0; r < plan.factors.size(); ++r) {
    if (plan.factors[r] == 1) continue;
    if (!label.empty()) label += ' ';
    label += op.rank_names[r] + "/" + std::to_string(plan.factors[r]);
  }
  return label.empty() ? "1 core" : label;
}

struct Combine {
  double shift_s = 0, shift_bytes = 0;
  int levels = 0;
  double cross_chip_bytes = 0;
};

// Where tiles sit: the partials of one output tile on consecutive cores (the combined ranks vary
// fastest), output tiles one after another, and chips holding consecutive cores (a Machine
// numbers cores chip by chip). The partials are merged inside each chip first, then between the
// chips that hold some: an output tile on s chips sends s - 1 partials over chip-to-chip links.
// Returns the partials that cross chips, over all output tiles.
double partials_crossing_chips(const SpatialPlan& plan, int64_t parts, const Machine& machine) {
  const int64_t cores_per_chip = machine.cores / std::max<uint32_t>(machine.chips, 1);
  if (machine.chips <= 1 || cores_per_chip == 0) return 0;
  double crossing = 0;
  for (int64_t first = 0; first < plan.cores_used; first += parts)
    crossing += static_cast<double>((first + parts - 1) / cores_per_chip - first / cores_per_chip);
  return crossing;
}

Combine combine_cost(const OpShape& op, const SpatialPlan& plan, const Machine& machine) {
  int64_t parts = 1;
  for (size_t r = 0; r < plan.factors.size(); ++r)
    if (op.combined[r]) parts *= plan.factors[r];
  Combine c;
  if (parts == 1) return c;
  const OperandShape& out = op.operands.back();
  double partial = bytes_of(op, out, plan.tile);
  int passes = 1;
  if (op.kind == ir::OpKind::softmax || op.kind == ir::OpKind::normalization) {
    partial = 2 * out.element_bytes * tile_elements(op, out, plan.tile) /
              static_cast<double>(plan.tile.back());
    passes = 2;
  }
  c.levels = passes * static_cast<int>(std::ceil(std::log2(static_cast<double>(parts))));
  c.shift_s = c.levels * partial / machine.shift_bytes_per_s_per_core;
  c.shift_bytes = passes * plan.cores_used * partial * static_cast<double>(parts - 1) /
                  static_cast<double>(parts);
  c.cross_chip_bytes = passes * partial * partials_crossing_chips(plan, parts, machine);
  // Each chip sends its share over one chip-to-chip link, all chips at once: the reduction ring
  // the simulator runs (sim/engine.hpp).
  if (c.cross_chip_bytes > 0 && machine.chip_link_bytes_per_s > 0)
    c.shift_s += c.cross_chip_bytes / (machine.chips * machine.chip_link_bytes_per_s);
  return c;
}

// The Elk artifact's exchanges of one plan (chip_spec/conventions.hpp, CombineModel::elk_artifact):
// two barriers per rotation shift, then the shuffle after the op.
struct ArtifactExchange {
  double shift_bytes_per_core = 0, gather_bytes_per_core = 0;
  int syncs = 0;
  // The gathered partials' reduction on one core, timed by the cost model: two halves added
  // (elementwise) or p partials reduced (reduction), over the output tile's share.
  std::optional<tessera_tile_query> reduce;
};

ArtifactExchange artifact_exchange(const OpShape& op, const SpatialPlan& plan, const Rotation& rot,
                                   double piece_bytes) {
  ArtifactExchange x;
  int rotations = static_cast<int>(rot.steps) - 1;
  x.syncs = 2 * rotations;
  x.shift_bytes_per_core = rotations * piece_bytes;
  if (op.kind == ir::OpKind::elementwise || op.kind == ir::OpKind::unary) {
    x.syncs += 1;
    return x;
  }
  const OperandShape& out = op.operands.back();
  double out_elements = tile_elements(op, out, plan.tile);
  double out_bytes = out_elements * out.element_bytes;
  int64_t parts = 1;
  for (size_t r = 0; r < plan.factors.size(); ++r)
    if (op.combined[r]) parts *= plan.factors[r];
  x.shift_bytes_per_core += out_bytes;  // the output's re-layout for the next op
  x.syncs += 6;                         // BUFFER_ITERS around it, then four
  if (parts < 2) return x;
  tessera_tile_query& q = x.reduce.emplace();
  q.dtype = op.dtype;
  q.batch = q.m = q.k = q.n = 1;
  if (parts == 2) {
    x.syncs += 2;
    x.gather_bytes_per_core = out_bytes / 2;
    q.op_kind = TESSERA_OP_ELEMENTWISE;
    q.elements = static_cast<uint64_t>(std::ceil(out_elements / 2));
    q.bytes_in = static_cast<uint64_t>(std::ceil(out_bytes));
  } else {
    x.syncs += static_cast<int>(parts);
    x.gather_bytes_per_core = out_bytes;
    q.op_kind = TESSERA_OP_REDUCTION;
    q.elements = static_cast<uint64_t>(std::ceil(out_elements / static_cast<double>(parts)));
    q.bytes_in = static_cast<uint64_t>(std::ceil(out_bytes));
  }
  q.flops = out_elements;
  q.bytes_out = static_cast<uint64_t>(q.elements * out.element_bytes);
  return x;
}

ExecCandidate describe(const OpShape& op, const SpatialPlan& plan, const Rotation& rot,
                       const Machine& machine, CombineModel combine, std::vector<int64_t>& step) {
  step = plan.tile;
  if (rot.operand >= 0) step[rot.rank] = (plan.tile[rot.rank] + rot.steps - 1) / rot.steps;
  ExecCandidate c;
  ExecPlan& p = c.plan;
  p.label = spatial_label(op, plan);
  if (rot.operand >= 0)
    p.label += " · rotate " + op.operands[rot.operand].label + " " + op.rank_names[rot.rank] + "×" +
               std::to_string(rot.steps);
  p.tile = plan.tile;
  p.factors = plan.factors;
  p.rotated_operand = rot.operand;
  p.rotation_steps = rot.steps;
  p.cores_used = plan.cores_used;
  double piece = 0;
  for (size_t i = 0; i < op.operands.size(); ++i) {
    const OperandShape& operand = op.operands[i];
    bool rotated = static_cast<int>(i) == rot.operand;
    double held = rotated ? bytes_of(op, operand, step) : bytes_of(op, operand, plan.tile);
    p.exec_bytes_per_core += rotated ? 2 * held : held;
    if (rotated) piece = held;
    if (!operand.in_hbm || operand.is_output) continue;
    p.hbm_operand_bytes_per_core += held;
    int64_t copies = replication(op, operand, plan) / (rotated ? rot.steps : 1);
    c.hbm.push_back(HbmHolding{operand.label, held, copies});
  }
  if (combine == CombineModel::elk_artifact) {
    ArtifactExchange x = artifact_exchange(op, plan, rot, piece);
    double bytes = x.shift_bytes_per_core + x.gather_bytes_per_core;
    p.shift_s = bytes / machine.shift_bytes_per_s_per_core;
    p.shift_bytes = bytes * plan.cores_used;
    p.combine_bytes = x.gather_bytes_per_core * plan.cores_used;
    p.sync_s = x.syncs * machine.sync_s;
    c.reduce = x.reduce;
    return c;
  }
  Combine combine_tree = combine_cost(op, plan, machine);
  double rotations = static_cast<double>(rot.steps - 1);
  p.shift_s = rotations * piece / machine.shift_bytes_per_s_per_core + combine_tree.shift_s;
  p.shift_bytes = rotations * piece * plan.cores_used + combine_tree.shift_bytes;
  p.combine_bytes = combine_tree.shift_bytes;
  p.cross_chip_bytes = combine_tree.cross_chip_bytes;
  p.sync_s = static_cast<double>(rot.steps + combine_tree.levels) * machine.sync_s;
  return c;
}

}  // namespace

tessera_tile_query tile_query(const OpShape& op, const std::vector<int64_t>& step) {
  tessera_tile_query q{};
  q.op_kind = static_cast<uint32_t>(op.kind);
  q.dtype = op.dtype;
  q.math_fidelity = op.math_fidelity;
  q.batch = q.m = q.k = q.n = 1;
  double points = 1;
  for (size_t r = 0; r < step.size(); ++r) {
    auto extent = static_cast<uint64_t>(step[r]);
    points *= static_cast<double>(step[r]);
    if (!op.matmul_like) continue;
    switch (op.roles[r]) {
      case Role::batch:
        q.batch *= extent;
        break;
      case Role::m:
        q.m *= extent;
        break;
      case Role::k:
        q.k *= extent;
        break;
      case Role::n:
        q.n *= extent;
        break;
    }
  }
  const OperandShape& out = op.operands.back();
  q.elements = static_cast<uint64_t>(tile_elements(op, out, step));
  q.flops = op.flops * points / op.points;
  for (size_t i = 0; i + 1 < op.operands.size(); ++i)
    q.bytes_in += bytes_of(op, op.operands[i], step);
  q.bytes_out = bytes_of(op, out, step);
  return q;
}

// A core's matmul kernel may compute its tile as C = A·B or as Cᵀ = Bᵀ·Aᵀ: only which operand
// streams through the MAC unit changes, the output tile is the same. Fits like T10's are
// asymmetric in m and n (a decode q·Kᵀ with m = 1 costs ~8× more than its transpose), so by
// default both orientations are timed; a chip's planning conventions may fix one.
std::vector<tessera_tile_query> orientations(const OpShape& op, const tessera_tile_query& q,
                                             TileOrientation orientation) {
  bool matmul = op.kind == ir::OpKind::matmul || op.kind == ir::OpKind::batched_matmul;
  if (!matmul || orientation == TileOrientation::as_written) return {q};
  tessera_tile_query swapped = q;
  std::swap(swapped.m, swapped.n);
  if (orientation == TileOrientation::fastest) return {q, swapped};
  // The artifact's rule: the larger of m and n streams as m unless it is at most 16.
  uint64_t larger = std::max(q.m, q.n);
  bool larger_as_m = larger > 16;
  return {(q.m == larger) == larger_as_m ? q : swapped};
}

Result<std::vector<ExecCandidate>> evaluate(const OpShape& op,
                                            const std::vector<SpatialPlan>& spatial,
                                            const Machine& machine, const TileCost& cost_model,
                                            const PlanningConventions& conventions) {
  std::vector<ExecCandidate> candidates;
  std::vector<tessera_tile_query> queries;
  std::vector<size_t> first_query;  // per candidate: its orientations are [first, next first)
  std::vector<uint64_t> written_m;  // per candidate: m as the roles orient its tile
  std::vector<int64_t> steps;
  std::vector<int64_t> step;
  for (const SpatialPlan& plan : spatial) {
    for (const Rotation& rot : rotations(op, plan)) {
      candidates.push_back(describe(op, plan, rot, machine, conventions.combine, step));
      first_query.push_back(queries.size());
      tessera_tile_query written = tile_query(op, step);
      written_m.push_back(written.m);
      for (const auto& q : orientations(op, written, conventions.orientation)) queries.push_back(q);
      steps.push_back(rot.steps);
    }
  }
  first_query.push_back(queries.size());
  // The artifact's reductions of gathered partials, after every candidate's orientations.
  std::vector<size_t> reduce_query(candidates.size(), 0);
  for (size_t i = 0; i < candidates.size(); ++i)
    if (candidates[i].reduce)
      reduce_query[i] = queries.size(), queries.push_back(*candidates[i].reduce);
  auto seconds = cost_model.tile_seconds(queries);
  if (!seconds) return seconds.error();
  for (size_t i = 0; i < candidates.size(); ++i) {
    // Strictly faster only: a tie keeps the first (the roles' orientation), so labels stay
    // deterministic.
    size_t chosen = first_query[i];
    for (size_t j = chosen + 1; j < first_query[i + 1]; ++j)
      if ((*seconds)[j] < (*seconds)[chosen]) chosen = j;
    if (queries[chosen].m != written_m[i]) candidates[i].plan.label += " · transposed";
    candidates[i].plan.core_tile = queries[chosen];
    // The artifact scales the reduction with its other shuffle costs above one chip (x1.25); here
    // it is compute: ~50 cycles per op apart at most.
    double reduce_s = candidates[i].reduce ? (*seconds)[reduce_query[i]] : 0;
    candidates[i].plan.compute_s =
        (static_cast<double>(steps[i]) * (*seconds)[chosen] + reduce_s) / machine.compute_speedup;
  }
  return candidates;
}

}  // namespace tessera::planner::partition
