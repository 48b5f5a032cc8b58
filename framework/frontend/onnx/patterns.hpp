// Layers exporters spell out op by op, recognised and fused back into one node each, so the cost
// model sees one normalisation, activation or softmax (one pass over the tensor) instead of a
// chain of elementwise ops that each read and write it:
//   LayerNormalization  (x - mean(x)) / sqrt(mean((x - mean(x))^2) + eps) [* scale] [+ bias]
//   RMSNormalization    x * 1 / sqrt(mean(x^2) + eps) [* scale]        (Llama, Mistral)
//   GroupNormalization  InstanceNorm of x reshaped to [N, groups, -1], reshaped back, * scale +
//   bias Gelu                0.5 x (1 + erf(x / sqrt 2)), and the tanh form (GPT-2) Softmax
//   softmax(scores / c + mask): attention's scale and mask as epilogues
// Fused nodes are in the domain "tessera.fused" and keep the name of the layer they came from.
#pragma once

#include "framework/frontend/onnx/prepare.hpp"

namespace tessera::onnx_import {

inline constexpr const char* kFusedDomain = "tessera.fused";

// Rewrites every match in the prepared graph; a value read outside a match is never fused away.
void fuse_patterns(PreparedModel& pm);

}  // namespace tessera::onnx_import
