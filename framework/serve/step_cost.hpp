// What one server step costs: its time and energy as a function of what it runs, read off a grid
// of steps the compiler planned and simulated (compile + simulate through the driver, the same
// pipeline as `tessera compile --simulate`) and interpolated between the grid's points.
//
// A step runs `decode_seqs` sequences one token each, attending over `decode_context_tokens` KV
// positions in all (each sequence its own cache plus the new token), and a prefill of each of
// `prefill_chunks` (a prompt, or a chunk of one). Its cost is the decode step's plus each
// prefill's, as programs run back to back (tt-metal prefills one user at a time, prefill_forward
// in the llama_generation.py below):
//   decode(b, T)  the zoo decoder in decode mode at batch B, the smallest of the grid's batches
//                 (powers of two up to the largest batch) not below b, and seq T/B: the server
//                 pads a batch to the next size it has a program for, as servers that replay
//                 captured programs do (vLLM pads a decode batch to the next of its CUDA graphs'
//                 `_BATCH_SIZES_TO_CAPTURE`, 1, 2, 4 and multiples of 8, in
//                 vllm/worker/model_runner.py of its 0.5 and 0.6 releases; these buckets are
//                 coarser above 8). Padding also keeps the figures off the compiler's jumps between
//                 neighbouring batches, which no interpolation follows (docs/serving.md). The
//                 weights are read once per step and attention reads every cache, so T/B stands
//                 for contexts that differ (attention's work is linear in each). Linear in T
//                 between the row's points.
//   prefill(p)    the zoo decoder in prefill mode, batch 1, at the smallest of the grid's lengths
//                 not below p: powers of two to 1024, then multiples of 1024 (tt-metal pads a
//                 prefill so, "a power of 2 or a multiple of 1024, whichever is smaller",
//                 get_padded_prefill_len in models/demos/t3000/llama2_70b/tt/llama_generation.py).
//                 A later chunk of a prompt costs as a prompt of its length (its attention to
//                 the chunks before it is left out). Beyond the last length (a prompt longer
//                 than the grid), linear from the last two.
// Padding both ways keeps the figures on simulated steps: the compiler's step times jump between
// neighbouring shapes (a plan that fits one batch or length and not the next), which no
// interpolation follows. What is interpolated, decode steps between a row's contexts, has its
// error measured, not assumed: held-out points are simulated directly and compared with what
// interpolation says there. Where one misses by more than kRefineError the grid is refined: the
// held-out point becomes a point of its row and the two intervals it splits are held out in turn,
// until every held-out point is within kRefineError or kMaxRefinedPoints were added.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "framework/common/status.hpp"

