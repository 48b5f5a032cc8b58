#include "cost_model.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <map>

#include "topology.hpp"

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

TEST(TensixCostModel, AnFpuTileOfOnePadsNothingAndABlockRunsItsPesTogether) {
  // m = 1 with no padding: 2·1·64·64 / 4096 = 2 cycles.
  EXPECT_DOUBLE_EQ(make({{"fpu_tile", "1"}}).tile_seconds(matmul(1, 64, 64)), 2e-9);
  // 40 pads to 48 in tiles of 16: 2·48·48·48 / 4096 = 54 cycles.
  EXPECT_DOUBLE_EQ(make({{"fpu_tile", "16"}}).tile_seconds(matmul(40, 40, 40)), 54e-9);
  // A core standing for 3 × 3 PEs runs nine FPUs and nine SFPUs: 64 / 9 and 100 / 9 cycles.
  EXPECT_DOUBLE_EQ(make({{"tile_edge", "3"}}).tile_seconds(matmul(1, 64, 64)), 64e-9 / 9);
  tessera_tile_query gelu{};
  gelu.op_kind = TESSERA_OP_UNARY;
  gelu.dtype = TESSERA_DTYPE_BF16;
  gelu.elements = 3200;
  EXPECT_DOUBLE_EQ(make({{"tile_edge", "3"}}).tile_seconds(gelu), 100e-9 / 9);
  EXPECT_THROW(make({{"fpu_tile", "0"}}), sdk::Error);
  EXPECT_THROW(make({{"tile_edge", "65"}}), sdk::Error);
}

TEST(TensixCostModel, Bfp8RunsAtTheFpuRateOfItsUnpackedFormat) {
  // bfp8 (ABI 1.2) is unpacked to the FPU's format: the same 128 cycles as bf16 and fp8 at LoFi,
  // half the rate at HiFi2, whatever its 1.0625 bytes per value.
  EXPECT_DOUBLE_EQ(make().tile_seconds(matmul(64, 64, 64, TESSERA_DTYPE_BFP8)), 128e-9);
  EXPECT_DOUBLE_EQ(make().tile_seconds(matmul(64, 64, 64, TESSERA_DTYPE_FP8)), 128e-9);
  EXPECT_DOUBLE_EQ(
      make({{"fidelity", "hifi2"}}).tile_seconds(matmul(64, 64, 64, TESSERA_DTYPE_BFP8)), 256e-9);
}

TEST(TensixCostModel, NarrowBlockTypesRunAtTheFpuRateOfTheirUnpackedFormat) {
  // bfp4 and bfp2 (ABI 1.5) are unpacked as bfp8 is: 128 cycles at LoFi whatever their bytes.
  EXPECT_DOUBLE_EQ(make().tile_seconds(matmul(64, 64, 64, TESSERA_DTYPE_BFP4)), 128e-9);
  EXPECT_DOUBLE_EQ(make().tile_seconds(matmul(64, 64, 64, TESSERA_DTYPE_BFP2)), 128e-9);
}

TEST(TensixCostModel, AQueryFidelityOverridesTheConfiguredOne) {
  // A compute-bound tile (2·256³ FLOP = 8192 LoFi cycles) at each fidelity the host may ask for:
  // HiFi4 makes four passes, four times the LoFi time.
  auto at = [](uint32_t fidelity, const TensixCostModel& model) {
    tessera_tile_query q = matmul(256, 256, 256);
    q.math_fidelity = fidelity;
    return model.tile_seconds(q);
  };
  TensixCostModel lofi = make();
  EXPECT_DOUBLE_EQ(at(TESSERA_MATH_FIDELITY_DEFAULT, lofi), 8192e-9);
  EXPECT_DOUBLE_EQ(at(TESSERA_MATH_FIDELITY_LOFI, lofi), 8192e-9);
  EXPECT_DOUBLE_EQ(at(TESSERA_MATH_FIDELITY_HIFI2, lofi), 2 * 8192e-9);
  EXPECT_DOUBLE_EQ(at(TESSERA_MATH_FIDELITY_HIFI3, lofi), 3 * 8192e-9);
  EXPECT_DOUBLE_EQ(at(TESSERA_MATH_FIDELITY_HIFI4, lofi), 4 * 8192e-9);
  // DEFAULT is the chip file's fidelity; an explicit one wins over it.
  TensixCostModel hifi2 = make({{"fidelity", "hifi2"}});
  EXPECT_DOUBLE_EQ(at(TESSERA_MATH_FIDELITY_DEFAULT, hifi2), 2 * 8192e-9);
  EXPECT_DOUBLE_EQ(at(TESSERA_MATH_FIDELITY_LOFI, hifi2), 8192e-9);
  // fp32 has one mode (HiFi4) whatever is asked; vector ops have no fidelity.
  tessera_tile_query fp32 = matmul(256, 256, 256, TESSERA_DTYPE_FP32);
  fp32.math_fidelity = TESSERA_MATH_FIDELITY_LOFI;
  EXPECT_DOUBLE_EQ(lofi.tile_seconds(fp32), 4 * 8192e-9);
  tessera_tile_query softmax{};
  softmax.op_kind = TESSERA_OP_SOFTMAX;
  softmax.dtype = TESSERA_DTYPE_BF16;
  softmax.elements = 3200;
  softmax.math_fidelity = TESSERA_MATH_FIDELITY_HIFI4;
  EXPECT_DOUBLE_EQ(lofi.tile_seconds(softmax), 400e-9);
  try {
    (void)at(5, lofi);
    FAIL() << "accepted math_fidelity 5";
  } catch (const sdk::Error& e) {
    EXPECT_STREQ(e.what(), "math_fidelity 5 is not a tessera_math_fidelity (0 to 4)");
  }
}

