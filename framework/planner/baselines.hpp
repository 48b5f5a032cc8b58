// The baselines of Elk §6.1 as Decisions (schedule.hpp), all in program preload order:
// Basic, one Static split, and Ideal; and the vendor design's streamed stack. planner.cpp sweeps
// the Static splits and times each.
#pragma once

#include <vector>

#include "framework/planner/schedule.hpp"

namespace tessera::planner {

// Basic: every op takes its fastest (largest) execution plan; the next preload overlaps the ops
// before its consumer only if its largest preload plan that fits beside the biggest of them
// exists, else it waits until they end.
Decisions basic_decisions(const CostContext& costs);

// One Static split: the execution region, and which preload plans the ops take.
struct StaticSplit {
  double exec_region_bytes = 0;
  bool largest_preloads = false;
};

// The splits Static sweeps, each region with smallest and largest preloads. Tessera's coding:
// every distinct exec-plan size from the largest per-op minimum up to the SRAM (each is where
// some op's best fitting plan changes). The Elk artifact's (launch.py): from that minimum rounded
// up to KiB, in 10 KiB steps to the SRAM.
std::vector<StaticSplit> static_splits(const CostContext& costs, StaticBaseline coding);

// Static with one split: the rest of SRAM beside the execution region holds as many next
// preloads (program order) as fit. Tessera's coding: each op its fastest plan within the region,
// its preload at its smallest plan, or at its largest plan that fits the preload region when
// `largest_preloads`. The artifact's (DNNProgram.baseline_cold_hot): the preload plan of least
// bytes (of most bytes beside some execution plan within the region when `largest_preloads`)
// with the largest execution plan within the region it pairs with; a preload larger than the
// preload region overlaps nothing; at most `max_preload_ops` ops ahead are preloaded.
Decisions static_decisions(const CostContext& costs, const StaticSplit& split,
                           StaticBaseline coding, int max_preload_ops);

// Ideal: per op the execution and preload plans with the least execution plus distribution time,
// for evaluate_timeline's separate mode (own preload network, no SRAM limit on preloads).
Decisions ideal_decisions(const CostContext& costs);

// The vendor design's streamed stack (TimelineMode::streamed), in program order, nothing
// preloaded ahead: per op the execution and preload plans that end the op soonest, max(load,
// distribution + compute) + the rest of the execution. Its stream lands in its execution space
// (the stack's kernels read each core's shard where they compute on it), so any execution plan
// that fits alone fits.
Decisions vendor_decisions(const CostContext& costs);

}  // namespace tessera::planner
