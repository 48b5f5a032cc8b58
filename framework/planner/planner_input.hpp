// Everything the designs share for one graph on one chip: the classes of identical ops, the
// repeated layers, and each class's per-op plans (from the chip's plugin Partitioner where it
// has one, else the default partitioner). `tessera compile`, the benchmarks and the simulator's
// end-to-end tests all start from here.
#pragma once

#include "framework/common/status.hpp"
#include "framework/ir/graph.hpp"
#include "framework/planner/chip_models.hpp"
#include "framework/planner/partition/partition.hpp"
#include "framework/planner/planner.hpp"

namespace tessera::planner {

// The result points at `graph`, which must outlive it. Errors are partition_classes' (an op
// that fits no plan: input error naming it; a failing plugin call: plugin error).
Result<PlannerInput> make_planner_input(const ir::Graph& graph, const ChipModels& chip,
                                        const PartitionOptions& options);

}  // namespace tessera::planner
