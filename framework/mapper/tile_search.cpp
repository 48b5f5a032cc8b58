#include "framework/mapper/tile_search.hpp"

#include <algorithm>

#include "framework/mapper/mapspace_size.hpp"

namespace tessera::mapper {

TileSearchStats& TileSearchStats::operator+=(const TileSearchStats& o) {
  partial_shapes += o.partial_shapes;
  evaluated += o.evaluated;
  pruned_capacity += o.pruned_capacity;
  pruned_objective += o.pruned_objective;
  pruned_fanout += o.pruned_fanout;
  pruned_redundant += o.pruned_redundant;
  return *this;
}

namespace {

std::vector<int64_t> divisors_of(int64_t n) {
  std::vector<int64_t> small, large;
  for (int64_t d = 1; d * d <= n; ++d)
    if (n % d == 0) {
      small.push_back(d);
      if (d * d != n) large.push_back(n / d);
    }
  small.insert(small.end(), large.rbegin(), large.rend());
  return small;
}

class TileSearch {
 public:
  TileSearch(const Problem& p, const Hierarchy& h, const CompiledModel& m, size_t index,
             const TileSearchOptions& options, Incumbent& incumbent)
      : p_(p),
        h_(h),
        m_(m),
        index_(index),
        options_(options),
        incumbent_(incumbent),
        tree_(m.tree()),
        unassigned_(p.num_ranks()),
        rem_(p.rank_extents),
        fanout_used_(h.fanouts.size(), 1.0),
        pv_(m.parts().size()),
        traffic_(h.num_levels()) {
    const auto& loops = m.rank_loops();
    for (int r = 0; r < p.num_ranks(); ++r) {
      unassigned_[r] = static_cast<int>(loops[r].nodes.size());
      divisors_.push_back(divisors_of(p.rank_extents[r]));
      if (!loops[r].nodes.empty()) order_.push_back(r);
    }
    // Loosely bounded ranks first (below), then those with the fewest factorisations (the bounds
    // they fix tighten the rest soonest), then TCM's order: the rank whose innermost loop is
    // deepest. The order only changes the speed, never the result.
    std::vector<double> choices(p.num_ranks());
    for (int r : order_)
      choices[r] = log10_factorizations(p.rank_extents[r], static_cast<int>(loops[r].nodes.size()));
    std::stable_sort(order_.begin(), order_.end(), [&](int a, int b) {
      if (loosely_bounded(a) != loosely_bounded(b)) return loosely_bounded(a);
      if (choices[a] != choices[b]) return choices[a] < choices[b];
      return loops[a].nodes.back() > loops[b].nodes.back();
    });
    mark_redundant_line_buffers();
    frozen_.assign(order_.size(), std::vector<double>(m.num_terms()));
    base_.assign(order_.size(), Traffic(h.num_levels()));
    for (int r = 0; r < p.num_ranks(); ++r) refresh_parts(r);
    saved_pv_.assign(order_.size(), pv_);
    snapshot_ = incumbent_.snapshot();
    snapshot_version_ = incumbent_.version();
  }

  TileSearchStats run() {
    if (order_.empty()) {
      m_.evaluate(pv_.data(), traffic_);
      if (fits()) leaf();
    } else {
      choose(0, static_cast<int>(m_.rank_loops()[order_[0]].nodes.size()) - 1);
    }
    return stats_;
  }

