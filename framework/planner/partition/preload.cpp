// Preload plans (Elk §3.3, the artifact's cold sizes): the layout an op's HBM operands wait
// in between their preload and the op's start, for one execution plan.
//
// In the execution layout each byte of HBM operand X sits on copies_X cores (the replication of
// its spatial plan, divided by the rotation's steps). A preload at level ρ keeps ρ_X copies, the
// largest divisor of copies_X not above ρ; ρ runs over the union of the divisors of the copies.
// For the used cores, per core (b_X = X's bytes per core when executing):
//   preload bytes   Σ ceil(b_X · ρ_X / copies_X)   (ρ = 1: each byte once on chip, rounded up per
//                                                    tile; ρ = copies: the execution layout)
//   HBM → cores     cores_used × preload bytes      (every copy is sent by a controller)
//   distribute      each core receives b_X − its preloaded share of X, from its group's other
//                   cores: cores_used × Σ (b_X − share) bytes in all, the per-core part at the
//                   core's shift rate, plus one barrier when anything moves.
#include <algorithm>
#include <cmath>
#include <set>

#include "framework/planner/partition/plan_space.hpp"

namespace tessera::planner::partition {

namespace {

int64_t largest_divisor_at_most(int64_t n, int64_t limit) {
  for (int64_t d = std::min(n, limit); d > 1; --d)
    if (n % d == 0) return d;
  return 1;
}

PreloadPlan at_level(const ExecCandidate& exec, int64_t level, const Machine& machine) {
  PreloadPlan p;
  p.label = "replicate ×" + std::to_string(level);
  double received_per_core = 0;
  for (const HbmHolding& h : exec.hbm) {
    int64_t copies = largest_divisor_at_most(h.copies, level);
    double share =
        std::ceil(h.bytes_per_core * static_cast<double>(copies) / static_cast<double>(h.copies));
    p.preload_bytes_per_core += share;
    received_per_core += std::max(0.0, h.bytes_per_core - share);
  }
  double cores = exec.plan.cores_used;
  p.hbm_to_core_bytes = cores * p.preload_bytes_per_core;
  p.distribute_bytes = cores * received_per_core;
  if (received_per_core > 0) {
    p.distribute_s = (exec.gather ? exec.gather->seconds(p.distribute_bytes)
                                  : received_per_core / machine.shift_bytes_per_s_per_core) +
                     machine.sync_s;
    if (exec.gather) {
      p.distribute_s_beside = exec.gather->seconds_beside(p.distribute_bytes);
      for (double& s : p.distribute_s_beside) s += machine.sync_s;
    }
  }
  return p;
}

}  // namespace

double widest_distribute_bytes(const ExecCandidate& exec) {
  double received_per_core = 0;
  for (const HbmHolding& h : exec.hbm)
    received_per_core += std::max(
        0.0, h.bytes_per_core - std::ceil(h.bytes_per_core / static_cast<double>(h.copies)));
  return exec.plan.cores_used * received_per_core;
}

std::vector<PreloadPlan> preload_plans(const ExecCandidate& exec, const Machine& machine) {
  if (exec.hbm.empty()) return {};
  std::set<int64_t> levels;
  for (const HbmHolding& h : exec.hbm)
    for (int64_t d = 1; d * d <= h.copies; ++d)
      if (h.copies % d == 0) levels.insert({d, h.copies / d});
  std::vector<PreloadPlan> plans;
  std::vector<double> space, time;
  for (int64_t level : levels) {
    plans.push_back(at_level(exec, level, machine));
    space.push_back(plans.back().preload_bytes_per_core);
    time.push_back(plans.back().distribute_s);
  }
  std::vector<PreloadPlan> front;
  for (size_t i : pareto_front(space, time)) front.push_back(std::move(plans[i]));
  return front;
}

}  // namespace tessera::planner::partition
