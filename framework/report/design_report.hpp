// The tables of `tessera compile`: one row per design, as planned (ms/token, speedup over Basic,
// share of Ideal, utilisations, TFLOP/s, Elk's breakdown, preload orders tried, the planner's
// search time — kept here, not in plan.yaml, so identical runs write identical plans) and, with
// --simulate, as simulated next to the plan's estimate.
#pragma once

#include <string>

#include "framework/driver/driver.hpp"

namespace tessera {

// "-" in the speedup and share columns when Basic or Ideal was not planned.
std::string planned_table(const driver::Compilation& compilation);

// The ops too large for the chip and how they were split: per class (its first op and how many
// ops it stands for), the rank and slice count chosen, the pipelined estimate of its slices, and
// what the unsplit op needed (its smallest plan's SRAM per core, and its fastest plan's time were
// the SRAM large enough); after a line for the attentions computed in tiles, when some are.
// Empty when nothing was split or tiled.
std::string splits_table(const driver::Compilation& compilation);

// The run as one JSON document (`compile --format json`, docs/formats.md): the tables' numbers
// unrounded, in seconds, fractions and FLOP/s, under the sweep results' field names (the Python
// module returns the same document).
std::string compile_json(const driver::Compilation& compilation, const Machine& machine,
                         sim::MemoryDetail memory);

// Designs that were not simulated are left out; Ideal's row shows its plan and "-" elsewhere, with
// a footnote saying why; `memory` names the HBM model in the heading.
std::string simulated_table(const driver::Compilation& compilation, sim::MemoryDetail memory);

}  // namespace tessera
