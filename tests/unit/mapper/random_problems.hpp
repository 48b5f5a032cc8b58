// Small random Einsums and memory hierarchies for the mapper's property tests: matmuls, batched
// matmuls, 1-D convolutions (with p+r), depthwise and strided 2-D ones on 2–4 levels with random
// capacities, keep lists, fan-outs, energies and bandwidths. Deterministic for a seed.
#pragma once

#include <cstdint>
#include <random>

#include "framework/mapper/hierarchy.hpp"
#include "framework/mapper/problem.hpp"

namespace tessera::mapper::testing {

// depthwise: a 1-D depthwise convolution (every rank indexes the input, two partial); conv2d: a
// strided 2-D convolution (four partial ranks, line-buffer candidates in every slot), as
// MobileNet-V3's depthwise and stem layers are.
enum class ProblemKind { matmul, batched_matmul, conv, depthwise, conv2d };

Problem random_problem(std::mt19937_64& rng, ProblemKind kind);
Hierarchy random_hierarchy(std::mt19937_64& rng, const Problem& problem);

}  // namespace tessera::mapper::testing
