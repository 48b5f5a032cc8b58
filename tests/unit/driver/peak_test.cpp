// A chip's peak FLOP/s per dtype (its Topology, what reports and the Ideal design divide by) is
// the rate its CostModel times matmuls at (what plans and simulations take): one fact. A large
// aligned matmul tile on one core runs within a few percent of that core's peak, never above it.
#include "framework/plugin/peak.hpp"

#include <gtest/gtest.h>

#include <string>

#include "tests/unit/driver/fixtures.hpp"

namespace tessera::driver {
namespace {

using fixtures::plugins;

// A chip opened with `key` of `section` set to `value` (replacing the preset's).
Result<OpenChip> with(const char* preset, Interface section, const std::string& key,
                      const std::string& value) {
  ResolvedChip chip = resolve_chip(plugins(), ChipChoice{"mesh_tenstorrent", preset}).take();
  auto& items = chip.spec.sections[section].params.items;
  std::erase_if(items, [&](const auto& kv) { return kv.first == key; });
  items.emplace_back(key, value);
  return open_chip(plugins(), std::move(chip));
}

// How check_peaks refuses wormhole-n150 when `dtype`'s two tables disagree (TFLOP/s per core).
std::string refusal(const std::string& dtype, const std::string& peak, const std::string& rate) {
  return "wormhole-n150.yaml: the topology's " + dtype + " peak, " + peak +
         " TFLOP/s per core (what reports, utilisation and the Ideal design divide by), and the "
         "rate its cost model times a large " +
         dtype + " matmul at, " + rate +
         " TFLOP/s per core (what plans and simulations take), are one fact: the second must lie "
         "between 0.9 and 1 times the first; make the topology's clock_hz × `flops_per_cycle." +
         dtype + "` and the cost model's clock and compute rate agree";
}

// Every shipped chip opens, so each holds its two tables to one another (check_peaks).
TEST(PeakFlops, ATopologyPeakItsCostModelNeverReachesIsRefused) {
  auto chip = with("wormhole-n150", Interface::topology, "flops_per_cycle.fp16", "8192");
  ASSERT_FALSE(chip.ok());
  EXPECT_TRUE(chip.error().message.ends_with(refusal("fp16", "8.192", "4.096")))
      << chip.error().message;
}

// The FPU's rate doubled in the cost model alone: fp32 (HiFi4, a quarter of it) is the first
// dtype found above its topology's peak.
TEST(PeakFlops, ACostModelFasterThanItsTopologysPeakIsRefused) {
  auto chip = with("wormhole-n150", Interface::cost_model, "fpu_flops_per_cycle", "8192");
  ASSERT_FALSE(chip.ok());
  EXPECT_TRUE(chip.error().message.ends_with(refusal("fp32", "1.024", "2.048")))
      << chip.error().message;
}

// A wafer folded into blocks in its topology alone (blocks.hpp): the cost model still times one
// PE where the topology's core is 144 of them, and the chip is refused at open.
TEST(PeakFlops, BlocksInTheTopologyAloneAreRefused) {
  auto chip = with("wse2", Interface::cost_model, "tile_edge", "1");
  ASSERT_FALSE(chip.ok());
  EXPECT_NE(chip.error().message.find("wse2.yaml: the topology's fp32 peak, 0.3168 TFLOP/s per "
                                      "core"),
            std::string::npos)
      << chip.error().message;
}

// Both tables halved together: one fact, and the Machine's peak follows it.
TEST(PeakFlops, BothTablesHalvedTogetherOpen) {
  ResolvedChip chip =
      resolve_chip(plugins(), ChipChoice{"mesh_tenstorrent", "wormhole-n150"}).take();
  for (auto& [key, value] : chip.spec.sections[Interface::topology].params.items)
    if (key.starts_with("flops_per_cycle.")) value = std::to_string(std::stod(value) / 2);
  chip.spec.sections[Interface::cost_model].params.items.emplace_back("fpu_flops_per_cycle",
                                                                      "2048");
  auto open = open_chip(plugins(), std::move(chip));
  ASSERT_TRUE(open.ok()) << open.error().message;
  EXPECT_NEAR(open->models.machine.peak_flops_per_s, 64 * 2.048e12, 1e9);
}

double core_flops_per_s(const OpenChip& chip, uint32_t dtype, uint32_t fidelity) {
  return matmul_flops_per_s(chip.models.cost_model, dtype, fidelity).take();
}

// The Wormhole n150 card's published peaks (docs.tenstorrent.com, aibs/wormhole/specifications:
// 72 Tensix cores at 1 GHz; FP8 262, BLOCKFP8 148, FP16 74 TFLOPS), each quoted at the fidelity
// that multiplies its type exactly, beside the cost model's rate at that fidelity on the card's 72
// cores. The wormhole-n150 preset computes on the 64 cores tt-metal gives user kernels (its
// `workers`: the card harvests one row and dispatch takes another) at LoFi unless a precision
// file says otherwise: 262.1 TFLOP/s in fp16, 3.5x the card's FP16 figure. On 72 cores at the
// published fidelity FP16 and BLOCKFP8 stay within their figures; FP8 at LoFi is 12.5 % above (4096
// FLOP/cycle where 262 TFLOPS gives 3640: the n300's 466 = 128 x 3640 shows the same 8/9, which no
// source explains).
TEST(PeakFlops, TheN150CardsPublishedPeaksBesideTheCostModelsRateOnItsCores) {
  OpenChip chip = open_chip(plugins(), ChipChoice{"mesh_tenstorrent", "wormhole-n150"}).take();
  constexpr double kCardCores = 72;
  const double fp16 =
      kCardCores * core_flops_per_s(chip, TESSERA_DTYPE_FP16, TESSERA_MATH_FIDELITY_HIFI4);
  const double bfp8 =
      kCardCores * core_flops_per_s(chip, TESSERA_DTYPE_BFP8, TESSERA_MATH_FIDELITY_HIFI2);
  const double fp8 =
      kCardCores * core_flops_per_s(chip, TESSERA_DTYPE_FP8, TESSERA_MATH_FIDELITY_LOFI);
  EXPECT_NEAR(fp16, 73.7e12, 0.1e12);
  EXPECT_LE(fp16, 74e12);
  EXPECT_NEAR(bfp8, 147.5e12, 0.1e12);
  EXPECT_LE(bfp8, 148e12);
  EXPECT_NEAR(fp8 / 262e12, 1.125, 0.001) << "FP8 at LoFi is above the card's published figure";
  const double preset_fp16 =
      chip.models.topology.peak_flops_per_s(TESSERA_DTYPE_FP16).take() * chip.models.machine.cores;
  EXPECT_NEAR(preset_fp16, 262.1e12, 0.1e12) << "LoFi on the 64 user cores";
  EXPECT_EQ(default_fidelity(chip.models.cost_model, TESSERA_DTYPE_FP16).take(), "lofi");
  EXPECT_EQ(default_fidelity(chip.models.cost_model, TESSERA_DTYPE_FP32).take(), "")
      << "fp32 has one mode (HiFi4) whatever the op asks";
}

// The IPU's AMP units have no fidelity setting: its peaks name none.
TEST(PeakFlops, ACoreWithoutFidelitiesReportsNone) {
  OpenChip chip = open_chip(plugins(), ChipChoice{"ipu_alltoall", "ipu-mk2"}).take();
  EXPECT_EQ(default_fidelity(chip.models.cost_model, TESSERA_DTYPE_FP16).take(), "");
}

}  // namespace
}  // namespace tessera::driver
