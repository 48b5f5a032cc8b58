// The simulator's reports: the terminal text of `tessera simulate`, the few numbers the design
// table of `tessera compile --simulate` shows, and trace.json (Chrome trace event format, opens in
// Perfetto: the program's execute and preload streams, the execute's stages, and a utilisation
// counter per link class).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "framework/chip/energy.hpp"
#include "framework/chip/machine.hpp"
#include "framework/codegen/program.hpp"
#include "framework/sim/sim_result.hpp"

namespace tessera::sim {

struct SimSummary {
  double latency_s = 0, estimated_latency_s = 0;
  planner::Breakdown breakdown;
  double hbm_utilisation = 0;  // HBM bytes read and written / (latency x the machine's peak)
  double interconnect_utilisation = 0;  // bytes moved on chip / (latency x interconnect capacity)
  double sram_utilisation = 0;          // SRAM-port bytes / (latency x all ports' capacity)
  double achieved_flops_per_s = 0;
};

SimSummary summarize(const SimResult& result, const codegen::Program& program,
                     const Machine& machine);

// Latency next to the estimate, breakdown, utilisation in total and over time (10 rows), achieved
// FLOP/s, and the `op_rows` ops whose simulated execute differs most from the estimate (all ops
// when op_rows is 0).
// `energy`: the step's energy (sim_energy.hpp), a line of its own, next to the plan's estimate
// (`planned_energy`, when the plan carries one); absent when the chip states
// none.
std::string render_sim_report(const SimResult& result, const codegen::Program& program,
                              const Machine& machine, size_t op_rows,
                              const std::optional<EnergyBreakdown>& energy,
                              const std::optional<EnergyBreakdown>& planned_energy);

// The report as one JSON document (`tessera simulate --format json`, docs/formats.md): the
// summary's numbers unrounded under the sweep results' names, and every op's row.
std::string sim_report_json(const SimResult& result, const codegen::Program& program,
                            const Machine& machine, const std::optional<EnergyBreakdown>& energy,
                            const std::optional<EnergyBreakdown>& planned_energy);

// The trace; `result` must have been recorded with SimOptions::record_trace. `power_w`
// (power_over_time, sim_energy.hpp): a power counter track beside the link classes' utilisation;
// empty: none (the chip states no energy rates).
std::string trace_json(const SimResult& result, const codegen::Program& program,
                       const std::vector<double>& power_w);

}  // namespace tessera::sim
