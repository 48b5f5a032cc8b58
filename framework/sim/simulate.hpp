// The simulator's front door: a Plan (or a Program) on a chip's models, to a SimResult. This is
// what `tessera simulate` and `tessera compile --simulate` call.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "framework/codegen/program.hpp"
#include "framework/common/status.hpp"
#include "framework/ir/graph.hpp"
#include "framework/planner/chip_models.hpp"
#include "framework/planner/plan.hpp"
#include "framework/sim/hbm_rate.hpp"
#include "framework/sim/sim_result.hpp"

namespace tessera::sim {

struct SimOptions {
  uint32_t groups_per_chip = 4;  // core groups per chip (docs/simulator.md); cores per chip: exact
  MemoryDetail memory = MemoryDetail::fast;
  bool record_trace = false;  // keep the spans trace.json needs
};

// Lowers the plan (codegen::lower_plan) and runs the program. `chip` is not const: the
// MemoryModel is driven. Errors: the plan does not fit the graph (input), the chip cannot be
// simulated (input: no HBM controllers), a failing plugin call (plugin).
Result<SimResult> simulate(const planner::Plan& plan, planner::ChipModels& chip,
                           const ir::Graph& graph, const SimOptions& options);

// `tessera compile --simulate`: each plan simulated, one row per design — planned and simulated
// ms/token, the difference, simulated HBM / interconnect / SRAM-port utilisation, TFLOP/s and
// Elk's breakdown. Errors: the first simulation's error.
Result<std::string> simulate_designs_table(const std::vector<planner::Plan>& plans,
                                           planner::ChipModels& chip, const ir::Graph& graph,
                                           const SimOptions& options);

// Runs a program (lowered or read from program.txt) on the chip.
Result<SimResult> simulate_program(const codegen::Program& program, planner::ChipModels& chip,
                                   const SimOptions& options);

}  // namespace tessera::sim
