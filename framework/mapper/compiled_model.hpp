// The curried model (TCM §V-C): given a dataplacement and a dataflow (a LoopTree template whose
// bounds are not chosen yet), build once the expressions for every level's reads, writes and usage
// and for the compute steps — sums of products of loop bounds — and evaluate them for any bounds
// with a few hundred multiplications. The expressions are over "parts": the product of a chosen
// subset of one rank's loop bounds. Evaluating with every part exact gives exactly
// evaluate_reference's Traffic; evaluating with lower bounds on the parts gives lower bounds on
// all of it (every expression is monotone in the parts), which is how partial tile shapes are
// pruned (tile_search.hpp).
#pragma once

#include <cstdint>
#include <vector>

#include "framework/mapper/evaluation.hpp"
#include "framework/mapper/looptree.hpp"

namespace tessera::mapper {

// Product of the bounds of the loops of `rank` whose bit is set; bit j is the rank's j-th loop
// from the top.
struct RankPart {
  int rank = 0;
  uint32_t mask = 0;
};

// One rank's loops in the template, top to bottom.
struct RankLoops {
  std::vector<int> nodes;     // indices into the tree
  uint32_t spatial_mask = 0;  // bit j: loop j is spatial
  std::vector<int> fanout;    // per loop: fan-out index, or -1 for temporal
};

class CompiledModel {
 public:
  // `tmpl` must pass check_looptree once bounds are filled in (bounds are ignored). Throws Failure
  // (input) if a rank has more than 31 loops.
  CompiledModel(const Problem& problem, const Hierarchy& hierarchy, LoopTree tmpl);

  const LoopTree& tree() const { return tree_; }
  int num_levels() const { return num_levels_; }
  const std::vector<RankLoops>& rank_loops() const { return rank_loops_; }
  const std::vector<RankPart>& parts() const { return parts_; }
  // Part indices of each rank (a search refreshes only the rank it is choosing).
  const std::vector<std::vector<int>>& parts_of_rank() const { return parts_of_rank_; }

  // Exact part values for the bounds in `tree` (same structure as the template).
  void exact_parts(const LoopTree& tree, double* values) const;
  // Traffic for the given part values, written into `out` (sized for this hierarchy).
  void evaluate(const double* part_values, Traffic& out) const;
  // Convenience: the exact traffic of `tree`.
  Traffic evaluate(const LoopTree& tree) const;
  size_t num_terms() const { return terms_.size(); }

  // Incremental evaluation while only `rank`'s parts change (a search choosing that rank's
  // bounds): `freeze` stores per term the product of its factors that do not involve `rank`
  // (`frozen`, num_terms() long) and the traffic of the terms that do not involve it at all
  // (`base`); `evaluate_frozen` then multiplies in only the factors involving `rank`. Equal to
  // evaluate() up to the order of multiplication (exact for whole numbers below 2^53).
  void freeze(const double* part_values, int rank, double* frozen, Traffic& base) const;
  void evaluate_frozen(const double* part_values, int rank, const double* frozen,
                       const Traffic& base, Traffic& out) const;

 private:
  enum class FactorKind : uint8_t { part, extent, minus_one };
  struct Factor {
    FactorKind kind;
    uint32_t first;  // into args_
    uint32_t count;
  };
  struct Arg {
    int part;
    double coeff;  // extent factors: Σ coeff·(part − 1) + 1
  };
  struct Term {
    double coeff;
    uint32_t first_factor;
    uint32_t num_factors;
    int dest;  // Traffic flat index
  };
  friend class TermBuilder;

  inline double factor_value(const Factor& f, const double* pv) const;
  void index_ranks();

  LoopTree tree_;
  int num_levels_ = 0;
  std::vector<RankLoops> rank_loops_;
  std::vector<RankPart> parts_;
  std::vector<std::vector<int>> parts_of_rank_;
  std::vector<Factor> factors_;
  std::vector<Arg> args_;
  std::vector<Term> terms_;
  std::vector<uint64_t> factor_ranks_;  // per factor: bit r set if it involves rank r
  // Per rank: the terms involving it, and per such term its factors involving it.
  struct RankTerm {
    uint32_t term;
    uint32_t first;  // into rank_factors_[rank]
    uint32_t count;
  };
  std::vector<std::vector<RankTerm>> rank_terms_;
  std::vector<std::vector<uint32_t>> rank_factors_;
};

}  // namespace tessera::mapper
