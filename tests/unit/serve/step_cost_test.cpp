// The step-cost grid: exact where the cost is linear between points, its held-out error measured,
// a kinked prefill refined, and its file read back only under its own key.
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
  GridAxes axes = default_axes(6, 5000, 100, 1024);
  EXPECT_EQ(axes.batches, (std::vector<int64_t>{1, 2, 4, 6}));
  EXPECT_EQ(axes.context_tokens[0], (std::vector<int64_t>{256, 512, 1024}));
  EXPECT_EQ(axes.context_tokens[3], (std::vector<int64_t>{256, 512, 1024, 2048, 4096, 5000}));
  EXPECT_EQ(axes.prefill_tokens, (std::vector<int64_t>{16, 32, 64, 100}));
}

TEST(StepCost, LinearCostsInterpolateExactlyAndTheKinkIsRefined) {
  CostGrid grid = build_cost_grid(default_axes(8, 8192, 2048, 8192), analytic).take();
  // Affine in the sequences' positions at every batch: exact wherever the mean context is whole.
  EXPECT_NEAR(grid.decode_cost(3, 3000).seconds, 0.030 + 3000e-6 + 3e-4, 1e-9);
  EXPECT_NEAR(grid.cost({5, 5000, 0}).seconds, 0.030 + 5000e-6 + 5e-4, 1e-9);
  // The prefill kink at 300 tokens, between the points 256 and 512, refined until within 3 %.
  EXPECT_LE(grid.max_error(), kMaxInterpolationError);
  EXPECT_GT(grid.axes.prefill_tokens.size(), 8u);
  EXPECT_NEAR(grid.cost({0, 0, 1000}).seconds, 0.030 + 0.3 * 0.7, 1e-9);
  StepCost both = grid.cost({2, 1000, 1000});
  EXPECT_NEAR(both.seconds, 0.030 + 1000e-6 + 2e-4 + 0.030 + 0.21, 1e-9);
  EXPECT_NEAR(both.joules, 3.0, 1e-12);
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