namespace tessera::serve {

// The error beyond which the grid's figures are flagged (docs/serving.md).
inline constexpr double kMaxInterpolationError = 0.03;
// A held-out point missing by more than this has its row refined through it. A third of the
// flag's: a held-out point samples one context of its interval (the geometric middle), and where
// the step bends or jumps the contexts beside it may miss by more; on the T3000 demo
// (docs/serving.md) a row that does neither misses by under 0.02 %, so only those are refined.
inline constexpr double kRefineError = 0.01;
// The most points refinement adds to one grid: each costs two more simulated steps (its two
// halves held out), so at this bound a build simulates at most 2 x 32 steps more. A jump in the
// step time (a plan that fits one context and not the next) is closed in on by halving: about
// log2 of the mean contexts in its interval, 8 to 10 points on the grids measured.
inline constexpr int kMaxRefinedPoints = 32;

struct StepShape {
  int64_t decode_seqs = 0;
  int64_t decode_context_tokens = 0;    // over the decode sequences, each counting the new token
  std::vector<int64_t> prefill_chunks;  // prompt tokens of each prefill
  // KV positions swapped out of the cache or back in (preemption by swap): priced on the off-chip
  // memory's rate (kv_room.hpp: swap_cost), not by the grid.
  int64_t swap_tokens = 0;
  int64_t prefill_tokens() const;
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
  std::vector<int64_t> batches;                      // ascending, multiples of the first
  std::vector<std::vector<int64_t>> context_tokens;  // per batch, ascending: total KV positions
  std::vector<int64_t> prefill_tokens;               // ascending
};
// Batches doubling from `batch_step` to max_batch (max_batch last; both multiples of batch_step,
// a pipeline's micro-batches: every grid batch splits into them); each batch b's total contexts
// doubling from max(256, b) to min(kv_tokens, b * max_seq) (last); prefill lengths 16, 32, ...
// 1024, then multiples of 1024, to max_prefill_tokens (last).
GridAxes default_axes(int64_t max_batch, int64_t kv_tokens, int64_t max_prefill_tokens,
                      int64_t max_seq, int64_t batch_step = 1);

// A decode step between a row's contexts, simulated directly and interpolated.
struct HeldOut {
  int64_t batch = 1, context_tokens = 0;
  double simulated_s = 0, interpolated_s = 0;
  double error() const;  // |interpolated - simulated| / simulated
};

struct GridError {
  double worst = 0;
  int points = 0;  // held-out points counted
};

// How a grid is refined: held-out points missing by more than `threshold` become grid points, at
// most `max_points` of them.
struct Refinement {
  double threshold = kRefineError;
  int max_points = kMaxRefinedPoints;
};

struct CostGrid {
  GridAxes axes;
  std::vector<std::vector<StepCost>> decode;  // [batch index][context index]
  std::vector<StepCost> prefill;              // per prefill length
  std::vector<HeldOut> held_out;              // the points still held out, refinement's included
  // The held-out points that missed by more than the refinement threshold and became grid points
  // (in axes.context_tokens), in the order added, each with its error before it was added.
  std::vector<HeldOut> refined;
  // True when refinement stopped at its bound with a held-out point still beyond its threshold.
  bool refinement_bounded = false;

  StepCost cost(const StepShape& shape) const;
  StepCost decode_cost(double batch, double context_tokens) const;
  StepCost prefill_cost(double tokens) const;
  size_t bucket(double batch) const;  // the batch row a step of `batch` sequences runs padded to
  int64_t max_prefill_tokens() const { return axes.prefill_tokens.back(); }
  // Over the held-out points in the intervals a run's steps reached: batches up to `largest`'s
  // (its bucket) and contexts below twice its total context (the axes double, so an interval
  // reaches from its middle down to about 1/sqrt(2) of it). All of them by default.
  GridError error_within(const StepShape& largest) const;
  GridError error() const;
};

// The decode seq of grid point (batch, total context): the mean context rounded down (a row's last
// point, the whole cache, stays within it), at least 1.
int64_t mean_context(int64_t batch, int64_t context_tokens);

// Simulates every grid point, then the held-out points: the geometric middle of every other
// context interval in each batch row (a checkerboard over the rows). Then refines, round by
// round: each held-out point missing by more than `refine.threshold` (the worst first, while
// fewer than `refine.max_points` were added) becomes a point of its row, costing what it
// simulated at, and the geometric middles of the two intervals it splits are simulated and held
// out (where the middle is a step of its own: a mean context strictly between its ends'). A step
// reads one row (its batch padded up), so a held-out point lies between two points of its row and
// its miss is along context: refinement adds context points, never batches. `progress` is called
// after each point simulated with (done, total); the total grows by each round's new held-out
// points before the previous round's last point is reported, so done reaches total once, at the
// end. Errors: the first failing point's.
Result<CostGrid> build_cost_grid(const GridAxes& axes, const SimulatePoint& simulate,
                                 const std::function<void(int, int)>& progress = {},
                                 const Refinement& refine = {});

// The grid as JSON (the cache's file, "tessera-serve-grid-2") and back; input errors name `file`.
std::string cost_grid_json(const CostGrid& grid, const std::string& key);
Result<CostGrid> read_cost_grid(const std::string& text, const std::string& key,
                                const std::string& file);

}  // namespace tessera::serve
