// Opening a chip: the target's manifest, its chip file, then the plugin objects (framework/chip).
#include <fmt/format.h>

#include "framework/driver/driver.hpp"

namespace tessera::driver {

Result<ResolvedChip> resolve_chip(PluginSet& plugins, const ChipChoice& choice) {
  auto library = plugins.library(choice.target);
  if (!library) return library.error();
  Manifest target = (*library)->manifest();
  auto spec = tessera::resolve_chip(choice.chip, target);
  if (!spec) return spec.error();
  return ResolvedChip{choice, std::move(target), std::move(*spec)};
}

Result<OpenChip> open_chip(PluginSet& plugins, ResolvedChip chip) {
  auto models = build_chip(plugins, chip.spec);
  if (!models) return models.error();
  return OpenChip{std::move(chip.choice), std::move(chip.target), std::move(chip.spec),
                  std::move(*models)};
}

Result<OpenChip> open_chip(PluginSet& plugins, const ChipChoice& choice) {
  auto chip = resolve_chip(plugins, choice);
  if (!chip) return chip.error();
  return open_chip(plugins, std::move(*chip));
}

Result<OpenChip> open_one_chip(PluginSet& plugins, const OpenChip& machine) {
  ChipSpec spec = machine.spec;
  for (auto& [section, params] : spec.sections)
    for (auto& [key, value] : params.params.items)
      if (key == "chips" || key == "chips.x" || key == "chips.y") value = "1";
  const uint32_t chips = machine.models.machine.chips;
  if (spec.scale.hbm_bytes_per_s > 0) spec.scale.hbm_bytes_per_s /= chips;
  auto one = open_chip(plugins, ResolvedChip{machine.choice, machine.target, spec});
  if (!one) return one.error();
  if (one->models.machine.chips != 1)
    return Error{ErrorKind::internal, StatusCode::internal,
                 fmt::format("{}: one chip of it opened as {} chips", machine.spec.name,
                             one->models.machine.chips)};
  one->models.core_cost = machine.models.core_cost;
  one->one_chip_of = chips;
  return one;
}

Status choose_core_cost(OpenChip& chip, CoreCost cost) {
  if (cost == CoreCost::tcm && !chip.models.core)
    return usage_error(
        "--core-cost tcm maps each tile onto the core's memory hierarchy, and chip '" +
        chip.models.machine.chip +
        "' has none: give a chip file with a core: section (an architecture preset such as "
        "tensix_core, ipu_tile or mncore2_pe, a spec file, or the spec inline; docs/mapper.md)");
  chip.models.core_cost = cost;
  return ok_status();
}

}  // namespace tessera::driver
