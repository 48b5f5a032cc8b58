// Graphs from zoo entries. decode: one new token per sequence attending over a KV cache of `seq`
// positions (the new token's K and V are written into its last slot); prefill: `seq` tokens at
// once, filling the cache, logits for the last token only. A DiT has one mode, a denoising step
// over `seq` latent tokens (default: the entry's `tokens`). A Shard builds one chip's share of a
// decoder under tensor, expert and pipeline parallelism; the collectives between chips are the
// caller's, never ops of the graph.
#pragma once

#include <optional>

#include "framework/common/status.hpp"
#include "framework/frontend/zoo/model_spec.hpp"
#include "framework/frontend/zoo/precision.hpp"
#include "framework/ir/graph.hpp"

namespace tessera::zoo {

enum class Mode { decode, prefill };

// The largest batch and sequence length a zoo model is built for: beyond them no model's tensors
// fit any chip, and every product of extents stays far from overflowing.
inline constexpr int64_t kMaxBatch = int64_t{1} << 20;
inline constexpr int64_t kMaxSeq = int64_t{1} << 24;

struct RunShape {
  int64_t batch = 1;
  std::optional<int64_t> seq;  // default: 2048 for decoders, the entry's tokens for a DiT
  std::optional<Mode> mode;    // default: decode for decoders
  // Element type of weights, activations and KV cache; default: the entry's. Lets a model kept in
  // bf16 run on a target that computes only fp16/fp32 (the IPU), as Elk's evaluation does.
  std::optional<ir::DType> dtype;
  // Storage type of the weights alone (TensorRole::weight), e.g. bfp8 or fp8; default: `dtype`.
  // Activations and the KV cache keep `dtype`, and every op computes in its activations' type.
  std::optional<ir::DType> weight_dtype;
  // Per tensor group storage types and per op group fidelity (precision.hpp), over the above:
  // its activations type stands for `dtype` when that is unset, its groups' types for
  // `weight_dtype` (and for the KV cache's `dtype`) on the tensors they name.
  std::optional<Precision> precision;
  // How unevenly a MoE router spreads tokens: 0 is uniform; s > 0 gives routed expert i a share
  // proportional to (i+1)^-s (Zipf). Bounded to [0, kMaxExpertSkew]; dense models ignore it.
  double expert_skew = 0;
};

inline constexpr double kMaxExpertSkew = 4;

// One chip's share of a decoder under a parallel strategy (Megatron-style tensor parallel, experts
// over chips, a pipeline stage's layers).
struct Shard {
  int64_t tp = 1;  // heads, ffn and vocab divided by tp; KV heads too, or replicated when fewer
                   // than tp (one KV head per chip)
  int64_t ep = 1;  // a MoE layer's routed experts over ep chips (this chip holds experts/ep)
  int64_t first_layer = 0;  // this stage's layers [first_layer, last_layer)
  std::optional<int64_t> last_layer = std::nullopt;  // default: the model's layers
  // Whether the stage embeds the tokens, and whether it ends in the LM head; unset: when it starts
  // at layer 0, and when it ends at the model's last layer. Set when an end stage holds no layer
  // (PopTransformer's embedding-only first IPU): its neighbour starts at layer 0 too but takes the
  // hidden state.
  std::optional<bool> embedding = std::nullopt, head = std::nullopt;
  bool operator==(const Shard&) const = default;
};

// Input errors when the shard does not split the model evenly: tp must divide the attention heads
// and every FFN width, and divide or be a multiple of the KV heads; ep must divide the routed
// experts; the layer range must be inside the model, and non-empty unless the stage holds the
// embedding or the LM head. A DiT takes the default only.
Status check_shard(const ModelSpec& model, const Shard& shard);

// The routed experts of one MoE layer that the shard's chip runs (chip 0, the busiest: under Zipf
// routing it holds the most popular expert of each round-robin group). An expectation over the
// routing, not a sample: `experts` is the expected number of its experts that receive a token,
// rounded up, and each gets `rows` = ceil(the chip's expected tokens / experts).
struct ExpertLoad {
  int64_t experts = 0;
  int64_t rows = 0;
  double tokens = 0;  // the chip's expected routed tokens (token-expert pairs)
};
ExpertLoad expert_load(const ModelSpec& model, const RunShape& shape, const Shard& shard);

// Input errors for shapes the model cannot take (batch or seq beyond the bounds above or below 1,
// seq beyond learned positions, DiT decode, an expert skew out of bounds, a shard check_shard
// refuses, ...).
Result<ir::Graph> build_decoder(const ModelSpec& model, const RunShape& shape,
                                const Shard& shard = {});
Result<ir::Graph> build_dit(const ModelSpec& model, const RunShape& shape);
Result<ir::Graph> build_model(const ModelSpec& model, const RunShape& shape,
                              const Shard& shard = {});

}  // namespace tessera::zoo
