#include "framework/chip/energy_report.hpp"

#include <fmt/format.h>

#include "framework/common/units.hpp"

namespace tessera {

std::string energy_line(const EnergyBreakdown& e, double latency_s) {
  const double total = e.total_j();
  auto part = [&](const char* name, double j) {
    return fmt::format("{} {} ({:.0f} %)", name, format_joules(j),
                       total > 0 ? 100 * j / total : 0.0);
  };
  return format_joules(total) + " per token, " + fmt::format("{:.3g} W", e.watts(latency_s)) +
         ": " + part("compute", e.compute_j) + ", " + part("SRAM", e.sram_j) + ", " +
         part("network", e.network_j) + ", " + part("chip-to-chip", e.chip_to_chip_j) + ", " +
         part("off-chip", e.off_chip_j) + ", " + part("static", e.static_j);
}

nlohmann::json energy_json(const std::optional<EnergyBreakdown>& e, double latency_s) {
  if (!e) return nullptr;
  return {{"energy_j", e->total_j()},    {"power_w", e->watts(latency_s)},
          {"compute_j", e->compute_j},   {"sram_j", e->sram_j},
          {"network_j", e->network_j},   {"chip_to_chip_j", e->chip_to_chip_j},
          {"off_chip_j", e->off_chip_j}, {"static_j", e->static_j}};
}

}  // namespace tessera
