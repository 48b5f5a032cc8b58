// Temporal ("compute-shift") plans, T10 style: an input a spatial plan replicates on R cores may
// instead be cut into q pieces (q divides R) along one of its ranks; the R cores then hold one
// piece each (plus a receive buffer) and compute in q steps, passing pieces round the group
// between steps. Less space, more inter-core traffic and q barriers.
//
// Scope: only matmul-like ops (matmul, batched matmul, conv) rotate; at most one operand per plan
// (the artifact also nests rotations of two operands along a shared rank; not modelled). The cut
// rank is the operand's rank with the largest tile, a reduced (k) rank on ties, so each step is a
// smaller tile of the same kind. At most kMaxRotationsPerOperand step counts per operand, spread
// evenly over the divisors of R that do not exceed the cut rank's tile.
#include <algorithm>

#include "framework/planner/partition/plan_space.hpp"

namespace tessera::planner::partition {

namespace {

int cut_rank(const OpShape& op, const OperandShape& operand, const SpatialPlan& plan) {
  int best = -1;
  for (size_t r = 0; r < op.extents.size(); ++r) {
    if (!operand.uses_rank[r]) continue;
    if (best < 0 || plan.tile[r] > plan.tile[best] ||
        (plan.tile[r] == plan.tile[best] && op.roles[r] == Role::k && op.roles[best] != Role::k))
      best = static_cast<int>(r);
  }
  return best;
}

std::vector<int64_t> step_counts(int64_t replicas, int64_t tile) {
  std::vector<int64_t> counts;
  for (int64_t q = 2; q <= std::min(replicas, tile); ++q)
    if (replicas % q == 0) counts.push_back(q);
  if (counts.size() <= kMaxRotationsPerOperand) return counts;
  std::vector<int64_t> kept;
  for (size_t i = 0; i < kMaxRotationsPerOperand; ++i)
    kept.push_back(counts[i * (counts.size() - 1) / (kMaxRotationsPerOperand - 1)]);
  kept.erase(std::unique(kept.begin(), kept.end()), kept.end());
  return kept;
}

}  // namespace

int64_t replication(const OpShape& op, const OperandShape& operand, const SpatialPlan& plan) {
  int64_t copies = 1;
  for (size_t r = 0; r < op.extents.size(); ++r)
    if (!operand.uses_rank[r]) copies *= plan.factors[r];
  return copies;
}

std::vector<Rotation> rotations(const OpShape& op, const SpatialPlan& plan) {
  std::vector<Rotation> out{Rotation{}};
  if (!op.matmul_like) return out;
  for (size_t i = 0; i + 1 < op.operands.size(); ++i) {
    const OperandShape& operand = op.operands[i];
    int64_t replicas = replication(op, operand, plan);
    int rank = cut_rank(op, operand, plan);
    if (replicas < 2 || rank < 0) continue;
    for (int64_t q : step_counts(replicas, plan.tile[rank]))
      out.push_back(Rotation{static_cast<int>(i), rank, q});
  }
  return out;
}

}  // namespace tessera::planner::partition
