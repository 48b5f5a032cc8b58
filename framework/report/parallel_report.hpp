// The tables of `tessera compile --parallel`: the strategy line, the step per design (planned and
// simulated, tokens/s for the machine, the collectives' share, the pipeline's bubble, energy),
// the stages, the collectives (kind, algorithm, bytes, links, time, share of the step) and, for
// `--parallel auto`, every strategy tried with its figures or why it failed.
#pragma once

#include <string>

#include "framework/parallel/parallel.hpp"

namespace tessera {

// "strategy  tp=8,pp=1,dp=1 on wormhole-t3000 (8 chips): ..." with what each chip holds.
std::string strategy_line(const parallel::ParallelCompilation& compiled, const Machine& machine);
std::string parallel_steps_table(const parallel::ParallelCompilation& compiled);
// Stages and collectives as `design` planned them (its per-stage times).
std::string stages_table(const parallel::ParallelCompilation& compiled, planner::Design design);
// Per distinct stage plan, what its chip keeps in SRAM across steps (residency_report.hpp), after
// a blank line; empty when no stage keeps anything.
std::string stages_residency_text(const parallel::ParallelCompilation& compiled,
                                  const Machine& machine);
std::string collectives_table(const parallel::ParallelCompilation& compiled,
                              planner::Design design);
std::string search_table(const parallel::Search& search);

// The strategies tried as one JSON document (format tessera-parallel-search-1).
std::string search_json(const parallel::Search& search);

// As one JSON document (format tessera-parallel-4, docs/formats.md): the strategy, each design's
// step (seconds, tokens, joules), the stages and the collectives, unrounded; with `search`, every
// strategy tried (format tessera-parallel-search-1 under "search").
std::string parallel_json(const parallel::ParallelCompilation& compiled, const Machine& machine,
                          const parallel::Search* search = nullptr);

// The step of `design` as a Chrome/Perfetto trace (trace.json): one process per chip of the machine
// ("chip N") with a lane for its stage's execution (one slice per micro-batch, at the composed
// times: stage s of micro-batch m starts when stage s-1 has sent m and stage s has finished m-1)
// and a lane for its collectives and sends. Times are the simulated ones when the step was
// simulated, else the planned. Where a stage's collectives run inside it is not simulated op by
// op: each layer's share of the stage's compute is spread evenly, with the layer's collectives
// after equal parts of it (the embedding's first, the LM head's last).
std::string parallel_trace_json(const parallel::ParallelCompilation& compiled,
                                const Machine& machine, planner::Design design);

}  // namespace tessera
