#include "brute_force.hpp"

#include <algorithm>

#include "framework/mapper/reference_model.hpp"

namespace tessera::mapper::testing {

namespace {

using Placement = std::vector<std::pair<int, int>>;  // (level, tensor), top to bottom

void placements(const Hierarchy& h, int tensors, int level, Placement& cur,
                std::vector<Placement>& out) {
  if (level == h.num_levels()) {
    out.push_back(cur);
    return;
  }
  const Level& l = h.levels[level];
  for (unsigned mask = 0; mask < (1u << tensors); ++mask) {
    std::vector<int> chosen;
    bool ok = true;
    for (int t = 0; t < tensors; ++t) {
      bool in = mask & (1u << t);
      ok = ok && (!l.must_keep[t] || in) && (l.may_keep[t] || !in);
      if (in) chosen.push_back(t);
    }
    if (!ok) continue;
    do {
      size_t size = cur.size();
      for (int t : chosen) cur.emplace_back(level, t);
      placements(h, tensors, level + 1, cur, out);
      cur.resize(size);
    } while (std::next_permutation(chosen.begin(), chosen.end()));
  }
}

// All ordered factorisations of n into k factors.
void factorisations(int64_t n, size_t k, std::vector<int64_t>& cur,
                    std::vector<std::vector<int64_t>>& out) {
  if (cur.size() + 1 == k) {
    cur.push_back(n);
    out.push_back(cur);
    cur.pop_back();
    return;
  }
  for (int64_t d = 1; d <= n; ++d)
    if (n % d == 0) {
      cur.push_back(d);
      factorisations(n / d, k, cur, out);
      cur.pop_back();
    }
}

struct Loop {
  int rank;
  int slot;
  int fanout;  // -1: temporal
};

class Enumerator {
 public:
  Enumerator(const Problem& p, const Hierarchy& h, int pareto_level, uint64_t budget)
      : p_(p), h_(h), pareto_level_(pareto_level), budget_(budget) {}

  BruteForceResult run() {
    std::vector<Placement> all;
    Placement cur;
    placements(h_, p_.num_tensors(), 1, cur, all);
    for (const auto& dp : all) {
      if (result_.over_budget) break;
      placement(dp);
    }
    result_.front = pareto_points(scores_);
    return result_;
  }

 private:
  // The slot of fan-out f: below every node of an outer level.
  int fanout_slot(const Placement& dp, int f) const {
    int slot = 0;
    while (slot < static_cast<int>(dp.size()) && dp[slot].first < h_.fanouts[f].level) ++slot;
    return slot;
  }

  void placement(const Placement& dp) {
    dp_ = dp;
    loops_.clear();
    choices_.clear();
    for (int r = 0; r < p_.num_ranks(); ++r) {
      if (p_.rank_extents[r] == 1) continue;
      std::vector<size_t> mine;
      for (int s = 0; s <= static_cast<int>(dp.size()); ++s) {
        mine.push_back(loops_.size());
        loops_.push_back({r, s, -1});
      }
      for (size_t f = 0; f < h_.fanouts.size(); ++f)
        if (h_.fanouts[f].allowed_rank[r]) {
          mine.push_back(loops_.size());
          loops_.push_back({r, fanout_slot(dp, static_cast<int>(f)), static_cast<int>(f)});
        }
      std::vector<std::vector<int64_t>> fs;
      std::vector<int64_t> tmp;
      factorisations(p_.rank_extents[r], mine.size(), tmp, fs);
      choices_.push_back({mine, fs});
    }
    bounds_.assign(loops_.size(), 1);
    combine(0);
  }

  void combine(size_t k) {
    if (result_.over_budget) return;
    if (k == choices_.size()) return orders();
    for (const auto& f : choices_[k].second) {
      for (size_t i = 0; i < f.size(); ++i) bounds_[choices_[k].first[i]] = f[i];
      combine(k + 1);
    }
  }

