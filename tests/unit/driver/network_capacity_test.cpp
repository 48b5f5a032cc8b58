// The base of the interconnect utilisation reports print (the Machine's interconnect_bytes_per_s)
// is the capacity the program's transfers are priced on: under routes the topology's links out of
// the cores, under the Elk artifact's per-core rates the cost model's shift rate per core.
#include <gtest/gtest.h>

#include "tests/unit/driver/fixtures.hpp"

namespace tessera::driver {
namespace {

using fixtures::plugins;

double capacity_bytes_per_s(const char* target, const char* preset) {
  return open_chip(plugins(), ChipChoice{target, preset})
      .take()
      .models.machine.interconnect_bytes_per_s;
}

// 64 Tensix cores (the user grid), each on both NoCs through one 32-byte-per-cycle NIU link, at 1
// GHz; the Wormhole cost model's NoC table (30 B/cycle at its largest packet) is not what the
// routes use.
TEST(NetworkCapacity, UnderRoutesItIsTheCoresLinksIntoTheNetwork) {
  EXPECT_DOUBLE_EQ(capacity_bytes_per_s("mesh_tenstorrent", "wormhole-n150"), 64 * 2 * 32 * 1e9);
  // Blackhole: 140 cores at 1.35 GHz, each NIU link 64 bytes per cycle.
  EXPECT_DOUBLE_EQ(capacity_bytes_per_s("mesh_tenstorrent", "blackhole-p150"),
                   140 * 2 * 64 * 1.35e9);
}

// elk-mk2 prices shifts at the artifact's 0.56 cycles per element (2 bytes) on each of 1472 tiles
// at 1.325 GHz.
TEST(NetworkCapacity, UnderPerCoreRatesItIsTheCostModelsShiftRate) {
  EXPECT_NEAR(capacity_bytes_per_s("ipu_alltoall", "elk-mk2"), 1472 * 2 / 0.56 * 1.325e9, 1e9);
}

}  // namespace
}  // namespace tessera::driver
