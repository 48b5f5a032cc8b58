// The mapper's best equals brute force over the full mapspace for every objective, on random small
// problems (matmul, batched matmul, conv with p+r, depthwise, strided 2-D conv) and random 2–4
// level hierarchies.
#include <gtest/gtest.h>

#include <cmath>

#include "brute_force.hpp"
#include "framework/mapper/mapper.hpp"
#include "framework/mapper/reference_model.hpp"
#include "random_problems.hpp"

namespace tessera::mapper::testing {
namespace {

constexpr int kProblemsPerKind = 20;
constexpr uint64_t kBudget = 20000;  // brute-force mappings per problem; larger ones are redrawn

void expect_same(const Score& mapper, const Score& brute, const std::string& what) {
  EXPECT_NEAR(mapper.primary, brute.primary, 1e-12 * std::fabs(brute.primary)) << what;
  EXPECT_NEAR(mapper.secondary, brute.secondary, 1e-12 * std::fabs(brute.secondary)) << what;
}

int pareto_level_of(const Hierarchy& h) {
  for (int l = h.num_levels() - 1; l > 0; --l)
    if (!std::isinf(h.levels[l].capacity_bytes)) return l;
  return h.num_levels() - 1;
}

// Returns the line-buffer choices the search skipped, so the test can see that pruning was tried.
uint64_t check_single(const Problem& p, const Hierarchy& h, Objective o,
                      const std::optional<Score>& brute, const std::string& what) {
  MapperOptions options;
  options.objective = o;
  options.threads = 1;
  MapResult r = run_mapper(p, h, options);
  uint64_t redundant = r.stats.tile.pruned_redundant;
  if (!brute) {
    EXPECT_TRUE(r.mappings.empty()) << what;
    EXPECT_FALSE(r.infeasible.empty()) << what;
    return redundant;
  }
  EXPECT_EQ(r.mappings.size(), 1u) << what << ": " << r.infeasible;
  if (r.mappings.size() != 1) return redundant;
  expect_same(r.mappings[0].score, *brute, what);
  Evaluation ev = evaluate_reference(p, h, r.mappings[0].tree);
  EXPECT_TRUE(ev.valid) << what;
  EXPECT_EQ(ev.metrics.energy_joules, r.mappings[0].metrics.energy_joules) << what;
  EXPECT_EQ(ev.metrics.latency_seconds, r.mappings[0].metrics.latency_seconds) << what;
  return redundant;
}

void check_front(const Problem& p, const Hierarchy& h, int level, const std::vector<Score>& brute,
                 const std::string& what) {
  MapperOptions options;
  options.objective = Objective::pareto;
  options.pareto_level = level;
  options.threads = 1;
  MapResult r = run_mapper(p, h, options);
  std::vector<Score> mine;
  for (const auto& c : r.mappings) mine.push_back(c.score);
  mine = pareto_points(mine);
  ASSERT_EQ(mine.size(), brute.size()) << what;
  for (size_t i = 0; i < mine.size(); ++i) expect_same(mine[i], brute[i], what + " front point");
}

class Optimality : public ::testing::TestWithParam<ProblemKind> {};

TEST_P(Optimality, EqualsBruteForceForEveryObjective) {
  std::mt19937_64 rng(1000 + static_cast<int>(GetParam()));
  int checked = 0, infeasible = 0, redrawn = 0;
  uint64_t redundant = 0;
  while (checked < kProblemsPerKind) {
    Problem p = random_problem(rng, GetParam());
    Hierarchy h = random_hierarchy(rng, p);
    int level = pareto_level_of(h);
    BruteForceResult brute = brute_force(p, h, level, kBudget);
    if (brute.over_budget) {
      ++redrawn;
      ASSERT_LT(redrawn, 200) << "random problems are too large for the brute-force budget";
      continue;
    }
    std::string what = p.str() + " on " + std::to_string(h.num_levels()) + " levels, " +
                       std::to_string(h.fanouts.size()) + " fan-outs (problem " +
                       std::to_string(checked) + ")";
    redundant += check_single(p, h, Objective::energy, brute.energy, what + ", energy");
    redundant += check_single(p, h, Objective::latency, brute.latency, what + ", latency");
    redundant += check_single(p, h, Objective::edp, brute.edp, what + ", edp");
    if (brute.edp) check_front(p, h, level, brute.front, what + ", pareto");
    infeasible += brute.edp ? 0 : 1;
    ++checked;
  }
  EXPECT_LT(infeasible, kProblemsPerKind / 4) << "too few feasible problems to mean much";
  bool line_buffers =
      GetParam() != ProblemKind::matmul && GetParam() != ProblemKind::batched_matmul;
  EXPECT_EQ(redundant > 0, line_buffers) << "line-buffer templates' repeats were not pruned";
}

INSTANTIATE_TEST_SUITE_P(Kinds, Optimality,
                         ::testing::Values(ProblemKind::matmul, ProblemKind::batched_matmul,
                                           ProblemKind::conv, ProblemKind::depthwise,
                                           ProblemKind::conv2d),
                         [](const auto& param_info) {
                           switch (param_info.param) {
                             case ProblemKind::matmul:
                               return std::string("matmul");
                             case ProblemKind::batched_matmul:
                               return std::string("batched_matmul");
                             case ProblemKind::conv:
                               return std::string("conv");
                             case ProblemKind::depthwise:
                               return std::string("depthwise");
                             case ProblemKind::conv2d:
                               return std::string("conv2d");
                           }
                           return std::string("unknown");
                         });

}  // namespace
}  // namespace tessera::mapper::testing
