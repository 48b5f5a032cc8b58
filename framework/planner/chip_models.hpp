// One chip's plugin objects for a compile or a simulation, built once from its ChipSpec, and the
// Machine summary read off them (machine.hpp). The objects keep their libraries loaded.
#pragma once

#include <optional>

#include "framework/common/status.hpp"
#include "framework/planner/machine.hpp"
#include "framework/plugin/chip.hpp"
#include "framework/plugin/objects.hpp"
#include "framework/plugin/plugin_set.hpp"

namespace tessera::planner {

struct ChipModels {
  Topology topology;
  CostModel cost_model;
  std::optional<MemoryModel> memory;        // absent: HBM is modelled by the topology's rates
  std::optional<Partitioner> partitioner;   // absent: the framework's default partitioner
  Machine machine;
  // The chip file's scale section, applied to `machine` already; the simulator multiplies the
  // topology's links of these classes by these factors (1: as the plugin reports them).
  double memory_link_scale = 1;
  double on_chip_link_scale = 1;
};

// Errors: a plugin the chip names cannot be loaded or lacks Topology/CostModel (plugin error);
// a parameter the plugin rejects (its message, naming the parameter); a scale the chip cannot take
// (scale.hbm_bytes_per_s without HBM, scale.flops with a plugin Partitioner: input errors).
Result<ChipModels> build_chip(PluginSet& plugins, const ChipSpec& chip);

}  // namespace tessera::planner
