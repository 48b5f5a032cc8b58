#include "cost_model.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <map>

namespace tessera::plugins::ipu {
namespace {

constexpr double kClockHz = 1.325e9;

IpuCostModel make(std::map<std::string, std::string> values = {}) {
  sdk::Params params(std::move(values));
  IpuCostModel model(params);
  params.reject_unknown("cost_model");
  return model;
}

tessera_tile_query matmul(uint64_t m, uint64_t k, uint64_t n, uint32_t dtype = TESSERA_DTYPE_FP16) {
  tessera_tile_query q{};
  q.op_kind = TESSERA_OP_MATMUL;
  q.dtype = dtype;
  q.batch = 1;
  q.m = m;
  q.k = k;
  q.n = n;
  q.flops = 2.0 * m * k * n;
  return q;
}

TEST(IpuCostModel, MatmulFollowsTheT10Fit) {
  // 16×64×32: ⌈16/6⌉=3, ⌈64/16⌉=4, ⌈32/16⌉=2 → 24·3·4·2 + 514·4·2 + 113·2 + 173
  //   = 576 + 4112 + 226 + 173 = 5087 cycles.
  EXPECT_DOUBLE_EQ(IpuCostModel::matmul_cycles(16, 64, 32), 5087);
  EXPECT_DOUBLE_EQ(make().tile_seconds(matmul(16, 64, 32)), 5087 / kClockHz);
  tessera_tile_query batched = matmul(16, 64, 32);
  batched.op_kind = TESSERA_OP_BATCHED_MATMUL;
  batched.batch = 3;
  EXPECT_DOUBLE_EQ(make().tile_seconds(batched), 3 * 5087 / kClockHz);
}

TEST(IpuCostModel, LargeTilesApproachSixtyFourMacsPerCycle) {
  // The fit's MAC term, 24 cycles per 6×16×16 block, is 64 MAC/cycle; the per-k·n term fades
  // once m is large.
  double cycles = IpuCostModel::matmul_cycles(6000, 1600, 1600);
  EXPECT_NEAR(6000.0 * 1600 * 1600 / cycles, 64, 64 * 0.03);
}

TEST(IpuCostModel, Fp32MatmulRunsTheMacTermFourTimesSlower) {
  double fp16 = IpuCostModel::matmul_cycles(16, 64, 32);
  double mac = 24 * 3 * 4 * 2;
  EXPECT_DOUBLE_EQ(make().tile_seconds(matmul(16, 64, 32, TESSERA_DTYPE_FP32)),
                   (fp16 + 3 * mac) / kClockHz);
}

TEST(IpuCostModel, UnfittedDtypesCannotRun) {
  EXPECT_TRUE(std::isinf(make().tile_seconds(matmul(16, 64, 32, TESSERA_DTYPE_INT8))));
  EXPECT_TRUE(std::isinf(make().tile_seconds(matmul(16, 64, 32, TESSERA_DTYPE_BF16))));
  tessera_tile_query add{};
  add.op_kind = TESSERA_OP_ELEMENTWISE;
  add.dtype = TESSERA_DTYPE_INT32;
  add.elements = 1000;
  EXPECT_TRUE(std::isinf(make().tile_seconds(add)));
}

// PyTorch's top-k MoE expands its int64 routing indices (planned as int32) before a gather: the
// copy is a unary pass over its bytes, whatever they encode.
TEST(IpuCostModel, MovesOfAnyDtypeCostTheirPassOverTheBytes) {
  for (uint32_t kind : {TESSERA_OP_DATA_MOVEMENT, TESSERA_OP_GATHER}) {
    tessera_tile_query fp32{};
    fp32.op_kind = kind;
    fp32.dtype = TESSERA_DTYPE_FP32;
    fp32.elements = 1000;
    fp32.bytes_in = 4000;
    fp32.bytes_out = 4000;
    tessera_tile_query int32 = fp32;
    int32.dtype = TESSERA_DTYPE_INT32;
    tessera_tile_query int8 = fp32;
    int8.dtype = TESSERA_DTYPE_INT8;
    int8.bytes_in = int8.bytes_out = 1000;
    EXPECT_DOUBLE_EQ(make().tile_seconds(int32), make().tile_seconds(fp32));
    EXPECT_DOUBLE_EQ(make().tile_seconds(int32), IpuCostModel::unary_cycles(2000) / kClockHz);
    EXPECT_DOUBLE_EQ(make().tile_seconds(int8), IpuCostModel::unary_cycles(1000) / kClockHz);
  }
}

TEST(IpuCostModel, ElementwiseHasASmallTileRegime) {
  EXPECT_DOUBLE_EQ(IpuCostModel::elementwise_cycles(1000), 1040);    // 0.75x + 290
  EXPECT_DOUBLE_EQ(IpuCostModel::elementwise_cycles(16000), 8517);   // capped
  EXPECT_DOUBLE_EQ(IpuCostModel::elementwise_cycles(20000), 10300);  // 0.5x + 300
  EXPECT_DOUBLE_EQ(IpuCostModel::unary_cycles(1000), 700);           // 0.5x + 200
  tessera_tile_query add{};
  add.op_kind = TESSERA_OP_ELEMENTWISE;
  add.dtype = TESSERA_DTYPE_FP16;
  add.elements = 1000;
  EXPECT_DOUBLE_EQ(make().tile_seconds(add), 1040 / kClockHz);
}

// Found by the conformance kit (CostModelContract.TileTimesAreMonotoneInWork): 0.5x + 300 is
// 8516.5 at x = 16433, half a cycle faster than the 8517 cap of 16432 elements.
TEST(IpuCostModel, ElementwiseIsNeverFasterForMoreElements) {
  EXPECT_DOUBLE_EQ(IpuCostModel::elementwise_cycles(16432), 8517);
  EXPECT_DOUBLE_EQ(IpuCostModel::elementwise_cycles(16433), 8517);
  EXPECT_DOUBLE_EQ(IpuCostModel::elementwise_cycles(16434), 8517);
  EXPECT_DOUBLE_EQ(IpuCostModel::elementwise_cycles(16436), 8518);
  for (double x = 1; x < 40000; ++x)
    ASSERT_LE(IpuCostModel::elementwise_cycles(x), IpuCostModel::elementwise_cycles(x + 1)) << x;
}

TEST(IpuCostModel, SoftmaxIsComposedFromFittedPasses) {
  tessera_tile_query softmax{};
  softmax.op_kind = TESSERA_OP_SOFTMAX;
  softmax.dtype = TESSERA_DTYPE_FP16;
  softmax.elements = 2048;
  double expected = 3 * (0.5 * 2048 + 200) + (0.75 * 2048 + 290);
  EXPECT_DOUBLE_EQ(make().tile_seconds(softmax), expected / kClockHz);
}

TEST(IpuCostModel, ShiftAndSyncSlowDownAcrossChips) {
  tessera_transfer_query shift{TESSERA_LINK_ON_CHIP, 0, 2000, 0};
  EXPECT_DOUBLE_EQ(make().transfer_seconds(shift), 2000 * 0.28 / kClockHz);  // 0.56 cyc/elem
  EXPECT_DOUBLE_EQ(make({{"chips", "4"}}).transfer_seconds(shift), 1.25 * 2000 * 0.28 / kClockHz);
  EXPECT_DOUBLE_EQ(make().info().sync_s, 118 / kClockHz);
  EXPECT_DOUBLE_EQ(make({{"chips", "4"}}).info().sync_s, 1.25 * 118 / kClockHz);
  tessera_transfer_query hbm{TESSERA_LINK_MEMORY, 0, 5.5e9, 0};
  EXPECT_DOUBLE_EQ(make().transfer_seconds(hbm), 1.0);
}

// composed_ops: elk_artifact times the ops the fit does not cover as the Elk artifact does
// (TensorExpression.get_comp_time_per_iter_helper); t10 (the default) composes unary passes.
TEST(IpuCostModel, ReductionsAndSlicesCanBeTimedAsTheElkArtifactDoes) {
  tessera_tile_query sum{};
  sum.op_kind = TESSERA_OP_REDUCTION;
  sum.dtype = TESSERA_DTYPE_FP16;
  sum.elements = 5;            // output elements: aligned up to 8
  sum.bytes_in = 5 * 100 * 2;  // 100 inputs per output
  IpuCostModel artifact = make({{"composed_ops", "elk_artifact"}});
  EXPECT_DOUBLE_EQ(artifact.tile_seconds(sum), (8 * 100 * 0.25 + 175) / kClockHz);
  EXPECT_DOUBLE_EQ(make().tile_seconds(sum), (0.5 * 500 + 200) / kClockHz);
  EXPECT_DOUBLE_EQ(IpuCostModel::artifact_reduce_cycles(1, 2), 1 * 2 * 1.5 + 175);
  // Up to 480 aligned elements the small-reduction cap: 3 → 4 (x 100), 30 → 48 (x 10).
  EXPECT_DOUBLE_EQ(IpuCostModel::artifact_reduce_cycles(3, 100), 481 * 0.25 + 175);
  EXPECT_DOUBLE_EQ(IpuCostModel::artifact_reduce_cycles(30, 10), 481 * 0.25 + 175);
  EXPECT_DOUBLE_EQ(IpuCostModel::artifact_reduce_cycles(100, 5), 144 * 5 * 0.25 + 175);
  tessera_tile_query slice{};
  slice.op_kind = TESSERA_OP_DATA_MOVEMENT;
  slice.dtype = TESSERA_DTYPE_FP16;
  slice.elements = 84;
  slice.bytes_in = 3 * 84 * 2;
  slice.bytes_out = 84 * 2;
  EXPECT_DOUBLE_EQ(artifact.tile_seconds(slice), (84 * 0.56 + 118) / kClockHz);
  EXPECT_DOUBLE_EQ(make().tile_seconds(slice), (0.5 * 3 * 84 + 200) / kClockHz);
  try {
    make({{"composed_ops", "artifact"}});
    FAIL();
  } catch (const sdk::Error& e) {
    EXPECT_STREQ(e.what(), "parameter 'composed_ops': 'artifact' is not one of: t10, elk_artifact");
  }
}

TEST(IpuCostModel, BadParametersNameTheKey) {
  try {
    make({{"sync_cycles", "-5"}});
    FAIL();
  } catch (const sdk::Error& e) {
    EXPECT_STREQ(e.what(), "parameter 'sync_cycles': must be at least 0, got -5.000000");
  }
  try {
    make({{"shift_cycle_per_byte", "0.3"}});
    FAIL();
  } catch (const sdk::Error& e) {
    EXPECT_STREQ(e.what(),
                 "unknown cost_model parameter 'shift_cycle_per_byte' (did you mean "
                 "'shift_cycles_per_byte'?)");
  }
}

// The topology's IPU-Links carry chip-to-chip traffic in plan and simulation alike; a second rate
// here would move neither.
TEST(IpuCostModel, AChipLinkRateIsTheTopologys) {
  try {
    make({{"chip_link_bytes_per_s", "1e9"}});
    FAIL();
  } catch (const sdk::Error& e) {
    EXPECT_STREQ(e.what(),
                 "parameter 'chip_link_bytes_per_s': the chip-to-chip rate is the topology's (set "
                 "topology.chip_link.bytes_per_s); the planner and the simulator price "
                 "chip-to-chip traffic on its links");
  }
}

}  // namespace
}  // namespace tessera::plugins::ipu
