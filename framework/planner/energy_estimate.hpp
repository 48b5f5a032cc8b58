// The planner's estimate of what one design's step moves and runs, counted for its energy
// (chip/energy.hpp), as the simulator counts it (sim/sim_energy.hpp) but from the plan: every op's
// FLOPs in its compute type; SRAM reads (compute reading its port at full rate for the op's
// compute time, writebacks, the sending side of exchanges) and writes (preloads landing, the
// receiving side); bytes × links of its preload, hand-off, distribute, rotations and combine tree
// laid on the chip's routes by the NetworkPricer (its cached prices: the simulator's transfer
// sets); HBM bytes read and written; the planned latency.
#pragma once

#include "framework/chip/energy.hpp"
#include "framework/chip/machine.hpp"
#include "framework/ir/graph.hpp"
#include "framework/planner/plan.hpp"
#include "framework/planner/pricing.hpp"

namespace tessera::planner {

// `graph`: the design's (split ops' slices included). Without a pricer (a plan priced on the
// Machine's rates), every byte is taken to cross one link. Input errors: describe_op's and
// op_traffic's for an op the plan cannot lay out.
Result<EnergyCounts> planned_counts(const DesignResult& design, const ir::Graph& graph,
                                    const Machine& machine, const NetworkPricer* pricer);

}  // namespace tessera::planner
