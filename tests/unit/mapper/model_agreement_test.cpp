// The curried model (compiled once per template, evaluated per tile shape) and the uncurried
// reference model give exactly the same traffic, and so bit-identical metrics, on random mappings
// from the full mapspace: random dataplacements, every rank in every slot in random orders, random
// factorisations, including line buffers and multicast.
#include <gtest/gtest.h>

#include <algorithm>

#include "framework/mapper/compiled_model.hpp"
#include "framework/mapper/dataflow.hpp"
#include "framework/mapper/dataplacement.hpp"
#include "framework/mapper/reference_model.hpp"
#include "random_problems.hpp"

namespace tessera::mapper::testing {
namespace {

// A random tree of the full mapspace with random bounds (fan-out sizes may be exceeded: both
// models must agree on any structure).
LoopTree random_full_tree(std::mt19937_64& rng, const Problem& p, const Hierarchy& h) {
  auto dps = enumerate_dataplacements(p, h);
  const auto& dp = dps[std::uniform_int_distribution<size_t>(0, dps.size() - 1)(rng)];
  std::vector<int> ranks;
  for (int r = 0; r < p.num_ranks(); ++r)
    if (p.rank_extents[r] > 1) ranks.push_back(r);
  std::vector<std::vector<int>> slots(dp.size() + 1);
  for (auto& s : slots) {
    for (int r : ranks)
      if (std::uniform_int_distribution<int>(0, 2)(rng) > 0) s.push_back(r);
    std::shuffle(s.begin(), s.end(), rng);
  }
  LoopTree tree = build_tree(p, h, dp, slots);
  for (int r = 0; r < p.num_ranks(); ++r) {
    int64_t left = p.rank_extents[r];
    std::vector<size_t> loops;
    for (size_t i = 0; i < tree.nodes.size(); ++i)
      if (tree.nodes[i].is_loop() && tree.nodes[i].rank == r) loops.push_back(i);
    std::shuffle(loops.begin(), loops.end(), rng);
    for (size_t k = 0; k < loops.size(); ++k) {
      std::vector<int64_t> divs;
      for (int64_t d = 1; d <= left; ++d)
        if (left % d == 0) divs.push_back(d);
      int64_t b = k + 1 == loops.size()
                      ? left
                      : divs[std::uniform_int_distribution<size_t>(0, divs.size() - 1)(rng)];
      tree.nodes[loops[k]].bound = b;
      left /= b;
    }
  }
  return tree;
}

TEST(ModelAgreement, CurriedEqualsReferenceOnRandomMappings) {
  std::mt19937_64 rng(7);
  int compared = 0;
  for (int i = 0; i < 300; ++i) {
    Problem p = random_problem(rng, static_cast<ProblemKind>(i % 3));
    Hierarchy h = random_hierarchy(rng, p);
    for (int j = 0; j < 5; ++j) {
      LoopTree tree = random_full_tree(rng, p, h);
      bool has_all_loops = true;
      for (int r = 0; r < p.num_ranks(); ++r) {
        bool any = false;
        for (const auto& n : tree.nodes) any = any || (n.is_loop() && n.rank == r);
        has_all_loops = has_all_loops && (any || p.rank_extents[r] == 1);
      }
      if (!has_all_loops) continue;
      Evaluation ref = evaluate_reference(p, h, tree);
      CompiledModel model(p, h, tree);
      Traffic curried = model.evaluate(tree);
      ASSERT_EQ(curried, ref.traffic) << p.str() << "\n" << render_looptree(tree, p, h);
      Metrics m = aggregate(h, p.points(), curried);
      EXPECT_EQ(m.energy_joules, ref.metrics.energy_joules);
      EXPECT_EQ(m.latency_seconds, ref.metrics.latency_seconds);
      ++compared;
    }
  }
  EXPECT_GT(compared, 1000);
}

}  // namespace
}  // namespace tessera::mapper::testing
