// The step-cost grid: exact where the cost is linear between points, batches and prompts padded to
// its points, its held-out error measured where a run reached, and its file read back only under
// its own key.
#include "framework/serve/step_cost.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace tessera::serve {
namespace {

// Decode: 30 ms plus 1 us per KV position plus 0.1 ms per sequence; prefill: 30 ms up to 300
// tokens (reading the weights), then 0.3 ms per token beyond (computing).
Result<StepCost> analytic(Phase phase, int64_t batch, int64_t seq) {
  auto b = static_cast<double>(batch), s = static_cast<double>(seq);
  if (phase == Phase::decode) return StepCost{0.030 + 1e-6 * b * s + 1e-4 * b, 1.0};
  return StepCost{0.030 + 3e-4 * std::max(0.0, s - 300), 2.0};
}

TEST(StepCost, AxesDoubleAndEndAtTheirBounds) {
  GridAxes axes = default_axes(6, 5000, 3500, 1024);
  EXPECT_EQ(axes.batches, (std::vector<int64_t>{1, 2, 4, 6}));
  EXPECT_EQ(axes.context_tokens[0], (std::vector<int64_t>{256, 512, 1024}));
  EXPECT_EQ(axes.context_tokens[3], (std::vector<int64_t>{256, 512, 1024, 2048, 4096, 5000}));
  EXPECT_EQ(axes.prefill_tokens,
            (std::vector<int64_t>{16, 32, 64, 128, 256, 512, 1024, 2048, 3072, 3500}));
}

TEST(StepCost, DecodeInterpolatesInContextAndPadsBatchesAndPrompts) {
  CostGrid grid = build_cost_grid(default_axes(8, 8192, 2048, 8192), analytic).take();
  // Affine in the positions at every batch: exact wherever the mean context is whole; a held-out
  // point off by its mean context rounded to a whole position (362 / 4 simulated as 90 x 4).
  EXPECT_NEAR(grid.decode_cost(4, 3000).seconds, 0.030 + 3000e-6 + 4e-4, 1e-9);
  EXPECT_LE(grid.error().worst, 2e-4);
  EXPECT_EQ(grid.error().points, 10);
  // A batch runs padded to the next power of two; beyond the largest, at the largest.
  EXPECT_NEAR(grid.decode_cost(3, 3000).seconds, 0.030 + 3000e-6 + 4e-4, 1e-9);
  EXPECT_NEAR(grid.cost({5, 5000, {}}).seconds, 0.030 + 5000e-6 + 8e-4, 1e-9);
  EXPECT_EQ(grid.bucket(1), 0u);
  EXPECT_EQ(grid.bucket(9), 3u);
  // A prefill runs padded to the next length of the grid: 1000 tokens as 1024.
  EXPECT_NEAR(grid.cost({0, 0, {1000}}).seconds, 0.030 + 3e-4 * (1024 - 300), 1e-9);
  EXPECT_NEAR(grid.cost({0, 0, {256}}).seconds, 0.030, 1e-12);
  // Prompts side by side are prefilled one after another.
  EXPECT_NEAR(grid.cost({0, 0, {256, 1000}}).seconds, 0.060 + 3e-4 * (1024 - 300), 1e-9);
  // Beyond the last length, linear from the last two: 1024 -> 2048 extended to 3072.
  EXPECT_NEAR(grid.cost({0, 0, {3072}}).seconds, 0.030 + 3e-4 * (3072 - 300), 1e-9);
  StepCost both = grid.cost({2, 1000, {1000}});
  EXPECT_NEAR(both.seconds, 0.030 + 1000e-6 + 2e-4 + 0.030 + 3e-4 * 724, 1e-9);
  EXPECT_NEAR(both.joules, 3.0, 1e-12);
}

// A step time with a jump between neighbouring contexts: the held-out point beside it says so,
// and only runs that reach it count it.
TEST(StepCost, TheErrorIsMeasuredWhereARunReached) {
  auto jump = [](Phase phase, int64_t batch, int64_t seq) -> Result<StepCost> {
    double total = static_cast<double>(batch * seq);
    return StepCost{phase == Phase::decode && total > 3000 ? 0.040 : 0.030, 0};
  };
  CostGrid grid = build_cost_grid(default_axes(1, 8192, 64, 8192), jump).take();
  // Row 1 holds out 362, 1448 and 5793 (every other interval from the first).
  ASSERT_EQ(grid.held_out.size(), 3u);
  EXPECT_NEAR(grid.error().worst, 0.0, 1e-12);  // 2048..4096 is not held out
  CostGrid again = build_cost_grid(default_axes(2, 8192, 64, 8192), jump).take();
  // Row 2 holds out the other intervals, 2896 among them: (0.030 + 0.010 * 848/2048) vs 0.030.
  EXPECT_NEAR(again.error().worst, 0.010 * 848 / 2048 / 0.030, 1e-9);
  EXPECT_EQ(again.error_within({2, 1000, {}}).worst, 0);
  EXPECT_NEAR(again.error_within({2, 2000, {}}).worst, 0.010 * 848 / 2048 / 0.030, 1e-9);
}

TEST(StepCost, TheGridReadsBackOnlyUnderItsKey) {
  CostGrid grid = build_cost_grid(default_axes(2, 1024, 64, 1024), analytic).take();
  std::string text = cost_grid_json(grid, "key a");
  CostGrid back = read_cost_grid(text, "key a", "g.json").take();
  EXPECT_EQ(back.axes.context_tokens, grid.axes.context_tokens);
  EXPECT_DOUBLE_EQ(back.decode_cost(2, 700).seconds, grid.decode_cost(2, 700).seconds);
  EXPECT_EQ(back.held_out.size(), grid.held_out.size());
  EXPECT_EQ(read_cost_grid(text, "key b", "g.json").error().message,
            "g.json: not a step-cost grid of this model, chip and options; delete it to rebuild "
            "it");
}

TEST(StepCost, AFailingPointIsTheGridsError) {
  auto failing = [](Phase, int64_t batch, int64_t) -> Result<StepCost> {
    if (batch == 2) return input_error("does not fit");
    return StepCost{1, 0};
  };
  EXPECT_EQ(build_cost_grid(default_axes(2, 1024, 64, 1024), failing).error().message,
            "does not fit");
}

}  // namespace
}  // namespace tessera::serve
