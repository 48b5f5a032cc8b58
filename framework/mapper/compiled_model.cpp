#include "framework/mapper/compiled_model.hpp"

#include <map>
#include <utility>

namespace tessera::mapper {

namespace {

using Masks = std::vector<uint32_t>;  // [rank]: a subset of the rank's loops

// A term while it is being built: a coefficient times parts, extents and (product − 1) factors.
struct Draft {
  explicit Draft(double c = 1) : coeff(c) {}
  double coeff;
  bool zero = false;
  std::vector<std::pair<int, uint32_t>> parts;  // (rank, mask), one per rank where disjoint
  std::vector<std::vector<std::tuple<double, int, uint32_t>>> extents;  // Σ c·(part − 1) + 1
  std::vector<Masks> minus_ones;

  Draft& times(const Masks& m) {
    for (int r = 0; r < static_cast<int>(m.size()); ++r) times_part(r, m[r]);
    return *this;
  }
  void times_part(int r, uint32_t mask) {
    if (mask == 0) return;
    for (auto& [rank, existing] : parts)
      if (rank == r && (existing & mask) == 0) {
        existing |= mask;
        return;
      }
    parts.emplace_back(r, mask);
  }
  Draft& times_tile(const Problem& p, int t, const Masks& m) {
    for (const auto& dim : p.tensors[t].dims) {
      if (dim.terms.size() == 1 && dim.terms[0].coeff == 1) {
        times_part(dim.terms[0].rank, m[dim.terms[0].rank]);
        continue;
      }
      std::vector<std::tuple<double, int, uint32_t>> e;
      for (const auto& term : dim.terms)
        if (m[term.rank] != 0)
          e.emplace_back(static_cast<double>(term.coeff), term.rank, m[term.rank]);
      if (!e.empty()) extents.push_back(std::move(e));
    }
    return *this;
  }
  Draft& times_minus_one(const Masks& m) {
    bool any = false;
    for (uint32_t x : m) any = any || x != 0;
    if (!any) zero = true;  // a product of no loops is 1, and 1 − 1 = 0
    minus_ones.push_back(m);
    return *this;
  }
};

}  // namespace

class TermBuilder {
 public:
  TermBuilder(CompiledModel& m, const Problem& p, const Hierarchy& h) : m_(m), p_(p), h_(h) {}

  void build() {
    index_loops();
    std::vector<int> innermost(p_.num_tensors(), -1);
    const auto& nodes = m_.tree_.nodes;
    for (size_t i = 0; i < nodes.size(); ++i) {
      if (nodes[i].kind != NodeKind::storage) continue;
      int t = nodes[i].tensor;
      if (nodes[i].level == 0) {
        double bytes = static_cast<double>(p_.tensors[t].element_bytes);
        emit(Draft{bytes * p_.tensor_elements(t)}, Traffic::usage, 0);
      } else {
        storage_terms(i, nodes[innermost[t]].level);
      }
      innermost[t] = static_cast<int>(i);
    }
    for (int t = 0; t < p_.num_tensors(); ++t) compute_terms(t, nodes[innermost[t]].level);
    Draft steps;
    steps.times(where([](const LoopTreeNode& n, size_t) { return n.kind == NodeKind::temporal; }));
    emit_at(steps, m_.num_levels_ * Traffic::kinds);
  }

 private:
  void index_loops() {
    m_.rank_loops_.assign(p_.num_ranks(), {});
    m_.parts_of_rank_.assign(p_.num_ranks(), {});
    for (size_t i = 0; i < m_.tree_.nodes.size(); ++i) {
      const auto& n = m_.tree_.nodes[i];
      if (!n.is_loop()) continue;
      RankLoops& rl = m_.rank_loops_[n.rank];
      if (rl.nodes.size() == 31)  // parts are 32-bit masks; a search shifts by the loop count
        throw Failure(input_error("rank " + p_.rank_names[n.rank] +
                                  " would get more than 31 loops "
                                  "in one mapping; the mapper supports fewer storage nodes"));
      if (n.kind == NodeKind::spatial) rl.spatial_mask |= 1u << rl.nodes.size();
      rl.fanout.push_back(n.kind == NodeKind::spatial ? n.fanout : -1);
      rl.nodes.push_back(static_cast<int>(i));
    }
  }

  // Per rank, the loops (by position i in the tree) that satisfy `pred`.
  template <class Pred>
  Masks where(Pred pred) const {
    Masks m(p_.num_ranks(), 0);
    std::vector<int> seen(p_.num_ranks(), 0);
    for (size_t i = 0; i < m_.tree_.nodes.size(); ++i) {
      const auto& n = m_.tree_.nodes[i];
      if (!n.is_loop()) continue;
      if (pred(n, i)) m[n.rank] |= 1u << seen[n.rank];
      ++seen[n.rank];
    }
    return m;
  }

