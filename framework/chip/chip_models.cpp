// build_chip: the chip's plugin objects and the Machine read off them, once per run.
//
// Where each Machine field comes from:
//   cores, chips, sram_bytes_per_core   Topology::info()
//   sram_bytes_per_s_per_core           Topology::info().sram_bytes_per_s, which the ABI defines
//                                       as ONE core's SRAM port (all accesses, own and remote);
//                                       the IPU reports sram.bytes_per_cycle (16) × its clock
//   clock_hz, sync_s                    CostModel::info() (the clock its cycle counts use; its
//                                       barrier, which already includes any multi-chip factor)
//   shift_bytes_per_s_per_core          CostModel::info().shift_bytes_per_s
//   peak_flops_per_s                    Topology::peak_flops_per_s(fp16) is ONE core's (ABI), so
//                                       × cores
//   hbm_controllers                     endpoints of kind MEMORY_CONTROLLER, all chips
//   hbm_bytes_per_s                     per controller the lower of its own rate (its endpoint's
//                                       bytes_per_s, when the topology gives one) and its MEMORY
//                                       links into the network summed, each at the chip's
//                                       memory_endpoint_efficiency (as the simulator runs them);
//                                       summed over controllers; with a memory_model
//                                       section, the lower of that and MemoryModel::sustained(
//                                       kSustainedStreams) × chips — the section describes the
//                                       memory of ONE chip (every chip has its own stacks, as on
//                                       the ipu-pod4 presets)
//   hbm_peak_bytes_per_s                MemoryModel::info().peak × chips, else the controllers'
//                                       rates as above at full link bandwidth
//   hbm_latency_s                       the sustained model's mean read latency, else the
//                                       slowest controller link's latency
//   off_chip_bytes                      MemoryModel::info().capacity × chips, else the
//                                       controllers' memory_bytes summed (0: not known)
//   preload_bytes_per_s_per_core        CostModel::transfer_seconds of a long MEMORY-class
//                                       transfer (the artifact's 5.5 GB/s per core on the IPU)
//   interconnect_bytes_per_s            the core-to-core capacity the program's transfers are
//                                       priced on: under routes (the default) the topology's
//                                       on-chip links out of the cores summed (each core's
//                                       injection into the network, where every byte moved
//                                       between cores starts); under per_core_rates cores ×
//                                       the shift rate (topology links the cost model never
//                                       charges would overstate utilisation's base)
//   chip_link_bytes_per_s               the slowest CHIP_TO_CHIP link of the topology (0: none)
//   ChipModels::fixed_costs             CostModel::info()'s dispatch_host_s, dispatch_traced_s,
//                                       launch_s (per op, not scaled: a chip file's scale speeds
//                                       the chip, not its host)
// then the chip file's scale section (ChipScale) multiplies the HBM, interconnect and compute
// rates.
#include "framework/chip/chip_models.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <future>
#include <utility>

#include "framework/common/yaml_reader.hpp"
#include "framework/plugin/peak.hpp"

