// Per-tensor precision and per-op math fidelity of a zoo model, as a precision file states them
// (docs/formats.md, "Precision files"; configs/precision/ holds tt-metal's two Llama configs). The
// tensor groups and op groups mirror tt-metal's TensorGroup and OpGroup (tenstorrent/tt-metal
// models/tt_transformers/tt/model_config.py @0039cbf0):
//
//   tensors:  attention.wqkv  q/k/v projection weights (and biases)      tt-metal WQKV
//             attention.wo    output projection weights                  WO
//             mlp.ff1         gate projection (w1)                       FF1_FF3
//             mlp.ff3         up projection (w3)                         FF1_FF3
//             mlp.ff2         down projection (w2)                       FF2
//             lm_head         the LM head's own weight (absent when tied)
//             embedding       token and learned position tables
//             kv_cache        every layer's K and V caches               KV_CACHE
//             activations     the compute type of activations            ACTIVATION
//   fidelity: li_ff1_3, li_ff2, li_qkv_decode, li_o_decode, sdpa_decode, li_qkv_prefill,
//             li_o_prefill, sdpa_prefill (tt-metal's OpGroup names), and lm_head (tt-metal sets
//             it in LMHead, models/tt_transformers/tt/lm_head.py @03f118e6); values lofi, hifi2,
//             hifi3, hifi4. sdpa_* are attention's two matmuls (scores and the weighted sum of
//             values).
//
// Weights outside every group (norms, routers) keep the model's weight type (--weight-dtype, else
// the activations'). A tensor group the model has no tensor of is an error naming the groups it
// has; an op group of the other mode (prefill keys in a decode step) is legal and unused.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "framework/common/status.hpp"
#include "framework/ir/dtype.hpp"

namespace tessera::zoo {

struct Precision {
  std::map<std::string, ir::DType> tensors;  // tensor group -> storage type (not activations)
  std::optional<ir::DType> activations;
  std::map<std::string, uint32_t> fidelity;  // op group -> tessera_math_fidelity (1 to 4)
  bool operator==(const Precision&) const = default;
};

// The format string a precision file starts with (bumped when a key changes meaning).
inline constexpr const char* kPrecisionFormat = "tessera-precision-1";

// Input errors name `file`, the line, the key, and what was expected.
Result<Precision> parse_precision_file(const std::string& file);
Result<Precision> parse_precision_text(const std::string& text, const std::string& file);
// The file's text again (format line first), for plan.yaml's source section.
std::string precision_yaml(const Precision& p);

// The tensor group of a zoo weight name ("layers.3.q_proj.weight" -> attention.wqkv), or "".
std::string weight_group(const std::string& tensor_name);
// The op group of a zoo op name in a decode or a prefill step, or "".
std::string op_group(const std::string& op_name, bool decode);
// Spellings for messages.
std::string tensor_group_names();
std::string op_group_names();
const char* fidelity_name(uint32_t fidelity);

}  // namespace tessera::zoo
