#include "framework/sim/simulate.hpp"

#include <chrono>

#include "framework/sim/engine.hpp"
#include "framework/sim/sim_network.hpp"

namespace tessera::sim {

Result<SimResult> simulate_program(const codegen::Program& program, ChipModels& chip,
                                   const SimOptions& options) {
  auto started = std::chrono::steady_clock::now();
  auto rate = hbm_rate(chip, options.memory);
  if (!rate) return rate.error();
  auto graph = scaled_chip_graph(chip);
  if (!graph) return graph.error();
  auto first = rate->bytes_per_s(0);
  if (!first) return first.error();
  auto network = SimNetwork::build(*graph, *first);
  if (!network) return network.error();
  EngineConfig config;
  config.hbm_latency_s = rate->latency_s;
  config.hbm_bytes_per_s = rate->bytes_per_s;
  config.record_trace = options.record_trace;
  auto result = run_program(*network, program, config);
  if (result)
    result->wall_s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return result;
}

}  // namespace tessera::sim
