// Graphs from zoo entries. decode: one new token per sequence attending over a KV cache of `seq`
// positions (the new token's K and V are written into its last slot); prefill: `seq` tokens at
// once, filling the cache, logits for the last token only. A DiT has one mode, a denoising step
// over `seq` latent tokens (default: the entry's `tokens`).
#pragma once

#include <optional>

#include "framework/common/status.hpp"
#include "framework/frontend/zoo/model_spec.hpp"
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
};

// Input errors for shapes the model cannot take (batch or seq beyond the bounds above or below 1,
// seq beyond learned positions, DiT decode, ...).
Result<ir::Graph> build_decoder(const ModelSpec& model, const RunShape& shape);
Result<ir::Graph> build_dit(const ModelSpec& model, const RunShape& shape);
Result<ir::Graph> build_model(const ModelSpec& model, const RunShape& shape);

}  // namespace tessera::zoo
