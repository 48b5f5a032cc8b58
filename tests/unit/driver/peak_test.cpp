// A chip's peak FLOP/s per dtype (its Topology, what reports and the Ideal design divide by) is
// the rate its CostModel times matmuls at (what plans and simulations take): one fact. A large
// aligned matmul tile on one core runs within a few percent of that core's peak, never above it.
#include <gtest/gtest.h>

#include <string>

#include "tests/unit/driver/fixtures.hpp"

namespace tessera::driver {
namespace {

using fixtures::plugins;

// A tile every shipped core runs at its best: extents multiples of every FPU and tile edge (6, 16,
// 32), and tall, so that what a cost model pays per column block (the IPU fit's 514 cycles per
// 16 x 16 block of k x n) is a small part of it.
constexpr uint64_t kRows = 6144, kColumns = 512;

tessera_tile_query tall_matmul(uint32_t dtype, double element_bytes) {
  tessera_tile_query q{};
  q.op_kind = TESSERA_OP_MATMUL;
  q.dtype = dtype;
  q.batch = 1;
  q.m = kRows;
  q.k = q.n = kColumns;
  q.elements = kRows * kColumns;
  const auto m = static_cast<double>(kRows), k = static_cast<double>(kColumns);
  q.flops = 2 * m * k * k;
  q.bytes_in = (m * k + k * k) * element_bytes;
  q.bytes_out = m * k * element_bytes;
  return q;
}

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
        const tessera_tile_query q = tall_matmul(dtype, 2);
        const double seconds = chip.models.cost_model.tile_seconds({q}).take().at(0);
        const double achieved = q.flops / seconds;
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

}  // namespace
}  // namespace tessera::driver
