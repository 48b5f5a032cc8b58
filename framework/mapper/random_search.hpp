// The baseline TCM is compared with: Timeloop-style random sampling of the full, unpruned
// mapspace — a uniformly random dataplacement, every rank looped in every slot in a random order,
// and a uniformly random factorisation of every rank over its loops (temporal and spatial) —
// each sample evaluated with the reference model; samples that overflow a level or a fan-out are
// invalid and skipped. Deterministic for a given seed and number of samples.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "framework/mapper/objective.hpp"

namespace tessera::mapper {

struct RandomSearchOptions {
  Objective objective = Objective::edp;  // energy, latency or edp
  double time_limit_seconds = 10;
  uint64_t max_samples = 0;  // 0: until the time limit
  uint64_t seed = 1;
};

struct RandomSearchResult {
  std::optional<Candidate> best;
  uint64_t samples = 0;
  uint64_t valid = 0;
  double seconds = 0;
  // (seconds since the start, best primary score) at every improvement.
  std::vector<std::pair<double, double>> improvements;
  // The best primary score found within `seconds` (infinity if none yet).
  double best_at(double seconds) const;
};

RandomSearchResult random_search(const Problem& problem, const Hierarchy& hierarchy,
                                 const RandomSearchOptions& options);

}  // namespace tessera::mapper