// One table: the peak FLOP/s the topology reports per dtype (what reports and the utilisation
// figures divide by) is the rate the cost model times a compute-bound matmul at, on the default
// Wormhole and on every fidelity the chip file may choose.
TEST(TensixCostModel, TheTopologysPeakIsTheRateTheCostModelTimesAt) {
  for (const char* edge : {"1", "2"})  // and 8 x 10 Tensix folded into blocks of 2 x 2
    for (const char* fidelity : {"lofi", "hifi2", "hifi4"}) {
      MeshTopology topology = build_topology<MeshTopology>({{"tile_edge", edge},
                                                            {"grid.x_size", "9"},
                                                            {"grid.y_size", "10"},
                                                            {"workers", "x=1-8 y=0-9"},
                                                            {"dram.tiles", "0-0; 0-5"}});
      TensixCostModel model = make({{"fidelity", fidelity}, {"tile_edge", edge}});
      double share = std::string(fidelity) == "lofi" ? 1 : std::string(fidelity) == "hifi2" ? 2 : 4;
      for (uint32_t d = 0; d < TESSERA_DTYPE_COUNT; ++d) {
        double peak = topology.peak_flops_per_s(static_cast<tessera_dtype>(d));
        if (peak == 0) continue;  // not stored: the host never sends it
        tessera_tile_query q = matmul(1024, 1024, 1024, d);
        double rate = 2.0 * 1024 * 1024 * 1024 / model.tile_seconds(q);
        // The topology's table is LoFi's (fp32: HiFi4's); the cost model divides by the fidelity.
        double expected = d == TESSERA_DTYPE_FP32 ? peak : peak / share;
        EXPECT_NEAR(rate / expected, 1.0, 1e-12)
            << "dtype " << d << " at " << fidelity << ", tile_edge " << edge;
      }
    }
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

// The table is the per-core rates convention's (the host says which convention plans the chip).
TEST(TensixCostModel, BlackholeTableFromParameters) {
  TensixCostModel bh = make({{"clock_hz", "1.35e9"},
                             {"planner.transfers", "per_core_rates"},
                             {"noc.rate_by_size.0", "128:6.0"},
                             {"noc.rate_by_size.1", "16384:60.9"}});
  EXPECT_DOUBLE_EQ(bh.noc_bytes_per_cycle(16384), 60.9);
  EXPECT_DOUBLE_EQ(bh.info().clock_hz, 1.35e9);
}

// Under routes the topology's links price every transfer: a table here would move nothing.
TEST(TensixCostModel, ATransferRateIsRefusedWhereTheTopologyPricesTransfers) {
  try {
    make({{"dram_bytes_per_cycle", "40"}});
    FAIL();
  } catch (const sdk::Error& e) {
    EXPECT_STREQ(e.what(),
                 "'cost_model.dram_bytes_per_cycle' is not read under the routes convention: "
                 "transfers are priced on the topology's links; set 'topology.dram.bytes_per_s' "
                 "instead");
  }
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

}  // namespace
}  // namespace tessera::plugins::mesh
