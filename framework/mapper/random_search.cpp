#include "framework/mapper/random_search.hpp"

#include <algorithm>
#include <chrono>
#include <limits>
#include <random>

#include "framework/mapper/dataflow.hpp"
#include "framework/mapper/dataplacement.hpp"
#include "framework/mapper/reference_model.hpp"

namespace tessera::mapper {

namespace {

using Rng = std::mt19937_64;

uint64_t uniform(Rng& rng, uint64_t n) {
  return std::uniform_int_distribution<uint64_t>(0, n - 1)(rng);
}

std::vector<std::pair<int64_t, int>> prime_factors(int64_t n) {
  std::vector<std::pair<int64_t, int>> out;
  for (int64_t p = 2; p * p <= n; ++p) {
    int e = 0;
    while (n % p == 0) {
      n /= p;
      ++e;
    }
    if (e) out.emplace_back(p, e);
  }
  if (n > 1) out.emplace_back(n, 1);
  return out;
}

// A uniformly random ordered factorisation of n over `k` loops: per prime, a uniformly random
// composition of its exponent into k parts (stars and bars).
std::vector<int64_t> random_factors(Rng& rng, int64_t n, size_t k) {
  std::vector<int64_t> f(k, 1);
  for (auto [p, e] : prime_factors(n)) {
    size_t total = static_cast<size_t>(e) + k - 1;
    std::vector<size_t> positions(total);
    for (size_t i = 0; i < total; ++i) positions[i] = i;
    std::shuffle(positions.begin(), positions.end(), rng);
    std::vector<size_t> bars(positions.begin(), positions.begin() + static_cast<long>(k - 1));
    std::sort(bars.begin(), bars.end());
    size_t start = 0;  // first position after the previous bar
    for (size_t i = 0; i < k; ++i) {
      size_t end = i + 1 < k ? bars[i] : total;
      for (size_t s = start; s < end; ++s) f[i] *= p;
      start = end + 1;
    }
  }
  return f;
}

LoopTree random_tree(Rng& rng, const Problem& p, const Hierarchy& h,
                     const std::vector<Dataplacement>& dps) {
  const Dataplacement& dp = dps[uniform(rng, dps.size())];
  std::vector<int> ranks;
  for (int r = 0; r < p.num_ranks(); ++r)
    if (p.rank_extents[r] > 1) ranks.push_back(r);
  std::vector<std::vector<int>> slots(dp.size() + 1, ranks);
  for (auto& s : slots) std::shuffle(s.begin(), s.end(), rng);
  LoopTree tree = build_tree(p, h, dp, slots);
  for (int r = 0; r < p.num_ranks(); ++r) {
    std::vector<size_t> loops;
    for (size_t i = 0; i < tree.nodes.size(); ++i)
      if (tree.nodes[i].is_loop() && tree.nodes[i].rank == r) loops.push_back(i);
    if (loops.empty()) continue;
    auto f = random_factors(rng, p.rank_extents[r], loops.size());
    for (size_t k = 0; k < loops.size(); ++k) tree.nodes[loops[k]].bound = f[k];
  }
  return tree;
}

bool fanouts_fit(const LoopTree& tree, const Hierarchy& h) {
  std::vector<double> used(h.fanouts.size(), 1.0);
  for (const auto& n : tree.nodes)
    if (n.kind == NodeKind::spatial) used[n.fanout] *= static_cast<double>(n.bound);
  for (size_t f = 0; f < used.size(); ++f)
    if (used[f] > static_cast<double>(h.fanouts[f].size)) return false;
  return true;
}

}  // namespace

double RandomSearchResult::best_at(double s) const {
  double found = std::numeric_limits<double>::infinity();
  for (const auto& [t, score] : improvements)
    if (t <= s) found = score;
  return found;
}

RandomSearchResult random_search(const Problem& p, const Hierarchy& h,
                                 const RandomSearchOptions& options) {
  using Clock = std::chrono::steady_clock;
  auto start = Clock::now();
  RandomSearchResult result;
  Rng rng(options.seed);
  auto dps = enumerate_dataplacements(p, h);
  auto elapsed = [&] { return std::chrono::duration<double>(Clock::now() - start).count(); };
  while (options.max_samples == 0 || result.samples < options.max_samples) {
    if (result.samples % 64 == 0 && elapsed() >= options.time_limit_seconds) break;
    ++result.samples;
    LoopTree tree = random_tree(rng, p, h, dps);
    if (!fanouts_fit(tree, h)) continue;
    Evaluation ev = evaluate_reference(p, h, tree);
    if (!ev.valid) continue;
    ++result.valid;
    Score score = score_of(options.objective, ev.metrics, 0);
    if (result.best && !(score.primary < result.best->score.primary)) continue;
    result.best = Candidate{score, ev.metrics, 0, 0, std::move(tree)};
    result.improvements.emplace_back(elapsed(), score.primary);
  }
  result.seconds = elapsed();
  return result;
}

}  // namespace tessera::mapper