namespace tessera {

namespace {

// Elk serialises preloads, each one op's HBM data read front to back: one long sequential stream
// (the model's 1-stream rate is also its best; more interleaved streams thrash rows).
constexpr uint32_t kSustainedStreams = 1;
// A transfer long enough that per-message overheads vanish.
constexpr double kLongTransferBytes = 1 << 20;

Error in_chip_file(const ChipSpec& chip, Error error) {
  if (!chip.file.empty()) error.message = chip.file.string() + ": " + error.message;
  return error;
}

struct HbmLinks {
  uint32_t controllers = 0;
  double bytes_per_s = 0;       // links at the memory endpoint efficiency
  double peak_bytes_per_s = 0;  // links at their full bandwidth
  double latency_s = 0;
  uint64_t capacity_bytes = 0;  // the controllers' memory_bytes
};

// A controller with links to several network tiles (a mesh) reaches the cores through all of
// them, and delivers their sum up to its own rate (0: not known, the links alone bound it).
Result<HbmLinks> hbm_links(const Topology& topology, const TopologyInfo& info,
                           double link_efficiency) {
  HbmLinks out;
  std::vector<double> own_bytes_per_s(info.num_endpoints, -1.0);  // < 0: not a controller
  for (uint32_t i = info.num_cores; i < info.num_endpoints; ++i) {
    auto endpoint = topology.endpoint(i);
    if (!endpoint) return endpoint.error();
    if (endpoint->kind != TESSERA_ENDPOINT_MEMORY_CONTROLLER) continue;
    own_bytes_per_s[i] = endpoint->bytes_per_s;
    ++out.controllers;
    out.capacity_bytes += endpoint->memory_bytes;
  }
  std::vector<double> links_bytes_per_s(info.num_endpoints, 0.0);
  for (uint32_t i = 0; i < info.num_links; ++i) {
    auto link = topology.link(i);
    if (!link) return link.error();
    if (link->link_class != TESSERA_LINK_MEMORY || link->src >= info.num_endpoints ||
        own_bytes_per_s[link->src] < 0)
      continue;
    links_bytes_per_s[link->src] += link->bytes_per_s;
    out.latency_s = std::max(out.latency_s, link->latency_s);
  }
  for (uint32_t i = 0; i < info.num_endpoints; ++i) {
    if (own_bytes_per_s[i] < 0) continue;
    double own = own_bytes_per_s[i] > 0 ? own_bytes_per_s[i] : links_bytes_per_s[i];
    out.bytes_per_s += std::min(own, links_bytes_per_s[i] * link_efficiency);
    out.peak_bytes_per_s += std::min(own, links_bytes_per_s[i]);
  }
  return out;
}

// The rate at which the cores can put bytes onto the network: every on-chip link leaving a core
// endpoint (endpoints 0..num_cores-1, plugin_abi.h), summed; 0 when the topology has none.
Result<double> core_injection_bytes_per_s(const Topology& topology, const TopologyInfo& info) {
  double total = 0;
  for (uint32_t i = 0; i < info.num_links; ++i) {
    auto link = topology.link(i);
    if (!link) return link.error();
    if (link->link_class == TESSERA_LINK_ON_CHIP && link->src < info.num_cores)
      total += link->bytes_per_s;
  }
  return total;
}

Result<double> slowest_chip_link(const Topology& topology, const TopologyInfo& info) {
  double slowest = 0;
  for (uint32_t i = 0; i < info.num_links; ++i) {
    auto link = topology.link(i);
    if (!link) return link.error();
    if (link->link_class != TESSERA_LINK_CHIP_TO_CHIP) continue;
    if (slowest == 0 || link->bytes_per_s < slowest) slowest = link->bytes_per_s;
  }
  return slowest;
}

Status fill_hbm(Machine& m, const Topology& topology, const TopologyInfo& info,
                std::optional<MemoryModel>& memory, double link_efficiency) {
  auto links = hbm_links(topology, info, link_efficiency);
  if (!links) return links.error();
  m.hbm_controllers = links->controllers;
  m.hbm_bytes_per_s = links->bytes_per_s;
  m.hbm_peak_bytes_per_s = links->peak_bytes_per_s;
  m.hbm_latency_s = links->latency_s;
  m.off_chip_bytes = links->capacity_bytes;
  if (!memory) return ok_status();
  auto sustained = memory->sustained(kSustainedStreams);
  if (!sustained) return sustained.error();
  auto memory_info = memory->info();
  if (!memory_info) return memory_info.error();
  // The simulator streams preloads through the memory model and then the chip file's controller
  // links, so the slower of the two bounds the planner's rate as it bounds the simulated one.
  double instances = m.chips;
  m.hbm_bytes_per_s = sustained->bytes_per_s * instances;
  if (links->bytes_per_s > 0) m.hbm_bytes_per_s = std::min(m.hbm_bytes_per_s, links->bytes_per_s);
  m.hbm_peak_bytes_per_s = memory_info->peak_bytes_per_s * instances;
  m.hbm_latency_s = sustained->latency_s;
  m.off_chip_bytes = memory_info->capacity_bytes * m.chips;
  return ok_status();
}

Status fill_rates(Machine& m, OpFixedCosts& fixed, const Topology& topology,
                  const CostModel& cost_model) {
  auto cost = cost_model.info();
  if (!cost) return cost.error();
  fixed = {cost->dispatch_host_s, cost->dispatch_traced_s, cost->launch_s};
  for (auto [key, seconds] : {std::pair{"dispatch_host_s", fixed.dispatch_host_s},
                              std::pair{"dispatch_traced_s", fixed.dispatch_traced_s},
                              std::pair{"launch_s", fixed.launch_s}})
    if (!(seconds >= 0) || !std::isfinite(seconds))
      return plugin_error(fmt::format(
          "cost_model.get_info: {} is {}; expected seconds per op, 0 or more (fix the plugin's "
          "cost model or the chip file's cost_model parameters)",
          key, seconds));
  m.clock_hz = cost->clock_hz;
  m.sync_s = cost->sync_s;
  m.shift_bytes_per_s_per_core = cost->shift_bytes_per_s;
  m.interconnect_bytes_per_s = m.cores * cost->shift_bytes_per_s;
  auto peak = topology.peak_flops_per_s(TESSERA_DTYPE_FP16);
  if (!peak) return peak.error();
  m.peak_flops_per_s = *peak * m.cores;
  tessera_transfer_query preload{TESSERA_LINK_MEMORY, 0, kLongTransferBytes, 0};
  auto seconds = cost_model.transfer_seconds({preload});
  if (!seconds) return seconds.error();
  m.preload_bytes_per_s_per_core = seconds->front() > 0 ? kLongTransferBytes / seconds->front() : 0;
  return ok_status();
}

template <class Object, class Create>
Result<Object> create_for(PluginSet& plugins, const ChipSpec& chip, Interface i, Create create) {
  auto library = plugins.library(chip.plugin_for(i));
  if (!library) return in_chip_file(chip, library.error());
  auto object = create(*library, chip.params_for(i));
  if (!object) return in_chip_file(chip, object.error());
  return object;
}

// The energy section's rates; the off-chip memory's from a fresh memory model object when the
// section gives none (the chip's own object stays untouched for the simulator).
Result<EnergyRates> build_energy(PluginSet& plugins, const ChipSpec& chip, uint32_t chips) {
  std::optional<double> measured;
  std::string source;
  if (!chip.energy->off_chip_pj_per_byte && chip.sections.count(Interface::memory_model) != 0) {
    auto memory =
        create_for<MemoryModel>(plugins, chip, Interface::memory_model, &create_memory_model);
    if (!memory) return memory.error();
    auto rate = streaming_read_j_per_byte(*memory);
    if (!rate) return rate.error();
    measured = *rate;
    source =
        "the memory model (" + chip.plugin_for(Interface::memory_model) + ") on a streaming read";
  }
  return energy_rates(*chip.energy, chips, measured, source);
}

Result<std::shared_ptr<const CoreMapper>> build_core(const ChipSpec& chip) {
  const CoreSection& core = *chip.core;
  auto arch =
      core.spec ? mapper::parse_arch_node(*core.spec) : mapper::resolve_arch_spec(core.reference);
  // An inline spec's errors already name the chip file and line; a preset's or file's name their
  // own file, so say which chip file sent us there.
  if (!arch && core.spec) return arch.error();
  if (!arch) {
    Error error = arch.error();
    error.message = "core: " + error.message;
    return in_chip_file(chip, std::move(error));
  }
  return std::make_shared<const CoreMapper>(std::move(*arch),
                                            core.spec ? "inline" : core.reference);
}

}  // namespace

Result<Topology> build_topology(PluginSet& plugins, const ChipSpec& chip) {
  return create_for<Topology>(plugins, chip, Interface::topology, &create_topology);
}

Result<LayoutMapper> build_layout_mapper(PluginSet& plugins, const ChipSpec& chip) {
  return create_for<LayoutMapper>(plugins, chip, Interface::layout_mapper, &create_layout_mapper);
}

Result<CostModel> build_cost_model(PluginSet& plugins, const ChipSpec& chip) {
  return create_for<CostModel>(plugins, chip, Interface::cost_model, &create_cost_model);
}

Result<ChipModels> build_chip(PluginSet& plugins, const ChipSpec& chip) {
  auto topology = build_topology(plugins, chip);
  if (!topology) return topology.error();
  auto cost_model = build_cost_model(plugins, chip);
  if (!cost_model) return cost_model.error();
  ChipModels models{std::move(*topology),
                    std::move(*cost_model),
                    std::nullopt,
                    std::nullopt,
                    {},
                    {},
                    {},
                    {},
                    {},
                    nullptr,
                    CoreCost::plugin,
                    chip.memory_endpoint_efficiency};
  if (chip.sections.count(Interface::memory_model) != 0) {
    auto memory =
        create_for<MemoryModel>(plugins, chip, Interface::memory_model, &create_memory_model);
    if (!memory) return memory.error();
    models.memory = std::move(*memory);
  }
  auto partitioner =
      create_for<Partitioner>(plugins, chip, Interface::partitioner, &create_partitioner);
  if (partitioner)
    models.partitioner = std::move(*partitioner);
  else if (partitioner.error().code != StatusCode::unimplemented)
    return partitioner.error();

  if (chip.core_cost == CoreCost::tcm && !chip.core)  // set past the parser: a sweep's core_cost
    return in_chip_file(chip, input_error("core_cost tcm maps each tile onto the core's memory "
                                          "hierarchy, and this chip has no core: section"));
  if (chip.core) {
    auto core = build_core(chip);
    if (!core) return core.error();
    models.core = std::move(*core);
  }
  models.core_cost = chip.core_cost;

  auto info = models.topology.info();
  if (!info) return info.error();
  Machine& m = models.machine;
  m.chip = chip.name.empty() ? info->name : chip.name;
  m.target = chip.plugin_for(Interface::topology);
  m.cores = info->num_cores;
  m.chips = std::max<uint32_t>(info->num_chips, 1);
  m.sram_bytes_per_core = info->sram_bytes_per_core;
  m.sram_bytes_per_s_per_core = info->sram_bytes_per_s;
  // The energy section's memory model is measured on a thread of its own while fill_hbm measures
  // the chip's (distinct plugin objects are independent, plugin_abi.h): the two cycle-level runs
  // one after the other were 13 % of a Llama 2 13B compile's CPU on ipu-pod4-hbm3e, all of it
  // before any planning. Nothing below touches `plugins`; an early return waits for the thread.
  std::future<Result<EnergyRates>> energy;
  if (chip.energy)
    energy = std::async(std::launch::async, [&plugins, &chip, chips = m.chips] {
      return build_energy(plugins, chip, chips);
    });
  Status status = fill_rates(m, models.fixed_costs, models.topology, models.cost_model);
  if (status)
    status = fill_hbm(m, models.topology, *info, models.memory, models.memory_endpoint_efficiency);
  if (!status) return in_chip_file(chip, status.error());
  auto chip_link = slowest_chip_link(models.topology, *info);
  if (!chip_link) return in_chip_file(chip, chip_link.error());
  m.chip_link_bytes_per_s = *chip_link;
  if (chip.conventions.transfers == TransferPricing::routes) {
    auto injection = core_injection_bytes_per_s(models.topology, *info);
    if (!injection) return in_chip_file(chip, injection.error());
    if (*injection > 0) m.interconnect_bytes_per_s = *injection;
  }
  for (uint32_t d = 0; d < abi_dtype_count(models.topology.library()); ++d) {
    auto peak = models.topology.peak_flops_per_s(d);
    if (!peak) return in_chip_file(chip, peak.error());
    if (*peak > 0) models.dtypes.push_back(d);
  }
  if (auto peaks = check_peaks(models.topology, models.cost_model, models.dtypes); !peaks)
    return in_chip_file(chip, peaks.error());
  auto links = scale_machine(m, chip.scale, models.partitioner.has_value());
  if (!links) return in_chip_file(chip, links.error());
  models.link_scale = *links;
  if (energy.valid()) {
    auto rates = energy.get();
    if (!rates) return in_chip_file(chip, rates.error());
    models.energy = std::move(*rates);
  }
  return models;
}

Result<LinkScale> scale_machine(Machine& m, const ChipScale& scale, bool plugin_partitioner) {
  if (scale.flops != 1 && plugin_partitioner)
    return input_error("scale.flops: the chip's plugin Partitioner ('" + m.target +
                       "') times the ops itself, so the framework cannot scale their compute; "
                       "scale its cost_model parameters instead");
  LinkScale links;
  m.compute_speedup = scale.flops;
  m.peak_flops_per_s *= scale.flops;
  m.shift_bytes_per_s_per_core *= scale.interconnect;
  m.preload_bytes_per_s_per_core *= scale.interconnect;
  m.interconnect_bytes_per_s *= scale.interconnect;
  links.on_chip = scale.interconnect;
  if (scale.hbm_bytes_per_s == 0) return links;
  if (!(m.hbm_peak_bytes_per_s > 0))
    return input_error("scale.hbm_bytes_per_s: the chip has no HBM bandwidth to scale");
  links.memory = scale.hbm_bytes_per_s / m.hbm_peak_bytes_per_s;
  m.hbm_bytes_per_s *= links.memory;
  m.hbm_peak_bytes_per_s = scale.hbm_bytes_per_s;
  return links;
}

}  // namespace tessera
