// Energy per token: the chip file's `energy:` section (EnergySpec, chip_spec.hpp), the rates the
// planner and the simulator charge (EnergyRates: the spec in joules, the off-chip memory's from
// the MemoryModel when the chip file gives none), and one step's energy by where it went
// (EnergyBreakdown) from what moved and ran (EnergyCounts). docs/energy.md.
//
//   energy:
//     pj_per_flop: {fp32: 1.2, fp16: 0.4}  # the cores' compute units, per FLOP, by compute type
//     sram_read_pj_per_byte: 0.3          # a core's SRAM, per byte read
//     sram_write_pj_per_byte: 0.35        #                per byte written
//     noc_pj_per_byte_hop: 0.2            # per byte per on-chip link crossed (router + wire)
//     chip_link_pj_per_byte: 8            # per byte per chip-to-chip link crossed
//     off_chip_pj_per_byte: 7             # optional: the memory model's when it reports energy
//     static_w: 30                        # per chip: leakage, clocks, idle — charged × latency
#pragma once

#include <map>
#include <optional>
#include <string>

#include "framework/chip_spec/chip_spec.hpp"
#include "framework/common/status.hpp"
#include "framework/plugin/objects.hpp"

namespace tessera {

// Joules per unit, as charged.
struct EnergyRates {
  std::map<std::string, double> j_per_flop;
  double sram_read_j_per_byte = 0, sram_write_j_per_byte = 0;
  double noc_j_per_byte_link = 0;
  double chip_link_j_per_byte = 0;
  double off_chip_j_per_byte = 0;
  std::string off_chip_source;  // "the chip file" or what the memory model measured
  double static_w = 0;          // all chips
};

// One step's activity: FLOPs by compute type, bytes read from and written to the cores' SRAM,
// bytes × links crossed on chip (core-to-core and controller-to-core) and between chips, bytes
// read from and written to off-chip memory, and the step's latency.
struct EnergyCounts {
  std::map<std::string, double> flops;
  double sram_read_bytes = 0, sram_write_bytes = 0;
  double on_chip_byte_links = 0;
  double chip_byte_links = 0;
  double off_chip_bytes = 0;
  double latency_s = 0;
};

struct EnergyBreakdown {
  double compute_j = 0, sram_j = 0, network_j = 0, chip_to_chip_j = 0, off_chip_j = 0, static_j = 0;
  double total_j() const {
    return compute_j + sram_j + network_j + chip_to_chip_j + off_chip_j + static_j;
  }
  // Average power over `latency_s` (0 for a zero latency).
  double watts(double latency_s) const { return latency_s > 0 ? total_j() / latency_s : 0; }
};

// `off_chip_j_per_byte`: the memory model's measured rate, used when the spec gives none; 0 with
// no spec rate is an input error naming the key to add. `chips` multiplies static_w.
Result<EnergyRates> energy_rates(const EnergySpec& spec, uint32_t chips,
                                 std::optional<double> measured_off_chip_j_per_byte,
                                 const std::string& memory_source);

// The off-chip memory's energy per byte as `memory` (a fresh object, which this drives) reports
// it for a long sequential read stream at full rate: its get_stats energy over the bytes read.
// Background and refresh energy are spread over those bytes, so a memory used at a lower rate
// costs more per byte than this (docs/energy.md says by how much). nullopt: the model reports
// no energy.
Result<std::optional<double>> streaming_read_j_per_byte(MemoryModel& memory);

// Input error: FLOPs in a compute type the rates have no pJ/FLOP for (naming the key to add).
Result<EnergyBreakdown> energy_of(const EnergyRates& rates, const EnergyCounts& counts);

}  // namespace tessera