 private:
  // Chooses the bound of loop j (from the top) of the k-th rank in order_; loops 0..j are open.
  void choose(size_t k, int j) {
    int r = order_[k];
    const RankLoops& rl = m_.rank_loops()[r];
    bool entering = j + 1 == static_cast<int>(rl.nodes.size());
    if (entering && !enter_rank(k)) {
      pv_ = saved_pv_[k];
      return;
    }
    int node = rl.nodes[j];
    int f = rl.fanout[j];
    int64_t rem = rem_[r];
    const auto& divs = divisors_[r];
    bool shares_fanout = f >= 0 && later_rank_uses(k, f);
    for (auto it = divs.rbegin(); it != divs.rend(); ++it) {
      int64_t d = *it;
      if (d > rem || rem % d != 0 || (j == 0 && d != rem)) continue;
      if (d == 1 && above_one_[node]) {
        ++stats_.pruned_redundant;
        continue;
      }
      if (f >= 0 &&
          static_cast<double>(d) * fanout_used_[f] > static_cast<double>(h_.fanouts[f].size)) {
        ++stats_.pruned_fanout;
        continue;
      }
      tree_.nodes[node].bound = d;
      unassigned_[r] = j;
      rem_[r] = rem / d;
      if (f >= 0)
        fanout_used_[f] *= static_cast<double>(d);
      else
        chosen_temporal_ *= static_cast<double>(d);
      refresh_parts(r);
      if (shares_fanout) refresh_later_ranks(k);
      descend(k, j);
      if (f >= 0)
        fanout_used_[f] /= static_cast<double>(d);
      else
        chosen_temporal_ /= static_cast<double>(d);
    }
    if (shares_fanout && !entering) refresh_later_ranks(k);
    tree_.nodes[node].bound = 1;
    unassigned_[r] = j + 1;
    rem_[r] = rem;
    if (entering) {
      pv_ = saved_pv_[k];
    } else {
      refresh_parts(r);
    }
  }

  // Until a rank's loops are chosen its parts are bounded one by one, which is loose where its
  // loops meet in one factor: a rank inside a sum (p in p+r) gives tile extents 2·P_below + R − 1
  // times P_above fills, bounded by R + 1 while it is open although P_below·P_above = P; a rank
  // the output does not index gives (fills − 1) partial-sum reads, bounded by 0. Choosing those
  // ranks first makes the bounds tight early (dw1: 329M → 7.5M partial shapes; conv1 and GPT-3
  // projections 2–6× fewer).
  bool loosely_bounded(int r) const {
    if (!p_.indexes(p_.output(), r)) return true;
    for (int t = 0; t < p_.num_tensors(); ++t)
      if (p_.relevance[t][r] == Relevance::partial) return true;
    return false;
  }

  // The dataflows put each rank inside a sum of a storage node's index (a line-buffer candidate)
  // directly under that node, one template per candidate. With that loop's bound 1 there is no
  // line buffer and the order of the slot's loops does not matter, so the mapping is, bound for
  // bound, one of the template that puts the first candidate (in rank order) there, or, if the
  // first loop above 1 is a candidate, dominated by the template that line-buffers it (the same
  // traffic in less space). Only the first candidate's template keeps bound 1 there: exact.
  void mark_redundant_line_buffers() {
    const auto& nodes = tree_.nodes;
    above_one_.assign(nodes.size(), false);
    for (size_t i = 0; i + 1 < nodes.size(); ++i) {
      if (nodes[i].kind != NodeKind::storage || nodes[i].level == 0) continue;
      if (nodes[i + 1].kind != NodeKind::temporal) continue;
      int t = nodes[i].tensor, x = nodes[i + 1].rank;
      if (p_.relevance[t][x] != Relevance::partial) continue;
      for (int r = 0; r < x; ++r)
        if (p_.rank_extents[r] > 1 && p_.relevance[t][r] == Relevance::partial)
          above_one_[i + 1] = true;
    }
  }

  // Does a rank after order_[k] have a spatial loop on fan-out f?
  bool later_rank_uses(size_t k, int f) const {
    for (size_t i = k + 1; i < order_.size(); ++i)
      for (int g : m_.rank_loops()[order_[i]].fanout)
        if (g == f) return true;
    return false;
  }

  // A spatial bound just chosen leaves less of its fan-out to the ranks after order_[k]: tighten
  // their bounds and refreeze.
  void refresh_later_ranks(size_t k) {
    for (size_t i = k + 1; i < order_.size(); ++i) refresh_parts(order_[i]);
    m_.freeze(pv_.data(), order_[k], frozen_[k].data(), base_[k]);
  }

