// Terminal reports of `tessera map`: the mapping as an indented LoopTree annotated with tiles and
// fills, the per-level and per-tensor figures, the metrics, the mapspace statistics and the time
// spent per stage, and the Pareto front.
#pragma once

#include <string>

#include "framework/common/units.hpp"  // format_joules
#include "framework/mapper/evaluation.hpp"
#include "framework/mapper/looptree.hpp"
#include "framework/mapper/mapper.hpp"
#include "framework/mapper/random_search.hpp"

namespace tessera::mapper {

std::string format_count(double count);  // 12,345 or 1.23e+15

// The LoopTree with each storage node's tile and fills, then energy, latency, EDP, utilisation,
// then a table per level and tensor (tile, fills, reads, writes, energy) and per level (usage,
// capacity, port time).
std::string render_evaluation(const Problem& problem, const Hierarchy& hierarchy,
                              const LoopTree& tree, const Evaluation& evaluation);

// |DP|, |DF| and |TS| before pruning, after dataflow pruning, mappings evaluated, the pruning
// ratio of each stage, and the seconds per stage.
std::string render_stats(const MapspaceStats& stats, const StageTimes& times);

// One row per point: latency, usage of the level, energy, EDP.
std::string render_front(const std::vector<Candidate>& front, const std::string& level_name);

// Samples, valid samples, best score, and the best at a few moments.
std::string render_random(const RandomSearchResult& result, Objective objective);

}  // namespace tessera::mapper
