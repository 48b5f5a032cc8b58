#include "framework/mapper/dataflow.hpp"

namespace tessera::mapper {

std::vector<std::vector<int>> helpful_ranks(const Problem& p, const Hierarchy&,
                                            const Dataplacement& dp) {
  std::vector<std::vector<int>> slots(dp.size() + 1);
  for (size_t k = 0; k <= dp.size(); ++k) {
    int upper = k == 0 ? -1 : dp[k - 1].tensor;
    int lower = k == dp.size() ? -1 : dp[k].tensor;
    for (int r = 0; r < p.num_ranks(); ++r) {
      if (p.rank_extents[r] == 1) continue;
      bool below_ok = lower < 0 || p.indexes(lower, r);
      bool above_ok = upper < 0 || p.relevance[upper][r] != Relevance::full;
      if (below_ok && above_ok) slots[k].push_back(r);
    }
  }
  return slots;
}

std::vector<int> spatial_ranks(const Problem& p, const Hierarchy& h, int f) {
  std::vector<int> ranks;
  for (int r = 0; r < p.num_ranks(); ++r)
    if (p.rank_extents[r] > 1 && h.fanouts[f].allowed_rank[r]) ranks.push_back(r);
  return ranks;
}

LoopTree build_tree(const Problem& p, const Hierarchy& h, const Dataplacement& dp,
                    const std::vector<std::vector<int>>& slot_ranks) {
  LoopTree tree;
  for (int t = 0; t < p.num_tensors(); ++t)
    tree.nodes.push_back({NodeKind::storage, 0, t, 0, 0, 1});
  for (size_t k = 0; k <= dp.size(); ++k) {
    for (int r : slot_ranks[k]) tree.nodes.push_back({NodeKind::temporal, 0, 0, r, 0, 1});
    // Fan-outs whose place is this slot: every node above is of an outer level, the next is not.
    int level_above = k == 0 ? 0 : dp[k - 1].level;
    int level_below = k == dp.size() ? h.num_levels() : dp[k].level;
    for (size_t f = 0; f < h.fanouts.size(); ++f) {
      int fl = h.fanouts[f].level;
      if (fl <= level_above || fl > level_below) continue;
      for (int r : spatial_ranks(p, h, static_cast<int>(f)))
        tree.nodes.push_back({NodeKind::spatial, 0, 0, r, static_cast<int>(f), 1});
    }
    if (k < dp.size())
      tree.nodes.push_back({NodeKind::storage, dp[k].level, dp[k].tensor, 0, 0, 1});
  }
  return tree;
}

std::vector<LoopTree> pruned_dataflows(const Problem& p, const Hierarchy& h,
                                       const Dataplacement& dp) {
  auto helpful = helpful_ranks(p, h, dp);
  // Per slot, the orders worth exploring: one per line-buffer candidate first, else rank order.
  // A candidate is kept even if it does not index the tensor below: the line buffer it makes can
  // save more capacity than moving it down would save refetches.
  std::vector<std::vector<std::vector<int>>> options(helpful.size());
  for (size_t k = 0; k < helpful.size(); ++k) {
    int upper = k == 0 ? -1 : dp[k - 1].tensor;
    for (int first = 0; upper >= 0 && first < p.num_ranks(); ++first) {
      if (p.rank_extents[first] == 1 || p.relevance[upper][first] != Relevance::partial) continue;
      std::vector<int> order{first};
      for (int r : helpful[k])
        if (r != first) order.push_back(r);
      options[k].push_back(order);
    }
    if (options[k].empty()) options[k].push_back(helpful[k]);
  }
  std::vector<LoopTree> trees;
  std::vector<size_t> pick(options.size(), 0);
  while (true) {
    std::vector<std::vector<int>> slots;
    for (size_t k = 0; k < options.size(); ++k) slots.push_back(options[k][pick[k]]);
    trees.push_back(build_tree(p, h, dp, slots));
    size_t k = 0;
    while (k < pick.size() && ++pick[k] == options[k].size()) pick[k++] = 0;
    if (k == pick.size()) break;
  }
  return trees;
}

}  // namespace tessera::mapper
