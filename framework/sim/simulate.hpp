// The simulator's front door: a Program (lowered from a plan by codegen::lower_plan, or read from
// program.txt) on a chip's models, to a SimResult. The driver (framework/driver) is its caller.
//
// Threads and lifetimes: simulate_program runs on the calling thread alone (the simulator starts no
// threads). It borrows `program` and `chip` for the call only (the network it builds asks
// chip.topology for routes as it runs: sim_network.cpp), and the SimResult owns its data. With
// MemoryDetail::fast it only reads the chip (a Topology's methods are [concurrent] in the plugin
// ABI), so simulations of one chip may run at once. MemoryDetail::full drives chip.memory (when
// the chip has one), a MemoryModel, which is not concurrent: serialise full simulations on one
// chip. Each also leaves the model advanced, and the next starts from that state (hbm_rate.cpp).
// Distinct chips are independent.
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

// Runs a program on the chip. `chip` is not const: the MemoryModel is driven (MemoryDetail::full
// only). Errors: the chip cannot be simulated (input: no HBM controllers), a failing plugin call
// (plugin).
Result<SimResult> simulate_program(const codegen::Program& program, ChipModels& chip,
                                   const SimOptions& options);

}  // namespace tessera::sim