  bool shares(int t, const LoopTreeNode& n) const {
    return h_.fanouts[n.fanout].multicast[t] && !p_.indexes(t, n.rank);
  }
  Masks spatial(int upper, int lower, int t) const {  // fan-outs in (upper, lower], unshared for t
    return where([&](const LoopTreeNode& n, size_t) {
      if (n.kind != NodeKind::spatial) return false;
      int fl = h_.fanouts[n.fanout].level;
      return fl > upper && fl <= lower && (t < 0 || !shares(t, n));
    });
  }
  Masks instances(int level) const { return spatial(-1, level, -1); }
  Masks ranks_indexing(Masks m, int t, bool indexing) const {
    for (int r = 0; r < p_.num_ranks(); ++r)
      if (p_.indexes(t, r) != indexing) m[r] = 0;
    return m;
  }

  void storage_terms(size_t i, int parent_level) {
    const auto& node = m_.tree_.nodes[i];
    int t = node.tensor, level = node.level;
    double bytes = static_cast<double>(p_.tensors[t].element_bytes);
    Masks below = where([&](const LoopTreeNode&, size_t j) { return j > i; });
    Masks held = below;
    if (i + 1 < m_.tree_.nodes.size()) {
      const auto& next = m_.tree_.nodes[i + 1];
      if (next.kind == NodeKind::temporal && p_.relevance[t][next.rank] == Relevance::partial)
        held[next.rank] &= held[next.rank] - 1;  // the loop directly under: the rank's top one
    }
    emit(Draft{bytes}.times_tile(p_, t, held), Traffic::usage, level);
    Masks fills = where(
        [&](const LoopTreeNode& n, size_t j) { return j < i && n.kind == NodeKind::temporal; });
    Masks x = spatial(parent_level, level, t);
    if (!p_.tensors[t].is_output()) {
      Draft filled = Draft{bytes}.times(fills).times_tile(p_, t, below);
      access(filled, Traffic::write, level);
      access(Draft(filled).times(x), Traffic::read, parent_level);
      return;
    }
    Draft filled = Draft{bytes}
                       .times(ranks_indexing(fills, t, true))
                       .times_minus_one(ranks_indexing(fills, t, false))
                       .times_tile(p_, t, below);
    Draft drained = Draft{bytes}.times(fills).times_tile(p_, t, below);
    access(filled, Traffic::write, level);
    access(drained, Traffic::read, level);
    access(Draft(filled).times(x), Traffic::read, parent_level);
    access(Draft(drained).times(x), Traffic::write, parent_level);
  }

  void compute_terms(int t, int level) {
    double bytes = static_cast<double>(p_.tensors[t].element_bytes);
    Masks steps = where([](const LoopTreeNode& n, size_t) { return n.kind == NodeKind::temporal; });
    Masks x = spatial(level, m_.num_levels_, t);
    if (!p_.tensors[t].is_output()) {
      access(Draft{bytes}.times(steps).times(x), Traffic::read, level);
      return;
    }
    access(Draft{bytes}.times(steps).times(x), Traffic::write, level);
    access(Draft{bytes}
               .times(ranks_indexing(steps, t, true))
               .times_minus_one(ranks_indexing(steps, t, false))
               .times(x),
           Traffic::read, level);
  }

  // Per instance and, times the used instances, in total.
  void access(const Draft& d, Traffic::Kind kind, int level) {
    emit(d, kind, level);
    Traffic::Kind total = kind == Traffic::read ? Traffic::total_read : Traffic::total_write;
    emit(Draft(d).times(instances(level)), total, level);
  }

  void emit(const Draft& d, Traffic::Kind kind, int level) {
    emit_at(d, kind * m_.num_levels_ + level);
  }

  void emit_at(const Draft& d, int dest) {
    if (d.zero) return;
    CompiledModel::Term term{d.coeff, static_cast<uint32_t>(m_.factors_.size()), 0, dest};
    for (const auto& [rank, mask] : d.parts)
      add_factor(CompiledModel::FactorKind::part, {{1.0, rank, mask}});
    for (const auto& e : d.extents) add_factor(CompiledModel::FactorKind::extent, e);
    for (const auto& m : d.minus_ones) {
      std::vector<std::tuple<double, int, uint32_t>> args;
      for (int r = 0; r < p_.num_ranks(); ++r)
        if (m[r] != 0) args.emplace_back(1.0, r, m[r]);
      add_factor(CompiledModel::FactorKind::minus_one, args);
    }
    term.num_factors = static_cast<uint32_t>(m_.factors_.size()) - term.first_factor;
    m_.terms_.push_back(term);
  }

  void add_factor(CompiledModel::FactorKind kind,
                  const std::vector<std::tuple<double, int, uint32_t>>& args) {
    CompiledModel::Factor f{kind, static_cast<uint32_t>(m_.args_.size()),
                            static_cast<uint32_t>(args.size())};
    for (const auto& [coeff, rank, mask] : args) m_.args_.push_back({part_id(rank, mask), coeff});
    m_.factors_.push_back(f);
  }