  // Starting rank order_[k]: the ranks not started yet get bounds that know the fan-outs the
  // ranks before them use (valid below this point; restored on the way back up), and the terms
  // not involving order_[k] are frozen. Returns false when the tightened bounds already rule the
  // whole subtree out.
  bool enter_rank(size_t k) {
    saved_pv_[k] = pv_;
    for (size_t i = k; i < order_.size(); ++i) refresh_parts(order_[i]);
    m_.freeze(pv_.data(), order_[k], frozen_[k].data(), base_[k]);
    return k == 0 || survives(k, false);
  }

  void descend(size_t k, int j) {
    ++stats_.partial_shapes;
    bool complete = j == 0 && k + 1 == order_.size();
    if (!survives(k, complete)) return;
    if (complete) return leaf();
    if (j > 0) return choose(k, j - 1);
    choose(k + 1, static_cast<int>(m_.rank_loops()[order_[k + 1]].nodes.size()) - 1);
  }

  // Evaluates the bounds (exact once every loop is chosen) with order_[k] the rank being chosen;
  // false, counted, when the subtree overflows a level or cannot beat what is kept. A complete
  // mapping is left to leaf().
  bool survives(size_t k, bool complete) {
    m_.evaluate_frozen(pv_.data(), order_[k], frozen_[k].data(), base_[k], traffic_);
    if (!complete)
      traffic_.compute_steps() = std::max(traffic_.compute_steps(), joint_steps_bound());
    if (!fits()) {
      ++stats_.pruned_capacity;
      return false;
    }
    if (complete || may_improve()) return true;
    ++stats_.pruned_objective;
    return false;
  }

  // The compute steps are the product of every temporal loop: the chosen ones times, per rank,
  // what its open loops leave to time (rem_ over what its open spatial loops take). The parts
  // bound each rank alone, as if every rank could fill a fan-out they share; here the open spatial
  // loops together take at most, per fan-out, its room (size over the chosen spatial bounds) and
  // the product of the rems of the ranks with an open loop there, and in all at most the product
  // of those ranks' rems. Whole numbers far below 2^53, so exact; a lower bound on the steps.
  double joint_steps_bound() {
    double open = 1, spatial_rems = 1;
    std::fill(fanout_cap_.begin(), fanout_cap_.end(), 0.0);
    for (int r : order_) {
      const RankLoops& rl = m_.rank_loops()[r];
      double rem = static_cast<double>(rem_[r]);
      open *= rem;
      uint32_t spatial = rl.spatial_mask & ((1u << unassigned_[r]) - 1);
      if (spatial == 0) continue;
      spatial_rems *= rem;
      for (int j = 0; j < unassigned_[r]; ++j)
        if (spatial & (1u << j)) {
          double& cap = fanout_cap_[rl.fanout[j]];
          cap = cap == 0 ? rem : cap * rem;
        }
    }
    double take = 1;
    for (size_t f = 0; f < fanout_cap_.size(); ++f)
      if (fanout_cap_[f] != 0)
        take *= std::min(fanout_cap_[f], static_cast<double>(h_.fanouts[f].size) / fanout_used_[f]);
    return chosen_temporal_ * open / std::min(take, spatial_rems);
  }

  bool fits() const {
    for (int l = 0; l < h_.num_levels(); ++l)
      if (traffic_.at(Traffic::usage, l) > h_.levels[l].capacity_bytes) return false;
    return true;
  }

  Score current_score(Metrics& metrics) const {
    metrics = aggregate(h_, points_, traffic_);
    double usage = traffic_.at(Traffic::usage, options_.pareto_level);
    return score_of(options_.objective, metrics, usage);
  }

  bool may_improve() {
    refresh_snapshot();
    Metrics metrics;
    Score bound = current_score(metrics);
    return !snapshot_.prunes(options_.objective, bound, index_);
  }

