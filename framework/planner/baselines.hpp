// The baselines of Elk seed §6.1 as Decisions (schedule.hpp), all in program preload order:
// Basic, one Static split, and Ideal. planner.cpp sweeps the Static splits and times each.
#pragma once

#include <vector>

#include "framework/planner/schedule.hpp"

namespace tessera::planner {

// Basic: every op takes its fastest (largest) execution plan; the next preload overlaps the ops
// before its consumer only if its largest preload plan that fits beside the biggest of them
// exists, else it waits until they end.
Decisions basic_decisions(const CostContext& costs);

// The execution-region sizes Static sweeps: every distinct exec-plan size from the largest
// per-op minimum up to the SRAM (each is where some op's best fitting plan changes).
std::vector<double> static_regions(const CostContext& costs);

// Static with execution region `exec_region_bytes`: each op its fastest plan within it; the rest
// of SRAM holds as many next preloads (program order) as fit, each at its smallest plan, or at
// its largest plan that fits the region when `largest_preloads`.
Decisions static_decisions(const CostContext& costs, double exec_region_bytes,
                           bool largest_preloads);

// Ideal: per op the execution and preload plans with the least execution plus distribution time,
// for evaluate_timeline's separate mode (own preload network, no SRAM limit on preloads).
Decisions ideal_decisions(const CostContext& costs);

}  // namespace tessera::planner
