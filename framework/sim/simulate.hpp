// The simulator's front door: a Program (lowered from a plan by codegen::lower_plan, or read from
// program.txt) on a chip's models, to a SimResult. The driver (framework/driver) is its caller.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "framework/chip/chip_models.hpp"
#include "framework/codegen/program.hpp"
#include "framework/common/status.hpp"
#include "framework/sim/hbm_rate.hpp"
#include "framework/sim/sim_result.hpp"

namespace tessera::sim {

struct SimOptions {
  MemoryDetail memory = MemoryDetail::fast;
  bool record_trace = false;  // keep the spans trace.json needs
};

// Runs a program on the chip. `chip` is not const: the MemoryModel is driven. Errors: the chip
// cannot be simulated (input: no HBM controllers), a failing plugin call (plugin).
Result<SimResult> simulate_program(const codegen::Program& program, ChipModels& chip,
                                   const SimOptions& options);

}  // namespace tessera::sim