  void leaf() {
    ++stats_.evaluated;
    if (options_.progress) options_.progress->fetch_add(1, std::memory_order_relaxed);
    refresh_snapshot();
    Candidate c;
    c.score = current_score(c.metrics);
    if (snapshot_.prunes(options_.objective, c.score, index_)) return;
    c.usage_bytes = traffic_.at(Traffic::usage, options_.pareto_level);
    c.template_index = index_;
    c.tree = tree_;
    if (incumbent_.offer(c)) refresh_snapshot(true);
  }

  void refresh_snapshot(bool now = false) {
    if (!now && ++since_refresh_ < 256) return;
    since_refresh_ = 0;
    uint64_t v = incumbent_.version();
    if (v == snapshot_version_) return;
    snapshot_ = incumbent_.snapshot();
    snapshot_version_ = v;
  }

  void refresh_parts(int r) {
    for (int id : m_.parts_of_rank()[r]) pv_[id] = part_bound(m_.parts()[id]);
  }

  // The smallest value the part can take given the bounds chosen so far: chosen loops count as
  // chosen; the open loops (the rank's top ones) multiply to rem_, so a part holding all of them
  // is exact, one holding none ignores them, and one holding some is at least 1 — or more when
  // the open loops outside it are spatial and cannot absorb all of rem_.
  double part_bound(const RankPart& part) const {
    const RankLoops& rl = m_.rank_loops()[part.rank];
    int open = unassigned_[part.rank];
    uint32_t open_mask = (1u << open) - 1;
    double known = 1;
    for (size_t j = open; j < rl.nodes.size(); ++j)
      if (part.mask & (1u << j)) known *= static_cast<double>(tree_.nodes[rl.nodes[j]].bound);
    if ((open_mask & part.mask) == 0) return known;
    uint32_t outside = open_mask & ~part.mask;
    double rem = static_cast<double>(rem_[part.rank]);
    if (outside == 0) return known * rem;
    if (outside & ~rl.spatial_mask) return known;
    double room = 1;
    for (int j = 0; j < open; ++j)
      if (outside & (1u << j)) {
        int f = rl.fanout[j];
        room *= static_cast<double>(h_.fanouts[f].size) / fanout_used_[f];
      }
    return room >= rem ? known : known * (rem / room);
  }

  const Problem& p_;
  const Hierarchy& h_;
  const CompiledModel& m_;
  size_t index_;
  TileSearchOptions options_;
  Incumbent& incumbent_;
  LoopTree tree_;
  std::vector<int> order_;
  std::vector<bool> above_one_;  // per tree node: a bound of 1 is redundant (line buffers)
  std::vector<int> unassigned_;
  std::vector<int64_t> rem_;
  std::vector<double> fanout_used_;
  std::vector<double> fanout_cap_ = std::vector<double>(h_.fanouts.size());
  double chosen_temporal_ = 1;  // product of the chosen temporal bounds
  std::vector<double> pv_;
  std::vector<std::vector<double>> saved_pv_;  // pv_ when rank order_[k] was entered
  std::vector<std::vector<int64_t>> divisors_;
  double points_ = p_.points();
  Traffic traffic_;
  std::vector<std::vector<double>> frozen_;  // per rank in order_: compiled_model.hpp freeze()
  std::vector<Traffic> base_;
  Incumbent::Snapshot snapshot_;
  uint64_t snapshot_version_ = 0;
  uint64_t since_refresh_ = 0;
  TileSearchStats stats_;
};

}  // namespace

TileSearchStats search_tile_shapes(const Problem& problem, const Hierarchy& hierarchy,
                                   const CompiledModel& model, size_t template_index,
                                   const TileSearchOptions& options, Incumbent& incumbent) {
  return TileSearch(problem, hierarchy, model, template_index, options, incumbent).run();
}

}  // namespace tessera::mapper
