// What one server step costs: its time and energy as a function of what it runs, read off a grid
// of steps the compiler planned and simulated (compile + simulate through the driver, the same
// pipeline as `tessera compile --simulate`) and interpolated between the grid's points.
//
// A step runs `decode_seqs` sequences one token each, attending over `decode_context_tokens` KV
// positions in all (each sequence its own cache plus the new token), and `prefill_tokens` prompt
// tokens. Its cost is the decode step's plus the prefill's, as two programs run back to back:
//   decode(b, T)  the zoo decoder in decode mode, batch b, seq T/b (the mean context): the
//                 weights are read once for the batch and attention reads every cache, so the mean
//                 stands for a batch whose contexts differ (attention's work is linear in each)
//   prefill(p)    the zoo decoder in prefill mode, batch 1, seq p: a chunk of p tokens, or several
//                 prompts side by side (an over-estimate of their attention, which is quadratic
//                 in each prompt rather than in their sum)
// Both are piecewise linear between the grid's points (bilinear in b and T), linear beyond the
// last two points of an axis. The grid's error is measured, not assumed: points between the grid's
// points (held out) are simulated directly and compared with what interpolation says there.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "framework/common/status.hpp"

namespace tessera::serve {

// The error beyond which the grid's figures are flagged (docs/serving.md).
inline constexpr double kMaxInterpolationError = 0.03;

struct StepShape {
  int64_t decode_seqs = 0;
  int64_t decode_context_tokens = 0;  // over the decode sequences, each counting the new token
  int64_t prefill_tokens = 0;
};

struct StepCost {
  double seconds = 0;
  double joules = 0;  // 0 when the chip states no energy rates
};

using StepCostFn = std::function<StepCost(const StepShape&)>;

enum class Phase { decode, prefill };
// One compiled and simulated step: decode with `batch` sequences of `seq` KV positions, or a
// prefill of `seq` tokens (batch 1).
using SimulatePoint = std::function<Result<StepCost>(Phase phase, int64_t batch, int64_t seq)>;

// Where the grid's points lie: for each batch, the total contexts its decode steps are simulated
// at (a row of its own: a batch's total context is bounded by the KV cache and by its sequences'
// longest context, so every point is one a step can reach), and the prefill axis.
struct GridAxes {
  std::vector<int64_t> batches;                      // ascending, from 1
  std::vector<std::vector<int64_t>> context_tokens;  // per batch, ascending: total KV positions
  std::vector<int64_t> prefill_tokens;               // ascending
};
// Doubling batches 1..max_batch (max_batch last); each batch b's total contexts doubling from
// max(256, b) to min(kv_tokens, b * max_seq) (last); prefill doubling from 16 to
// max_prefill_tokens (last). Doubling keeps the error of linear interpolation within 3 % on the
// shipped chips (docs/serving.md).
GridAxes default_axes(int64_t max_batch, int64_t kv_tokens, int64_t max_prefill_tokens,
                      int64_t max_seq);

struct HeldOut {
  Phase phase = Phase::decode;
  int64_t batch = 1, context_tokens = 0;  // decode: batch and total context; prefill: tokens
  double simulated_s = 0, interpolated_s = 0;
  double joules = 0;     // simulated
  double error() const;  // |interpolated - simulated| / simulated
};

struct CostGrid {
  GridAxes axes;
  std::vector<std::vector<StepCost>> decode;  // [batch index][context index]
  std::vector<StepCost> prefill;              // per prefill point
  std::vector<HeldOut> held_out;

  StepCost cost(const StepShape& shape) const;
  StepCost decode_cost(double batch, double context_tokens) const;
  StepCost prefill_cost(double tokens) const;
  double max_error() const;  // over held_out; 0 when none
};

// The decode seq of grid point (batch, total context): the mean context, at least 1.
int64_t mean_context(int64_t batch, int64_t context_tokens);

// Simulates every grid point and the held-out points (the geometric middles of the grid's cells:
// every other decode cell's centre in a checkerboard, each prefill interval's middle), `progress`
// called after each point with (done, total; the total grows while prefill is refined). A prefill
// point beyond kMaxInterpolationError joins the grid and its two new intervals are checked in turn
// (prefill turns from reading the weights to computing at a length no fixed axis places); decode
// points are not refined, their error is reported. Errors: the first failing point's.
Result<CostGrid> build_cost_grid(const GridAxes& axes, const SimulatePoint& simulate,
                                 const std::function<void(int, int)>& progress = {});

// The grid as JSON (the cache's file, "tessera-serve-grid-1") and back; input errors name `file`.
std::string cost_grid_json(const CostGrid& grid, const std::string& key);
Result<CostGrid> read_cost_grid(const std::string& text, const std::string& key,
                                const std::string& file);

}  // namespace tessera::serve
