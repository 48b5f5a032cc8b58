#include "framework/sim/simulate.hpp"

#include <fmt/format.h>

#include "framework/report/table.hpp"
#include "framework/sim/engine.hpp"
#include "framework/sim/sim_network.hpp"
#include "framework/sim/sim_report.hpp"

namespace tessera::sim {

Result<SimResult> simulate_program(const codegen::Program& program, planner::ChipModels& chip,
                                   const SimOptions& options) {
  auto rate = hbm_rate(chip, options.memory);
  if (!rate) return rate.error();
  auto graph = read_chip_graph(chip.topology);
  if (!graph) return graph.error();
  for (Link& link : graph->links) {
    if (link.link_class == TESSERA_LINK_MEMORY) link.bytes_per_s *= chip.link_scale.memory;
    if (link.link_class == TESSERA_LINK_ON_CHIP) link.bytes_per_s *= chip.link_scale.on_chip;
  }
  auto first = rate->bytes_per_s(0);
  if (!first) return first.error();
  auto network = SimNetwork::build(*graph, options.groups_per_chip, *first);
  if (!network) return network.error();
  EngineConfig config;
  config.hbm_latency_s = rate->latency_s;
  config.hbm_bytes_per_s = rate->bytes_per_s;
  config.record_trace = options.record_trace;
  return run_program(*network, program, config);
}

Result<SimResult> simulate(const planner::Plan& plan, planner::ChipModels& chip,
                           const ir::Graph& graph, const SimOptions& options) {
  auto program = codegen::lower_plan(plan, graph);
  if (!program) return program.error();
  return simulate_program(*program, chip, options);
}

Result<std::string> simulate_designs_table(const std::vector<planner::Plan>& plans,
                                           planner::ChipModels& chip, const ir::Graph& graph,
                                           const SimOptions& options) {
  using Align = Table::Align;
  Table table({"design", "planned ms", "simulated ms", "diff", "HBM util", "NoC util", "SRAM util",
               "TFLOP/s", "exec only ms", "overlap ms", "stall ms", "congest ms"},
              {Align::left, Align::right, Align::right, Align::right, Align::right, Align::right,
               Align::right, Align::right, Align::right, Align::right, Align::right, Align::right});
  for (const auto& plan : plans) {
    auto program = codegen::lower_plan(plan, graph);
    if (!program) return program.error();
    auto result = simulate_program(*program, chip, options);
    if (!result) return result.error();
    SimSummary s = summarize(*result, *program, chip.machine);
    auto ms = [](double seconds) { return fmt::format("{:.3f}", seconds * 1e3); };
    auto pct = [](double f) { return fmt::format("{:.1f}%", 100 * f); };
    table.add_row({planner::to_string(plan.result.design), ms(s.estimated_latency_s),
                   ms(s.latency_s),
                   s.estimated_latency_s > 0
                       ? fmt::format("{:+.1f}%", 100 * (s.latency_s / s.estimated_latency_s - 1))
                       : "-",
                   pct(s.hbm_utilisation), pct(s.interconnect_utilisation), pct(s.sram_utilisation),
                   fmt::format("{:.1f}", s.achieved_flops_per_s / 1e12),
                   ms(s.breakdown.execution_only_s), ms(s.breakdown.overlapped_s),
                   ms(s.breakdown.preload_stall_s), ms(s.breakdown.congestion_s)});
  }
  return "simulated (event-driven, " +
         std::string(options.memory == MemoryDetail::full ? "full" : "fast") + " HBM model)\n" +
         table.render();
}

}  // namespace tessera::sim
