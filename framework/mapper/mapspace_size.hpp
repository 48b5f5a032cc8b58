// Sizes of mapspaces, for the statistics TCM reports (|DP|, |DF|, |TS|): counted, not enumerated,
// as log10 because they reach 10^30 and more.
#pragma once

#include "framework/mapper/dataplacement.hpp"
#include "framework/mapper/looptree.hpp"

namespace tessera::mapper {

// log10 of the number of ordered ways to write n as a product of k factors ≥ 1.
double log10_factorizations(int64_t n, int k);

// For one dataplacement, the unpruned space: every rank with a loop in every slot in any order
// (log10 |DF|) and every factorisation of every rank over those loops and the spatial loops
// (log10 |TS|), as a Timeloop-style mapper would search it.
struct FullSpaceSize {
  double log10_dataflows = 0;
  double log10_tile_shapes = 0;
};
FullSpaceSize full_space_size(const Problem& problem, const Hierarchy& hierarchy,
                              const Dataplacement& dp);

// log10 of the tile shapes of one template: every factorisation of each rank over its loops.
double log10_tile_shapes(const Problem& problem, const LoopTree& tmpl);

// log10(10^a + 10^b) without overflow.
double log10_sum(double a, double b);

}  // namespace tessera::mapper
