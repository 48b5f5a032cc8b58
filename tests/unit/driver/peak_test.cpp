// A chip's peak FLOP/s per dtype (its Topology, what reports and the Ideal design divide by) is
// the rate its CostModel times matmuls at (what plans and simulations take): one fact. A large
// aligned matmul tile on one core runs within a few percent of that core's peak, never above it.
#include "framework/chip/peak.hpp"

#include <gtest/gtest.h>

#include <string>

#include "tests/unit/driver/fixtures.hpp"

namespace tessera::driver {
namespace {

using fixtures::plugins;

// At least this share of the peak on the tall tile: what is left is the cost model's fixed
// per-tile cycles and padding.
constexpr double kLeastShareOfPeak = 0.9;

TEST(PeakFlops, EveryShippedChipsPeakIsTheRateItsCostModelTimesMatmulsAt) {
  int checked = 0;
  for (const Manifest& target : plugins().registry().manifests()) {
    if (!target.provides.contains(Interface::topology)) continue;
    for (const std::string& preset : chip_presets(target)) {
      SCOPED_TRACE(target.name + " " + preset);
      OpenChip chip = open_chip(plugins(), ChipChoice{target.name, preset}).take();
      for (uint32_t dtype : chip.models.dtypes) {
        const double peak = chip.models.topology.peak_flops_per_s(dtype).take();
        const double achieved = matmul_flops_per_s(chip.models.cost_model, dtype).take();
        EXPECT_LE(achieved, peak * (1 + 1e-9))
            << dtype_name(dtype) << ": the cost model runs faster than the peak the chip reports";
        EXPECT_GE(achieved, kLeastShareOfPeak * peak)
            << dtype_name(dtype) << ": the chip reports a peak its cost model never reaches";
        ++checked;
      }
    }
  }
  EXPECT_GE(checked, 20) << "the shipped plugins' presets were not found";
}

double core_flops_per_s(const OpenChip& chip, uint32_t dtype, uint32_t fidelity) {
  return matmul_flops_per_s(chip.models.cost_model, dtype, fidelity).take();
}

// The Wormhole n150 card's published peaks (docs.tenstorrent.com, aibs/wormhole/specifications:
// 72 Tensix cores at 1 GHz; FP8 262, BLOCKFP8 148, FP16 74 TFLOPS), each quoted at the fidelity
// that multiplies its type exactly, beside the cost model's rate at that fidelity on the card's 72
// cores. The wormhole-n150 preset computes on all 80 cores of the die (its `workers`; a card
// harvests one row) at LoFi unless a precision file says otherwise: 327.7 TFLOP/s in fp16, 4.4x
// the card's FP16 figure. On 72 cores at the published fidelity FP16 and BLOCKFP8 stay within
// their figures; FP8 at LoFi is 12.5 % above (4096 FLOP/cycle where 262 TFLOPS gives 3640: the
// n300's 466 = 128 x 3640 shows the same 8/9, which no source explains).
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
  EXPECT_NEAR(preset_fp16, 327.7e12, 0.1e12) << "LoFi on all 80 cores of the die";
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
