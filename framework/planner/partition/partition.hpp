// The default Partitioner (T10/Elk style, Elk §3.1, §3.3): for each class of identical ops, every
// execution plan (spatial partition × compute-shift schedule) and preload plan worth considering,
// timed with the target's CostModel (one batched call per op) and reduced to Pareto curves. A
// plugin's own Partitioner, when the chip has one, answers first; ops it leaves UNIMPLEMENTED fall
// back to this one.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "framework/chip/machine.hpp"
#include "framework/chip_spec/conventions.hpp"
#include "framework/common/status.hpp"
#include "framework/ir/graph.hpp"
#include "framework/ir/repeats.hpp"
#include "framework/planner/op_plans.hpp"
#include "framework/planner/pricing.hpp"
#include "framework/plugin/objects.hpp"

namespace tessera::planner {

struct PartitionOptions {
  unsigned threads = 0;  // 0: all hardware threads
  // Called with (classes done, classes in all); may be empty.
  std::function<void(double done, double total)> progress;
  // Prices the default search's exchanges and preloads on the chip's routes (pricing.hpp);
  // nullptr: the Machine's per-core rates price them.
  const NetworkPricer* pricer = nullptr;
  // How tiles and exchanges are accounted (chip_spec/conventions.hpp: orientation, combine);
  // default: Tessera's own.
  PlanningConventions conventions;
};

// One class's plans — the plugin Partitioner's when it answers, else the default search — or,
// when no plan fits the SRAM, what the smallest needs and how fast the fastest would be (an
// infeasible result, not an error: the driver then splits the op, planner/split.hpp). `pricer`
// and `conventions`: as in PartitionOptions. Errors: the cost model times no tile of it (input),
// a failing plugin call (plugin), a route the pricer cannot give.
struct ClassOutcome {
  OpPlans plans;  // exec is empty when it does not fit
  bool fits = true;
  double smallest_bytes_per_core = 0;  // when it does not fit: the least SRAM any plan needs
  std::string smallest_plan;           // that plan's label
  double fastest_s = 0;                // when it does not fit: the fastest plan, ignoring SRAM
};
Result<ClassOutcome> partition_class(const ir::Graph& graph, int op_index, const Machine& machine,
                                     const TileCost& cost_model, const Partitioner* plugin,
                                     const NetworkPricer* pricer = nullptr,
                                     const PlanningConventions& conventions = {});

// Per class of `classes`, its plans (OpPlans, same index as classes.first_op). An op that fits no
// plan in the machine's SRAM is an input Error naming the op and the smallest space per core it
// needs; a failing plugin call is a plugin Error.
Result<std::vector<OpPlans>> partition_classes(const ir::Graph& graph, const ir::OpClasses& classes,
                                               const Machine& machine, const TileCost& cost_model,
                                               const Partitioner* plugin_partitioner,
                                               const PartitionOptions& options);

}  // namespace tessera::planner
