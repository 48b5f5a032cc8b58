#include "framework/planner/planner_input.hpp"

#include "framework/ir/repeats.hpp"

namespace tessera::planner {

Result<PlannerInput> make_planner_input(const ir::Graph& graph, const ChipModels& chip,
                                        const PartitionOptions& options) {
  PlannerInput input;
  input.graph = &graph;
  input.classes = ir::identical_ops(graph);
  input.layers = ir::repeated_layers(graph, input.classes, ir::edges(graph));
  input.machine = chip.machine;
  auto plans = partition_classes(graph, input.classes, input.machine, chip.cost_model,
                                 chip.partitioner ? &*chip.partitioner : nullptr, options);
  if (!plans) return plans.error();
  input.class_plans = std::move(plans).take();
  return input;
}

}  // namespace tessera::planner
