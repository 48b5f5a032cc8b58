#include "framework/chip/energy.hpp"

#include <algorithm>
#include <vector>

namespace tessera {

namespace {

constexpr double kJoulesPerPicojoule = 1e-12;
// Long enough for refresh to recur (tREFI is a few thousand cycles) and the queues to fill.
constexpr uint64_t kCalibrationCycles = 20000;
constexpr size_t kOffersPerCycle = 64;  // a batch; refused ones are offered again next cycle

}  // namespace

Result<EnergyRates> energy_rates(const EnergySpec& spec, uint32_t chips,
                                 std::optional<double> measured_off_chip_j_per_byte,
                                 const std::string& memory_source) {
  EnergyRates r;
  for (const auto& [dtype, pj] : spec.pj_per_flop) r.j_per_flop[dtype] = pj * kJoulesPerPicojoule;
  r.sram_read_j_per_byte = spec.sram_read_pj_per_byte * kJoulesPerPicojoule;
  r.sram_write_j_per_byte = spec.sram_write_pj_per_byte * kJoulesPerPicojoule;
  r.noc_j_per_byte_link = spec.noc_pj_per_byte_hop * kJoulesPerPicojoule;
  r.chip_link_j_per_byte = spec.chip_link_pj_per_byte * kJoulesPerPicojoule;
  r.static_w = spec.static_w * chips;
  if (spec.off_chip_pj_per_byte) {
    r.off_chip_j_per_byte = *spec.off_chip_pj_per_byte * kJoulesPerPicojoule;
    r.off_chip_source = "the chip file's energy.off_chip_pj_per_byte";
  } else if (measured_off_chip_j_per_byte && *measured_off_chip_j_per_byte > 0) {
    r.off_chip_j_per_byte = *measured_off_chip_j_per_byte;
    r.off_chip_source = memory_source;
  } else {
    return input_error(
        "energy: the off-chip memory's energy is not known: " +
        (memory_source.empty() ? std::string("the chip has no memory model")
                               : memory_source + " reports none") +
        "; give energy.off_chip_pj_per_byte (e.g. about 60 for GDDR6, 30 for HBM2 with their "
        "I/O)");
  }
  return r;
}

Result<std::optional<double>> streaming_read_j_per_byte(MemoryModel& memory) {
  auto info = memory.info();
  if (!info) return info.error();
  const uint64_t burst = std::max<uint32_t>(info->burst_bytes, 1);
  const uint64_t span = info->capacity_bytes > 0 ? info->capacity_bytes : uint64_t{1} << 40;
  uint64_t next = 0;
  std::vector<tessera_memory_request> offers(kOffersPerCycle);
  auto ignore = [](const tessera_memory_completion&) {};
  for (uint64_t cycle = 0; cycle < kCalibrationCycles; ++cycle) {
    // As fast as the model accepts (tessera memsim --gen stream's front end): offered until it
    // refuses, so every stack and channel runs at its full rate whatever their number.
    size_t accepted = 0;
    do {
      for (size_t i = 0; i < offers.size(); ++i)
        offers[i] = {next + i, ((next + i) * burst) % span, 0, 0};
      auto n = memory.submit(offers.data(), offers.size());
      if (!n) return n.error();
      accepted = *n;
      next += accepted;
    } while (accepted == offers.size());
    if (Status ran = memory.advance(1, ignore); !ran) return ran.error();
  }
  auto stats = memory.stats();
  if (!stats) return stats.error();
  double bytes = static_cast<double>(stats->reads) * static_cast<double>(burst);
  if (!(stats->energy_j > 0) || !(bytes > 0)) return std::optional<double>{};
  return std::optional<double>{stats->energy_j / bytes};
}

Result<EnergyBreakdown> energy_of(const EnergyRates& rates, const EnergyCounts& c) {
  EnergyBreakdown e;
  for (const auto& [dtype, flops] : c.flops) {
    if (!(flops > 0)) continue;
    auto rate = rates.j_per_flop.find(dtype);
    if (rate == rates.j_per_flop.end())
      return input_error("energy: the model computes in " + dtype +
                         " and the chip file gives no energy.pj_per_flop." + dtype +
                         "; add it (pJ per FLOP of the cores' compute units in " + dtype + ")");
    e.compute_j += flops * rate->second;
  }
  e.sram_j = c.sram_read_bytes * rates.sram_read_j_per_byte +
             c.sram_write_bytes * rates.sram_write_j_per_byte;
  e.network_j = c.on_chip_byte_links * rates.noc_j_per_byte_link;
  e.chip_to_chip_j = c.chip_byte_links * rates.chip_link_j_per_byte;
  e.off_chip_j = c.off_chip_bytes * rates.off_chip_j_per_byte;
  e.static_j = rates.static_w * c.latency_s;
  return e;
}

}  // namespace tessera