  int part_id(int rank, uint32_t mask) {
    auto key = std::make_pair(rank, mask);
    auto it = ids_.find(key);
    if (it != ids_.end()) return it->second;
    int id = static_cast<int>(m_.parts_.size());
    m_.parts_.push_back({rank, mask});
    m_.parts_of_rank_[rank].push_back(id);
    ids_.emplace(key, id);
    return id;
  }

  CompiledModel& m_;
  const Problem& p_;
  const Hierarchy& h_;
  std::map<std::pair<int, uint32_t>, int> ids_;
};

CompiledModel::CompiledModel(const Problem& p, const Hierarchy& h, LoopTree tmpl)
    : tree_(std::move(tmpl)), num_levels_(h.num_levels()) {
  TermBuilder(*this, p, h).build();
  index_ranks();
}

void CompiledModel::index_ranks() {
  for (const Factor& f : factors_) {
    uint64_t ranks = 0;
    for (uint32_t k = 0; k < f.count; ++k)
      ranks |= uint64_t{1} << parts_[args_[f.first + k].part].rank;
    factor_ranks_.push_back(ranks);
  }
  size_t num_ranks = rank_loops_.size();
  rank_terms_.assign(num_ranks, {});
  rank_factors_.assign(num_ranks, {});
  for (size_t r = 0; r < num_ranks; ++r)
    for (uint32_t t = 0; t < terms_.size(); ++t) {
      RankTerm rt{t, static_cast<uint32_t>(rank_factors_[r].size()), 0};
      for (uint32_t k = 0; k < terms_[t].num_factors; ++k)
        if (factor_ranks_[terms_[t].first_factor + k] & (uint64_t{1} << r))
          rank_factors_[r].push_back(terms_[t].first_factor + k);
      rt.count = static_cast<uint32_t>(rank_factors_[r].size()) - rt.first;
      if (rt.count) rank_terms_[r].push_back(rt);
    }
}

void CompiledModel::freeze(const double* pv, int rank, double* frozen, Traffic& base) const {
  base.clear();
  double* acc = base.data();
  uint64_t bit = uint64_t{1} << rank;
  for (size_t t = 0; t < terms_.size(); ++t) {
    const Term& term = terms_[t];
    double v = term.coeff;
    bool involved = false;
    for (uint32_t k = 0; k < term.num_factors; ++k) {
      uint32_t f = term.first_factor + k;
      if (factor_ranks_[f] & bit)
        involved = true;
      else
        v *= factor_value(factors_[f], pv);
    }
    frozen[t] = v;
    if (!involved) acc[term.dest] += v;
  }
}

void CompiledModel::evaluate_frozen(const double* pv, int rank, const double* frozen,
                                    const Traffic& base, Traffic& out) const {
  out = base;
  double* acc = out.data();
  const uint32_t* factors = rank_factors_[rank].data();
  for (const RankTerm& rt : rank_terms_[rank]) {
    double v = frozen[rt.term];
    for (uint32_t k = 0; k < rt.count; ++k) v *= factor_value(factors_[factors[rt.first + k]], pv);
    acc[terms_[rt.term].dest] += v;
  }
}

void CompiledModel::exact_parts(const LoopTree& tree, double* values) const {
  for (size_t k = 0; k < parts_.size(); ++k) {
    const RankLoops& rl = rank_loops_[parts_[k].rank];
    double v = 1;
    for (size_t j = 0; j < rl.nodes.size(); ++j)
      if (parts_[k].mask & (1u << j)) v *= static_cast<double>(tree.nodes[rl.nodes[j]].bound);
    values[k] = v;
  }
}

double CompiledModel::factor_value(const Factor& f, const double* pv) const {
  const Arg* a = args_.data() + f.first;
  if (f.kind == FactorKind::part) [[likely]]
    return pv[a->part];
  switch (f.kind) {
    case FactorKind::part:
      return pv[a->part];
    case FactorKind::extent: {
      double e = 1;
      for (uint32_t k = 0; k < f.count; ++k) e += a[k].coeff * (pv[a[k].part] - 1);
      return e;
    }
    case FactorKind::minus_one: {
      double prod = 1;
      for (uint32_t k = 0; k < f.count; ++k) prod *= pv[a[k].part];
      return prod - 1;
    }
  }
  return 0;
}

void CompiledModel::evaluate(const double* pv, Traffic& out) const {
  out.clear();
  double* acc = out.data();
  for (const Term& term : terms_) {
    double v = term.coeff;
    const Factor* f = factors_.data() + term.first_factor;
    for (uint32_t k = 0; k < term.num_factors; ++k) v *= factor_value(f[k], pv);
    acc[term.dest] += v;
  }
}

Traffic CompiledModel::evaluate(const LoopTree& tree) const {
  std::vector<double> pv(parts_.size());
  exact_parts(tree, pv.data());
  Traffic out(num_levels_);
  evaluate(pv.data(), out);
  return out;
}

}  // namespace tessera::mapper
