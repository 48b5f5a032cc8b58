// The chip model: one chip's plugin objects for a compile or a simulation, built once from its
// ChipSpec (chip_spec.hpp), and the Machine summary read off them (machine.hpp). The objects keep
// their libraries loaded. Planner, simulator, sweeps and the driver all start from here.
#pragma once

#include <optional>
#include <vector>

#include "framework/chip/core_cost.hpp"
#include "framework/chip/energy.hpp"
#include "framework/chip/machine.hpp"
#include "framework/chip_spec/chip_spec.hpp"
#include "framework/common/status.hpp"
#include "framework/plugin/objects.hpp"
#include "framework/plugin/plugin_set.hpp"

namespace tessera {

// Factors the simulator multiplies the topology's links by, per class (the chip file's scale).
struct LinkScale {
  double memory = 1;   // links between memory controllers and the network
  double on_chip = 1;  // every other link inside a chip
};

struct ChipModels {
  Topology topology;
  CostModel cost_model;
  std::optional<MemoryModel> memory;       // absent: HBM is modelled by the topology's rates
  std::optional<Partitioner> partitioner;  // absent: the framework's default partitioner
  Machine machine;
  OpFixedCosts fixed_costs;  // CostModel::info()'s per-op costs
  LinkScale link_scale;      // the chip file's scale section, already applied to `machine`
  // The tessera_dtypes a core computes in, or (a storage type such as bfp8) unpacks: peak FLOP/s
  // above 0 (the chip file's flops_per_cycle.<dtype>), within the topology plugin's ABI version.
  // What --weight-dtype may ask for.
  std::vector<uint32_t> dtypes;
  // The chip file's energy section as charged (energy.hpp); absent: the chip states none.
  std::optional<EnergyRates> energy;
  // The chip file's core: hierarchy, ready to map tiles (core_cost.hpp); null: the chip has none.
  std::shared_ptr<const CoreMapper> core;
  // Who times tiles for the planner: the chip file's choice until the driver overrides it
  // (--core-cost); tcm only with `core`.
  CoreCost core_cost = CoreCost::plugin;
  // The fraction of its bandwidth a memory controller's link carries, as the Machine's HBM rate
  // counts it: the simulator derates those links by the same number (ChipSpec, chip_spec.hpp).
  double memory_endpoint_efficiency = kMemoryEndpointEfficiency;
};

// The chip's topology alone, from the plugin its `topology` section names (or its target): what
// `tessera topology` and `tessera layout` need. Errors name the chip file.
Result<Topology> build_topology(PluginSet& plugins, const ChipSpec& chip);
// Its LayoutMapper (`tessera layout`), the same way.
Result<LayoutMapper> build_layout_mapper(PluginSet& plugins, const ChipSpec& chip);
// Its CostModel (`tessera topology`: the rate and fidelity each peak is at), the same way.
Result<CostModel> build_cost_model(PluginSet& plugins, const ChipSpec& chip);

// Errors: a plugin the chip names cannot be loaded or lacks Topology/CostModel (plugin error);
// a parameter the plugin rejects (its message, naming the parameter); a scale the chip cannot take
// (scale.hbm_bytes_per_s without HBM, scale.flops with a plugin Partitioner: input errors); an
// energy section without the off-chip rate on a chip whose memory model reports no energy; a
// core: section naming no architecture preset or file, or one the mapper cannot parse (input);
// a topology peak its cost model does not run a large matmul at (check_peaks, peak.hpp: input).
Result<ChipModels> build_chip(PluginSet& plugins, const ChipSpec& chip);

// Applies a chip file's scale section (ChipScale) to the Machine read off the plugins and returns
// the link factors for the simulator. Input errors: scale.flops with a plugin Partitioner (its op
// times are its own), scale.hbm_bytes_per_s on a machine without HBM bandwidth.
Result<LinkScale> scale_machine(Machine& machine, const ChipScale& scale, bool plugin_partitioner);

}  // namespace tessera
