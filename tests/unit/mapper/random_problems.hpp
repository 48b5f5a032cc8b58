// Small random Einsums and memory hierarchies for the mapper's property tests: matmuls, batched
// matmuls and 1-D convolutions (with p+r) on 2–4 levels with random capacities, keep lists,
// fan-outs, energies and bandwidths. Deterministic for a seed.
#pragma once

#include <cstdint>
#include <random>

#include "framework/mapper/hierarchy.hpp"
#include "framework/mapper/problem.hpp"

namespace tessera::mapper::testing {

enum class ProblemKind { matmul, batched_matmul, conv };

Problem random_problem(std::mt19937_64& rng, ProblemKind kind);
Hierarchy random_hierarchy(std::mt19937_64& rng, const Problem& problem);

}  // namespace tessera::mapper::testing
