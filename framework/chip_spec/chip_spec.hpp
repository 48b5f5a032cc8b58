// Chip files (configs/chips/*.yaml, a plugin's NAME.chips/*.yaml): which plugin serves each
// interface and with what parameters. The parsed spec (ChipSpec) is separate from the objects the
// plugins build from it.
//
//   name: ipu-mk2                 # shown in reports
//   description: one line
//   approximation: one line       # what the model approximates and by how much (reports say it)
//   target: ipu_alltoall          # default plugin for every interface
//   topology: {cores_per_chip: 1472, hbm: {controllers: 4}}   # params, flattened: hbm.controllers
//   memory_model: {plugin: hbm_dramsim, config: hbm3e_8hi.ini} # `plugin` overrides `target`
//   scale: {hbm_bytes_per_s: 8e12, interconnect: 2, flops: 0.5}  # design-space knobs (ChipScale)
//   energy: {pj_per_flop: {fp16: 0.4}, ...}  # energy per token (energy.hpp, docs/energy.md)
//   core: tensix_core             # one core's memory hierarchy (mapper arch preset, file or
//   inline) cost_model: tcm               # tiles timed by the mapper on `core` (or {core_cost:
//   tcm, ...})
//   planner: {orientation: elk_artifact, transfers: per_core_rates,    # planning conventions
//             preload_network_share: {elk-full: 0.99}}                 # (conventions.hpp)
//   memory_endpoint_efficiency: 1  # fraction of a memory controller's link bandwidth used (0.9)
//   host: {read_bytes_per_s: 1.93e9, read_rows: 32}  # the host's read of a prefill's logits
#pragma once

#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "framework/chip_spec/conventions.hpp"
#include "framework/common/status.hpp"
#include "framework/plugin/interface.hpp"
#include "framework/plugin/library.hpp"
#include "framework/plugin/manifest.hpp"

namespace tessera {

class YamlNode;  // common/yaml_reader.hpp: only the parser and the mapper read inside it

struct ChipSection {
  std::string plugin;  // empty: the chip's target
  ParamList params;
};

// Design-space knobs the framework applies on top of the plugins' models (build_chip), so one
// sweep axis can move a machine-wide rate on any target without knowing each plugin's parameters.
//   hbm_bytes_per_s  the whole machine's peak HBM bandwidth (0: as the models give it); the memory
//                    model's sustained/peak ratio and latency are kept, and the topology's memory
//                    links scale with it
//   interconnect     × every on-chip link and the cost model's shift and distribution rates
//   flops            × the compute rate: per-op tile times ÷ flops, peak FLOP/s × flops
struct ChipScale {
  double hbm_bytes_per_s = 0;
  double interconnect = 1;
  double flops = 1;
  bool operator==(const ChipScale&) const = default;
};

// The chip file's `energy:` section as written (picojoules, watts); energy.hpp turns it into the
// rates charged.
struct EnergySpec {
  std::map<std::string, double> pj_per_flop;  // by compute type name (fp32, fp16, ...)
  double sram_read_pj_per_byte = 0;
  double sram_write_pj_per_byte = 0;
  double noc_pj_per_byte_hop = 0;
  double chip_link_pj_per_byte = 0;
  std::optional<double> off_chip_pj_per_byte;
  double static_w = 0;  // per chip
  bool operator==(const EnergySpec&) const = default;
};

// Which model times one core's tiles for the planner: the cost_model plugin's (its fitted
// formulas), or the mapper's optimal mapping of each tile onto the chip's `core:` hierarchy
// (chip/core_cost.hpp, docs/mapper.md "Cores of a chip").
enum class CoreCost { plugin, tcm };
const char* to_string(CoreCost cost);
std::optional<CoreCost> parse_core_cost(const std::string& text);  // "plugin" or "tcm"

// The chip file's `core:` section as written: a mapper architecture preset name, a spec file
// (made absolute against the chip file's directory), or the spec inline (the mapper parses it:
// chip_models.hpp).
struct CoreSection {
  std::string reference;  // preset name or absolute path; empty: inline
  // The inline spec, with its file and lines for errors; null when `reference` names it. Shared
  // and immutable, so copies of a ChipSpec are cheap and the node stays valid as long as any.
  std::shared_ptr<const YamlNode> spec;
};

// A link at the edge of a many-to-one or one-to-many pattern (a memory controller's way into and
// out of the network) stays busy only part of a batch in a cycle-level network: BookSim2 keeps a
// controller's injection link busy 86-95 % of a DRAM-read batch and a hot spot's ejection link
// 87-99 % (docs/simulator.md, "Checked against BookSim2"). Planner and simulator both take every
// link of a memory controller at this fraction of its bandwidth, unless the chip file says
// otherwise (`memory_endpoint_efficiency:`, e.g. 1 for a profile that reproduces pure bandwidth).
inline constexpr double kMemoryEndpointEfficiency = 0.9;

// The chip file's `host:` section: how the chip's software stack hands a prefill's result to the
// host, the part of the time to first token spent after the device's step (driver.hpp,
// first_token_read). A stack reads back the logits of each user's last prompt token, in rows of
// `read_rows` (tt-metal reads the whole 32-row tile that holds it), at `read_bytes_per_s`, the
// rate its device-to-host reads reach (not the link's peak).
struct HostSpec {
  double read_bytes_per_s = 0;  // > 0
  int64_t read_rows = 1;        // >= 1
  bool operator==(const HostSpec&) const = default;
};

struct ChipSpec {
  std::filesystem::path file;  // empty for the built-in empty chip
  std::string name;
  std::string description;
  // One line: what the chip file approximates and by how much (`approximation:`), printed with
  // every figure planned or simulated on it; empty when it approximates nothing it knows of.
  std::string approximation;
  std::string target;
  std::map<Interface, ChipSection> sections;
  ChipScale scale;
  std::optional<EnergySpec> energy;  // absent: energy is not reported (and cannot be optimised)
  std::optional<HostSpec> host;      // absent: a time to first token is the device's step alone
  std::optional<CoreSection> core;   // absent: no core hierarchy (CoreCost::tcm unavailable)
  CoreCost core_cost = CoreCost::plugin;
  PlanningConventions conventions;  // `planner:`; defaults: Tessera's own (conventions.hpp)
  // The fraction of its bandwidth a memory controller's link carries (0 < x <= 1).
  double memory_endpoint_efficiency = kMemoryEndpointEfficiency;

  // The plugin that serves `i` (the section's override or the target).
  std::string plugin_for(Interface i) const;
  // The parameters for `i`; for the topology the chip's name is passed as `name`, for the cost
  // model a transfer pricing convention other than routes as `planner.transfers` (sdk/params.hpp).
  ParamList params_for(Interface i) const;
};

// `default_target` serves the chip when it names no `target` (a plugin's own presets need none).
Result<ChipSpec> read_chip(const std::filesystem::path& file,
                           const std::string& default_target = "");
// The same from text; `file` labels errors and anchors relative paths.
Result<ChipSpec> parse_chip_text(const std::string& text, const std::filesystem::path& file,
                                 const std::string& default_target = "");

// Directories of shared chip files (configs/chips installed, and in the source tree).
std::vector<std::filesystem::path> shared_chip_dirs();

// Presets visible for `target`: its own NAME.chips/ and the shared ones whose target matches.
std::vector<std::string> chip_presets(const Manifest& target);

// `chip` is a file path (contains '/' or ends in .yaml) or a preset name; empty means the target's
// default chip. An unknown preset lists the valid ones and the nearest.
Result<ChipSpec> resolve_chip(const std::string& chip, const Manifest& target);

}  // namespace tessera
