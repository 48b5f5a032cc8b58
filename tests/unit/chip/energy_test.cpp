// The energy section as parsed and charged: what each key means, the parts summing to the total,
// each rate moving its own part and nothing else, static energy as power x latency, and the one
// message for each thing a chip file can get wrong.
#include "framework/chip/energy.hpp"

#include <gtest/gtest.h>

namespace tessera {
namespace {

constexpr const char* kChip = R"(name: c
target: t
energy:
  pj_per_flop: {fp16: 0.5, fp32: 2}
  sram_read_pj_per_byte: 0.3
  sram_write_pj_per_byte: 0.4
  noc_pj_per_byte_hop: 0.8
  chip_link_pj_per_byte: 20
  static_w: 40
)";

EnergySpec spec_of(const std::string& text) {
  return *parse_chip_text(text, "/x/c.yaml").take().energy;
}

std::string error_of(const std::string& text) {
  auto chip = parse_chip_text(text, "/x/c.yaml");
  EXPECT_FALSE(chip.ok());
  return chip.ok() ? "" : chip.error().message;
}

EnergyCounts counts() {
  EnergyCounts c;
  c.flops = {{"fp16", 1e12}, {"fp32", 1e9}};
  c.sram_read_bytes = 2e9;
  c.sram_write_bytes = 1e9;
  c.on_chip_byte_links = 3e9;
  c.chip_byte_links = 1e8;
  c.off_chip_bytes = 5e9;
  c.latency_s = 2e-3;
  return c;
}

EnergyRates rates(const EnergySpec& spec, uint32_t chips = 1) {
  return energy_rates(spec, chips, 7e-12, "the memory model").take();
}

TEST(Energy, TheSectionIsReadInPicojoulesAndChargedInJoules) {
  EnergySpec spec = spec_of(kChip);
  EXPECT_EQ(spec.pj_per_flop, (std::map<std::string, double>{{"fp16", 0.5}, {"fp32", 2}}));
  EXPECT_FALSE(spec.off_chip_pj_per_byte);
  EnergyBreakdown e = energy_of(rates(spec), counts()).take();
  EXPECT_DOUBLE_EQ(e.compute_j, 1e12 * 0.5e-12 + 1e9 * 2e-12);
  EXPECT_DOUBLE_EQ(e.sram_j, 2e9 * 0.3e-12 + 1e9 * 0.4e-12);
  EXPECT_DOUBLE_EQ(e.network_j, 3e9 * 0.8e-12);
  EXPECT_DOUBLE_EQ(e.chip_to_chip_j, 1e8 * 20e-12);
  EXPECT_DOUBLE_EQ(e.off_chip_j, 5e9 * 7e-12);  // the memory model's measured rate
  EXPECT_DOUBLE_EQ(e.static_j, 40 * 2e-3);
  EXPECT_DOUBLE_EQ(e.total_j(), e.compute_j + e.sram_j + e.network_j + e.chip_to_chip_j +
                                    e.off_chip_j + e.static_j);
  EXPECT_DOUBLE_EQ(e.watts(2e-3), e.total_j() / 2e-3);
}

TEST(Energy, DoublingPicojoulesPerFlopDoublesComputeAndNothingElse) {
  EnergySpec spec = spec_of(kChip);
  EnergyBreakdown before = energy_of(rates(spec), counts()).take();
  for (auto& [dtype, pj] : spec.pj_per_flop) pj *= 2;
  EnergyBreakdown after = energy_of(rates(spec), counts()).take();
  EXPECT_DOUBLE_EQ(after.compute_j, 2 * before.compute_j);
  EXPECT_EQ(after.sram_j, before.sram_j);
  EXPECT_EQ(after.network_j, before.network_j);
  EXPECT_EQ(after.chip_to_chip_j, before.chip_to_chip_j);
  EXPECT_EQ(after.off_chip_j, before.off_chip_j);
  EXPECT_EQ(after.static_j, before.static_j);
}

TEST(Energy, StaticEnergyIsEveryChipsPowerTimesTheLatency) {
  EnergySpec spec = spec_of(kChip);
  EnergyCounts c = counts();
  for (double latency_s : {1e-3, 4e-3}) {
    c.latency_s = latency_s;
    EXPECT_DOUBLE_EQ(energy_of(rates(spec, 4), c).take().static_j, 4 * 40 * latency_s);
  }
}

TEST(Energy, TheChipFilesOffChipRateWinsOverTheMemoryModels) {
  EnergySpec spec = spec_of(std::string(kChip) + "  off_chip_pj_per_byte: 60\n");
  EnergyRates r = rates(spec);
  EXPECT_DOUBLE_EQ(r.off_chip_j_per_byte, 60e-12);
  EXPECT_EQ(r.off_chip_source, "the chip file's energy.off_chip_pj_per_byte");
  EXPECT_DOUBLE_EQ(energy_of(r, counts()).take().off_chip_j, 5e9 * 60e-12);
}

TEST(Energy, WhatCannotBeChargedIsAnErrorSayingWhatToAdd) {
  auto no_memory = energy_rates(spec_of(kChip), 1, std::nullopt, "");
  ASSERT_FALSE(no_memory.ok());
  EXPECT_EQ(no_memory.error().message,
            "energy: the off-chip memory's energy is not known: the chip has no memory model; "
            "give energy.off_chip_pj_per_byte (e.g. about 60 for GDDR6, 30 for HBM2 with their "
            "I/O)");
  EnergyCounts fp8 = counts();
  fp8.flops["fp8"] = 1e9;
  auto e = energy_of(rates(spec_of(kChip)), fp8);
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(e.error().message,
            "energy: the model computes in fp8 and the chip file gives no energy.pj_per_flop.fp8; "
            "add it (pJ per FLOP of the cores' compute units in fp8)");
}

TEST(Energy, AMalformedSectionNamesTheLineAndKey) {
  std::string chip = kChip;
  EXPECT_EQ(error_of("name: c\ntarget: t\nenergy: 3\n"),
            "/x/c.yaml:3: 'energy': expected a map: pj_per_flop, sram_read_pj_per_byte, "
            "sram_write_pj_per_byte, noc_pj_per_byte_hop, chip_link_pj_per_byte, static_w and "
            "optionally off_chip_pj_per_byte");
  EXPECT_EQ(error_of(chip.substr(0, chip.find("  static_w"))),
            "/x/c.yaml:4: 'energy': missing required key 'static_w'");
  std::string negative = chip;
  negative.replace(negative.find("40"), 2, "-1");
  EXPECT_EQ(error_of(negative), "/x/c.yaml:9: 'energy.static_w': expected a number >= 0, got '-1'");
  std::string dtype = chip;
  dtype.replace(dtype.find("fp32"), 4, "fp33");
  EXPECT_EQ(error_of(dtype).substr(0, 60),
            "/x/c.yaml:4: 'energy.pj_per_flop.fp33': unknown key 'fp33' (");
}

}  // namespace
}  // namespace tessera
