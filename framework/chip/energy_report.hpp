// One step's energy (chip/energy.hpp) as the reports show it: a line for the text reports, an
// object for the JSON documents (joules and watts, unrounded).
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "framework/chip/energy.hpp"

namespace tessera {

// "41.2 mJ per token, 412 W: compute 12.0 mJ (29 %), SRAM ..., network ..., chip-to-chip ...,
// off-chip ..., static ..."
std::string energy_line(const EnergyBreakdown& energy, double latency_s);

// {"energy_j", "power_w", "compute_j", "sram_j", "network_j", "chip_to_chip_j", "off_chip_j",
//  "static_j"}; null without an energy breakdown.
nlohmann::json energy_json(const std::optional<EnergyBreakdown>& energy, double latency_s);

}  // namespace tessera
