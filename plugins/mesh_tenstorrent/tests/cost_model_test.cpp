#include "cost_model.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <map>

namespace tessera::plugins::mesh {
namespace {

TensixCostModel make(std::map<std::string, std::string> values = {}) {
  sdk::Params params(std::move(values));
  TensixCostModel model(params);
  params.reject_unknown("cost_model");
  return model;
}

tessera_tile_query matmul(uint64_t m, uint64_t k, uint64_t n, uint32_t dtype = TESSERA_DTYPE_BF16) {
  tessera_tile_query q{};
  q.op_kind = TESSERA_OP_MATMUL;
  q.dtype = dtype;
  q.batch = 1;
  q.m = m;
  q.k = k;
  q.n = n;
  return q;
}

TEST(TensixCostModel, MatmulRunsPaddedTilesAtTheFidelityRate) {
  // 64×64×64 at LoFi: 2·64³ / 4096 = 128 cycles at 1 GHz.
  EXPECT_DOUBLE_EQ(make().tile_seconds(matmul(64, 64, 64)), 128e-9);
  // m = 1 (decode) still fills a 32-row tile: 2·32·64·64 / 4096 = 64 cycles.
  EXPECT_DOUBLE_EQ(make().tile_seconds(matmul(1, 64, 64)), 64e-9);
  EXPECT_DOUBLE_EQ(make({{"fidelity", "hifi2"}}).tile_seconds(matmul(64, 64, 64)), 256e-9);
  EXPECT_DOUBLE_EQ(make({{"fidelity", "hifi4"}}).tile_seconds(matmul(64, 64, 64)), 512e-9);
  EXPECT_DOUBLE_EQ(make().tile_seconds(matmul(64, 64, 64, TESSERA_DTYPE_FP32)), 512e-9);
  EXPECT_TRUE(std::isinf(make().tile_seconds(matmul(64, 64, 64, TESSERA_DTYPE_FP64))));
}

TEST(TensixCostModel, VectorOpsUseThirtyTwoLanes) {
  tessera_tile_query gelu{};
  gelu.op_kind = TESSERA_OP_UNARY;
  gelu.dtype = TESSERA_DTYPE_BF16;
  gelu.elements = 3200;
  EXPECT_DOUBLE_EQ(make().tile_seconds(gelu), 100e-9);
  gelu.op_kind = TESSERA_OP_SOFTMAX;
  EXPECT_DOUBLE_EQ(make().tile_seconds(gelu), 400e-9);
  EXPECT_DOUBLE_EQ(make({{"op_overhead_cycles", "50"}}).tile_seconds(gelu), 450e-9);
}

TEST(TensixCostModel, NocRateFollowsTheCalibratedTable) {
  TensixCostModel m = make();
  EXPECT_DOUBLE_EQ(m.noc_bytes_per_cycle(64), 5.5);  // flat below the table
  EXPECT_DOUBLE_EQ(m.noc_bytes_per_cycle(256), 10.1);
  EXPECT_DOUBLE_EQ(m.noc_bytes_per_cycle(768), 22.7);    // halfway 512 → 1024
  EXPECT_DOUBLE_EQ(m.noc_bytes_per_cycle(1 << 20), 30);  // flat above
  // 8 KiB in 2 KiB packets over 3 hops: 27 + 8192/30 cycles.
  tessera_transfer_query q{TESSERA_LINK_ON_CHIP, 3, 8192, 2048};
  EXPECT_DOUBLE_EQ(m.transfer_seconds(q), (27 + 8192 / 30.0) * 1e-9);
  // DRAM injection caps a controller at 23.2 B/cycle.
  tessera_transfer_query dram{TESSERA_LINK_MEMORY, 0, 2320, 4096};
  EXPECT_DOUBLE_EQ(m.transfer_seconds(dram), 100e-9);
}

TEST(TensixCostModel, BlackholeTableFromParameters) {
  TensixCostModel bh = make({{"clock_hz", "1.35e9"},
                             {"noc.rate_by_size.0", "128:6.0"},
                             {"noc.rate_by_size.1", "16384:60.9"}});
  EXPECT_DOUBLE_EQ(bh.noc_bytes_per_cycle(16384), 60.9);
  EXPECT_DOUBLE_EQ(bh.info().clock_hz, 1.35e9);
}

TEST(TensixCostModel, MalformedRateTableNamesTheItem) {
  try {
    make({{"noc.rate_by_size.0", "512:18"}, {"noc.rate_by_size.1", "256:10"}});
    FAIL();
  } catch (const sdk::Error& e) {
    EXPECT_STREQ(e.what(),
                 "parameter 'noc.rate_by_size.1': expected \"bytes:bytes_per_cycle\" with both "
                 "positive and sizes ascending, got '256:10'");
  }
  try {
    make({{"fidelity", "hifi5"}});
    FAIL();
  } catch (const sdk::Error& e) {
    EXPECT_STREQ(e.what(),
                 "parameter 'fidelity': 'hifi5' is not one of: lofi, hifi2, hifi3, hifi4");
  }
}

TEST(TensixCostModel, OneChipShiftsAtTheNocRate) {
  EXPECT_DOUBLE_EQ(make().info().shift_bytes_per_s, 30e9);  // 30 B/cycle at >= 2 KiB [V tt-npe]
  EXPECT_DOUBLE_EQ(make({{"chips.x", "1"}, {"chips.y", "1"}}).info().shift_bytes_per_s, 30e9);
}

TEST(TensixCostModel, SeveralChipsShiftAtTheEthernetCutRate) {
  // n300: 2 x 64 cores, 2 links of 12.5 B/cycle across the cut: 4 · 25e9 / 128 per core.
  TensixCostModel n300 =
      make({{"chips.x", "2"}, {"cores_per_chip", "64"}, {"ethernet.links_per_pair", "2"}});
  EXPECT_DOUBLE_EQ(n300.info().shift_bytes_per_s, 4 * 25e9 / 128);
  // 4 x 2 chips: the cut halves x, crossing 2 chip rows x 2 links.
  TensixCostModel t3000 = make({{"chips.x", "4"},
                                {"chips.y", "2"},
                                {"cores_per_chip", "64"},
                                {"ethernet.links_per_pair", "2"}});
  EXPECT_DOUBLE_EQ(t3000.info().shift_bytes_per_s, 4 * (2 * 2 * 12.5e9) / (8 * 64));
  // A cut wider than the NoC needs leaves the NoC rate.
  TensixCostModel wide =
      make({{"chips.x", "2"}, {"cores_per_chip", "1"}, {"ethernet.links_per_pair", "16"}});
  EXPECT_DOUBLE_EQ(wide.info().shift_bytes_per_s, 30e9);
}

TEST(TensixCostModel, BadChipCountsNameTheirKey) {
  auto error = [](std::map<std::string, std::string> values) -> std::string {
    try {
      make(std::move(values));
    } catch (const sdk::Error& e) {
      return e.what();
    }
    return "";
  };
  EXPECT_EQ(error({{"chips.x", "0"}}), "parameter 'chips.x': must be in [1, 64], got 0");
  EXPECT_EQ(error({{"chips.x", "16"}, {"chips.y", "16"}}),
            "parameter 'chips': 256 chips is more than 64 ('chips.x' x 'chips.y')");
  EXPECT_EQ(error({{"chips", "8"}}),
            "parameter 'chips': expected a map {x: X, y: Y} of chips along each axis, got '8'");
}

}  // namespace
}  // namespace tessera::plugins::mesh