  void orders() {
    std::vector<double> used(h_.fanouts.size(), 1);
    for (size_t i = 0; i < loops_.size(); ++i)
      if (loops_[i].fanout >= 0) used[loops_[i].fanout] *= static_cast<double>(bounds_[i]);
    for (size_t f = 0; f < used.size(); ++f)
      if (used[f] > static_cast<double>(h_.fanouts[f].size)) return;
    slot_orders_.assign(dp_.size() + 1, {});
    for (size_t i = 0; i < loops_.size(); ++i)
      if (loops_[i].fanout < 0 && bounds_[i] > 1) slot_orders_[loops_[i].slot].push_back(i);
    for (auto& s : slot_orders_) std::sort(s.begin(), s.end());
    permute(0);
  }

  void permute(size_t slot) {
    if (result_.over_budget) return;
    if (slot == slot_orders_.size()) return evaluate();
    auto& order = slot_orders_[slot];
    std::sort(order.begin(), order.end());
    do permute(slot + 1);
    while (std::next_permutation(order.begin(), order.end()));
  }

  LoopTree tree() const {
    LoopTree tree;
    for (int t = 0; t < p_.num_tensors(); ++t)
      tree.nodes.push_back({NodeKind::storage, 0, t, 0, 0, 1});
    for (size_t s = 0; s <= dp_.size(); ++s) {
      for (size_t i : slot_orders_[s])
        tree.nodes.push_back({NodeKind::temporal, 0, 0, loops_[i].rank, 0, bounds_[i]});
      for (size_t i = 0; i < loops_.size(); ++i)
        if (loops_[i].fanout >= 0 && loops_[i].slot == static_cast<int>(s) && bounds_[i] > 1)
          tree.nodes.push_back(
              {NodeKind::spatial, 0, 0, loops_[i].rank, loops_[i].fanout, bounds_[i]});
      if (s < dp_.size())
        tree.nodes.push_back({NodeKind::storage, dp_[s].first, dp_[s].second, 0, 0, 1});
    }
    return tree;
  }

  void evaluate() {
    if (++result_.evaluated > budget_) {
      result_.over_budget = true;
      return;
    }
    Evaluation ev = evaluate_reference(p_, h_, tree());
    if (!ev.valid) return;
    double usage = ev.traffic.at(Traffic::usage, pareto_level_);
    keep(result_.energy, score_of(Objective::energy, ev.metrics, usage));
    keep(result_.latency, score_of(Objective::latency, ev.metrics, usage));
    keep(result_.edp, score_of(Objective::edp, ev.metrics, usage));
    scores_.push_back(score_of(Objective::pareto, ev.metrics, usage));
    if (scores_.size() > 4096) scores_ = pareto_points(scores_);
  }

  static void keep(std::optional<Score>& best, const Score& s) {
    if (!best || s.primary < best->primary ||
        (s.primary == best->primary && s.secondary < best->secondary))
      best = s;
  }

  const Problem& p_;
  const Hierarchy& h_;
  int pareto_level_;
  uint64_t budget_;
  BruteForceResult result_;
  std::vector<Score> scores_;
  Placement dp_;
  std::vector<Loop> loops_;
  std::vector<std::pair<std::vector<size_t>, std::vector<std::vector<int64_t>>>> choices_;
  std::vector<int64_t> bounds_;
  std::vector<std::vector<size_t>> slot_orders_;
};

}  // namespace

std::vector<Score> pareto_points(std::vector<Score> scores) {
  std::sort(scores.begin(), scores.end(), [](const Score& a, const Score& b) {
    return a.primary != b.primary ? a.primary < b.primary : a.secondary < b.secondary;
  });
  std::vector<Score> front;
  for (const auto& s : scores)
    if (front.empty() || s.secondary < front.back().secondary) front.push_back(s);
  return front;
}

BruteForceResult brute_force(const Problem& p, const Hierarchy& h, int pareto_level,
                             uint64_t budget) {
  return Enumerator(p, h, pareto_level, budget).run();
}

}  // namespace tessera::mapper::testing
