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

// Designs that were not simulated are left out; `memory` names the HBM model in the heading.
std::string simulated_table(const driver::Compilation& compilation, sim::MemoryDetail memory);

}  // namespace tessera
