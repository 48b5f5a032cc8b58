// compile(): per-op plans (through the cache hook when there is one), every design, and the
// simulation of each; simulate(): one plan on the event-driven simulator.
#include <fmt/format.h>

#include "framework/driver/driver.hpp"
#include "framework/ir/graph_yaml.hpp"
#include "framework/ir/repeats.hpp"
#include "framework/planner/partition/partition.hpp"
#include "framework/planner/planner.hpp"

namespace tessera::driver {

namespace {

Progress progress_of(const CompileOptions& o, const std::string& stage) {
  return o.progress ? o.progress(stage) : Progress{};
}

Result<std::shared_ptr<const OpPlanSet>> op_plans(const OpenChip& chip,
                                                  const planner::PlannerInput& input,
                                                  const CompileOptions& o) {
  planner::PartitionOptions partition;
  partition.threads = o.threads;
  partition.progress = progress_of(o, "per-op plans (classes)");
  const ChipModels& models = chip.models;
  auto compute = [&]() -> Result<OpPlanSet> {
    return planner::partition_classes(*input.graph, input.classes, input.machine, models.cost_model,
                                      models.partitioner ? &*models.partitioner : nullptr,
                                      partition);
  };
  if (o.op_plan_cache) return o.op_plan_cache(op_plan_key(chip, *input.graph), compute);
  auto plans = compute();
  if (!plans) return plans.error();
  return std::make_shared<const OpPlanSet>(std::move(*plans));
}

}  // namespace

std::string op_plan_key(const OpenChip& chip, const ir::Graph& graph) {
  const ChipModels& models = chip.models;
  // The graph as text: op shapes, dtypes, HBM residency — all the partitioner reads of it.
  std::string key = ir::write_graph_yaml(graph);
  machine_fields(models.machine, [&](const char* name, const auto& field, MachineFieldUse use) {
    if (use != MachineFieldUse::off_chip_memory) key += fmt::format("|{}={}", name, field);
  });
  key += fmt::format("|plugin_partitioner={}", models.partitioner.has_value());
  // The cost model times the tiles; a plugin Partitioner may read any section but the memory's.
  for (const auto& [section, spec] : chip.spec.sections) {
    if (section == Interface::memory_model) continue;
    if (section != Interface::cost_model && !models.partitioner) continue;
    key += "|" + std::string(to_string(section)) + ":" + spec.plugin + "{";
    for (const auto& [k, v] : spec.params.items) key += k + "=" + v + ";";
    key += "}";
  }
  return key;
}

Result<LoadedModel> load(const ModelRequest& request) {
  auto graph = load_model(request);
  if (!graph) return graph.error();
  return LoadedModel{request, std::make_shared<const ir::Graph>(std::move(*graph))};
}

Result<Compilation> compile(OpenChip& chip, const LoadedModel& model, const CompileOptions& o) {
  if (Status fits = check_off_chip(model, chip); !fits) return fits.error();
  const ir::Graph& graph = *model.graph;
  planner::PlannerInput input;
  input.graph = &graph;
  input.classes = ir::identical_ops(graph);
  input.layers = ir::repeated_layers(graph, input.classes, ir::edges(graph));
  input.machine = chip.models.machine;
  auto plans = op_plans(chip, input, o);
  if (!plans) return plans.error();
  input.class_plans = **plans;

  planner::PlannerOptions planning;
  planning.threads = o.threads;
  planning.max_displacement = o.max_displacement;
  planning.max_preload_ops = o.max_preload_ops;
  Compilation out;
  out.op_classes = input.classes.first_op.size();
  const planner::PlanSource source = plan_source(model, chip);
  for (planner::Design design : o.designs) {
    planning.progress = progress_of(o, fmt::format("{} (preload orders)", to_string(design)));
    auto result = planner::plan_design(input, design, planning);
    if (!result) return result.error();
    CompiledDesign compiled{planner::Plan{source, input.machine, std::move(*result)}, {}};
    if (o.simulate) {
      auto simulated = simulate(compiled.plan, chip, graph, o.sim);
      if (!simulated) return simulated.error();
      compiled.simulated = std::move(*simulated);
    }
    out.designs.push_back(std::move(compiled));
  }
  return out;
}

Result<SimulatedDesign> simulate(const planner::Plan& plan, OpenChip& chip, const ir::Graph& graph,
                                 const sim::SimOptions& options,
                                 std::optional<codegen::Program> program) {
  if (!program) {
    auto lowered = codegen::lower_plan(plan, graph);
    if (!lowered) return lowered.error();
    program = std::move(*lowered);
  }
  auto result = sim::simulate_program(*program, chip.models, options);
  if (!result) return result.error();
  sim::SimSummary summary = sim::summarize(*result, *program, chip.models.machine);
  return SimulatedDesign{std::move(*program), std::move(*result), summary};
}

}  // namespace tessera::driver
