// Runs a Program (codegen/program.hpp) on a SimNetwork, event by event, under the three rules:
// the instruction stream stops at an execute until it completes (rule 1); preload_async
// instructions queue up and are served one at a time (rule 2); an execute waits only for its own
// tag (rule 3).
//
// Each stage of an instruction is one transfer set (transfer_sets.hpp), one flow of the network
// at one node per core, so concurrent sets share links max-min fairly and a set alone takes the
// link-load bound:
//   preload_async(i)  the controllers -> the op's cores, through the controllers' hbm links, the
//                     routes and the cores' SRAM ports; the tag is set when the last byte lands.
//   execute(i)        the hand-off: the activations it takes from other chips (ProgramOp::
//                     handoff, over the chip links); distribute_data (the plan's gather ring, or
//                     the even ring); a barrier
//                     (distribute_sync_s); local_execute: each core's SRAM port for compute_s at
//                     full port rate, so any transfer crossing a port at the same time (a preload
//                     landing) stretches it and is slowed by it; shifts (the plan's rotation rings,
//                     or the even ring); the plan's combine tree, level by level; reductions
//                     between chips (only for an op without a combine tree); HBM writes; the final
//                     barrier (sync_s).
#pragma once

#include <functional>

#include "framework/codegen/program.hpp"
#include "framework/common/status.hpp"
#include "framework/sim/sim_network.hpp"
#include "framework/sim/sim_result.hpp"

namespace tessera::sim {

struct EngineConfig {
  double hbm_latency_s = 0;  // first byte of a stream from the memory, added to preload routes
  // Each controller's rate (bytes per second) while it serves a preload of `preload_bytes` (the
  // machine total); fast mode answers a constant. An error stops the simulation.
  std::function<Result<double>(double preload_bytes)> hbm_bytes_per_s;
  double bucket_s = 0;  // utilisation time-series bucket; 0: the program's estimate / 200
  bool record_trace = false;
};

// Errors: a program that cannot finish (an execute waiting for a preload never issued: input
// error naming the line), a failing route or HBM rate (their errors).
Result<SimResult> run_program(SimNetwork& network, const codegen::Program& program,
                              const EngineConfig& config);

}  // namespace tessera::sim
