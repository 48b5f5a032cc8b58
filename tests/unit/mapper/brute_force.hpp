// Brute force over the full mapspace, independent of the mapper's pruning: every dataplacement
// (every allowed subset of tensors per level, in every order), every rank looped in every slot,
// every factorisation of every rank over its temporal and spatial loops, and every order of the
// loops in each slot (loops of bound 1 are no-ops, so only the others are permuted; spatial loops
// sit at the bottom of their slot — elsewhere they could only spoil a line buffer). Each mapping is
// evaluated with the reference model.
#pragma once

#include <optional>
#include <vector>

#include "framework/mapper/objective.hpp"

namespace tessera::mapper::testing {

struct BruteForceResult {
  std::optional<Score> energy, latency, edp;  // lexicographic optima as score_of defines them
  std::vector<Score> front;                   // (latency, usage of the Pareto level), by latency
  uint64_t evaluated = 0;
  bool over_budget = false;
};

BruteForceResult brute_force(const Problem& problem, const Hierarchy& hierarchy, int pareto_level,
                             uint64_t budget);

// The non-dominated (primary, secondary) points of `scores`, sorted by primary.
std::vector<Score> pareto_points(std::vector<Score> scores);

}  // namespace tessera::mapper::testing
