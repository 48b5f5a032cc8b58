// Spatial plans: one split factor per rank, product <= cores (T10; docs/planner.md).
//
// Candidate factors of a rank with extent E: the divisors of E (no padding; at most
// kMaxDivisorsPerRank, spread evenly over the sorted list, 1 and the largest kept) and cores/d for
// every divisor d of the core count (plans that fill the machine, e.g. n/368 on 5888 cores) that
// pads the rank by at most 1 - kMinPaddingEfficiency. So a rank has at most kMaxDivisorsPerRank +
// divisors(cores) candidates (24 + 18 on 5888 cores).
//
// Pruning (the artifact keeps plans that use at least ~0.9·min(P/(P+2·cores), ...) of the cores
// and pad little; we use fixed, documented thresholds):
//   - cores used >= kMinCoreFraction × min(cores, iteration points): more cores always shorten a
//     tile and shrink its state, so plans leaving most cores idle are never on the Pareto front
//     unless nothing fuller exists;
//   - padding efficiency (useful / computed points) >= kMinPaddingEfficiency;
//   - at most kMaxSpatialPlans survivors, by useful parallelism (cores × padding efficiency), then
//     cores used, then enumeration order (deterministic).
// The depth-first enumeration cuts a branch as soon as its padding is too high or the remaining
// ranks cannot reach the core threshold, so the work stays near the number of survivors.
#include <algorithm>
#include <cmath>

#include "framework/planner/partition/plan_space.hpp"

namespace tessera::planner::partition {

namespace {

int64_t ceil_div(int64_t a, int64_t b) {
  return (a + b - 1) / b;
}

double padding_efficiency(int64_t extent, int64_t factor) {
  return static_cast<double>(extent) / static_cast<double>(factor * ceil_div(extent, factor));
}

std::vector<int64_t> divisors(int64_t n, int64_t limit) {
  std::vector<int64_t> out;
  for (int64_t d = 1; d * d <= n; ++d) {
    if (n % d != 0) continue;
    if (d <= limit) out.push_back(d);
    if (n / d != d && n / d <= limit) out.push_back(n / d);
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<int64_t> thin_out(const std::vector<int64_t>& sorted, size_t keep) {
  if (sorted.size() <= keep) return sorted;
  std::vector<int64_t> out;
  for (size_t i = 0; i < keep; ++i) out.push_back(sorted[i * (sorted.size() - 1) / (keep - 1)]);
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::vector<int64_t> rank_factors(int64_t extent, int64_t cores) {
  std::vector<int64_t> factors = thin_out(divisors(extent, cores), kMaxDivisorsPerRank);
  for (int64_t d : divisors(cores, cores)) {
    int64_t f = cores / d;
    if (f <= extent && padding_efficiency(extent, f) >= kMinPaddingEfficiency) factors.push_back(f);
  }
  std::sort(factors.begin(), factors.end());
  factors.erase(std::unique(factors.begin(), factors.end()), factors.end());
  return factors;
}

struct Search {
  const OpShape& op;
  int64_t cores;
  int64_t min_cores;
  std::vector<std::vector<int64_t>> factors;
  std::vector<int64_t> max_product_from;  // per rank: product of the largest factors from it on
  std::vector<int64_t> chosen;
  std::vector<SpatialPlan> found;

  void visit(size_t rank, int64_t product, double efficiency) {
    if (rank == factors.size()) {
      if (product < min_cores) return;
      SpatialPlan plan;
      plan.factors = chosen;
      for (size_t r = 0; r < chosen.size(); ++r)
        plan.tile.push_back(ceil_div(op.extents[r], chosen[r]));
      plan.cores_used = static_cast<uint32_t>(product);
      found.push_back(std::move(plan));
      return;
    }
    for (int64_t f : factors[rank]) {
      if (product * f > cores) break;
      if (product * f * max_product_from[rank + 1] < min_cores) continue;
      double e = efficiency * padding_efficiency(op.extents[rank], f);
      if (e < kMinPaddingEfficiency) continue;
      chosen[rank] = f;
      visit(rank + 1, product * f, e);
    }
  }
};

double plan_efficiency(const OpShape& op, const SpatialPlan& plan) {
  double e = 1;
  for (size_t r = 0; r < plan.factors.size(); ++r)
    e *= padding_efficiency(op.extents[r], plan.factors[r]);
  return e;
}

}  // namespace

// The least cores a kept plan uses (chip_spec/conventions.hpp, PlanPruning).
int64_t min_cores(const OpShape& op, uint32_t cores, PlanPruning pruning) {
  if (pruning == PlanPruning::tessera)
    return static_cast<int64_t>(
        std::ceil(kMinCoreFraction * std::min(static_cast<double>(cores), op.points)));
  double largest = static_cast<double>(*std::max_element(op.extents.begin(), op.extents.end()));
  double ratio = std::min(op.points / (op.points + 2.0 * cores),
                          largest * static_cast<double>(op.extents.size()) / 220);
  return static_cast<int64_t>(std::floor(20 * 0.9 * ratio) / 20 * cores);
}

std::vector<SpatialPlan> spatial_plans(const OpShape& op, uint32_t cores, PlanPruning pruning) {
  Search search{op, static_cast<int64_t>(cores), 1, {}, {}, {}, {}};
  size_t ranks = op.extents.size();
  for (int64_t extent : op.extents) search.factors.push_back(rank_factors(extent, cores));
  search.max_product_from.assign(ranks + 1, 1);
  for (size_t r = ranks; r-- > 0;) {
    double product = static_cast<double>(search.max_product_from[r + 1]) *
                     static_cast<double>(search.factors[r].back());
    search.max_product_from[r] = static_cast<int64_t>(std::min(product, 1e15));
  }
  search.min_cores =
      std::max<int64_t>(1, std::min(search.max_product_from[0], min_cores(op, cores, pruning)));
  search.chosen.assign(ranks, 1);
  search.visit(0, 1, 1.0);
  if (search.found.empty()) {  // padding removed every plan that fills the cores: take any
    search.min_cores = 1;
    search.visit(0, 1, 1.0);
  }
  auto& found = search.found;
  // Useful parallelism (cores × padding efficiency) first, then more cores; stable for ties.
  std::vector<double> useful;
  for (const auto& plan : found) useful.push_back(plan.cores_used * plan_efficiency(op, plan));
  std::vector<size_t> order(found.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    if (useful[a] != useful[b]) return useful[a] > useful[b];
    return found[a].cores_used > found[b].cores_used;
  });
  if (order.size() > kMaxSpatialPlans) order.resize(kMaxSpatialPlans);
  std::vector<SpatialPlan> kept;
  for (size_t i : order) kept.push_back(std::move(found[i]));
  return kept;
}

}  // namespace tessera::planner::partition
