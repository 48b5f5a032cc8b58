// A chip-to-chip collective as an op of a stage's program (docs/planner.md, "Parallel strategies
// and collectives"): a tensor-parallel all-reduce after attention, an experts' all-to-all, the
// LM head's all-gather. It follows the execution of the op whose output it exchanges, and that
// op's consumers wait for it: the chip's cores idle while its messages are on the chip links, but
// the preloads of later ops go on (Elk's preload_async is not held back by it, and it holds no
// SRAM of its own). One description read by all three: the planner's timeline adds planned_s
// after the op (schedule.hpp), the simulator waits simulated_s there (sim/engine.cpp), and the
// parallel report shows each (parallel/compose.hpp).
#pragma once

#include <string>
#include <vector>

#include "framework/collective/collective.hpp"

namespace tessera::planner {

struct CollectiveOp {
  // The op whose output it takes: its name in the model's graph, and its index in the planned
  // graph's execution order (the last op of that name or of its slices, split.hpp), which the
  // driver sets.
  std::string after;
  int after_op = -1;
  std::string where;                  // what it is for: "after attention", "LM head"
  collective::Collective collective;  // kind, the algorithm it runs, bytes, the chips' group
  double planned_s = 0;  // with its copies on the links (sim/collective_sim.hpp, CollectivePricer)
  double simulated_s = 0;  // moved with every replica's copy at once (sim/collective_sim.hpp)
  bool operator==(const CollectiveOp&) const = default;
};

}  // namespace tessera::planner
