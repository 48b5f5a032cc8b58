// A model-zoo entry (models/zoo/NAME.yaml): the few numbers an LLM or DiT graph is built from.
// Parsed and checked here; decoder.cpp and dit.cpp (builders.hpp) build graphs from it.
#pragma once

#include <cstdint>
#include <string>

#include "framework/common/yaml_reader.hpp"
#include "framework/ir/dtype.hpp"

namespace tessera::zoo {

enum class Family { decoder, dit };
enum class Norm { rmsnorm, layernorm };
enum class Activation { silu, gelu, gelu_tanh, relu };
enum class Position { rotary, learned, none };

struct ModelSpec {
  std::string file;
  std::string name;
  std::string description;
  Family family = Family::decoder;
  int64_t layers = 0;
  int64_t hidden = 0;
  int64_t heads = 0;
  int64_t kv_heads = 0;  // defaults to heads
  int64_t head_dim = 0;  // defaults to hidden / heads
  int64_t ffn = 0;       // the dense MLP's width; 0 in a mixture of experts (expert_ffn instead)
  int64_t vocab = 0;     // decoder: tokens; dit: class labels (+1 for the null class)
  Norm norm = Norm::rmsnorm;
  Activation activation = Activation::silu;
  bool gated_mlp = true;  // gate and up projections (SwiGLU/GeGLU)
  Position position = Position::rotary;
  int64_t max_positions = 0;    // learned position table rows
  int64_t position_offset = 0;  // OPT stores positions from row 2
  bool bias = false;            // biases on the projections and norms
  bool tied_embeddings = false;
  bool post_norms = false;     // Gemma 2: norms after attention and MLP too
  bool embed_scale = false;    // Gemma: embeddings scaled by sqrt(hidden)
  bool attn_softcap = false;   // Gemma 2: soft-capped attention logits
  bool final_softcap = false;  // Gemma 2: soft-capped output logits
  ir::DType dtype = ir::DType::fp16;
  // Mixture of experts (decoders): every layer's MLP is `experts` routed gated MLPs of width
  // `expert_ffn`, each token sent to `experts_per_token` of them, plus `shared_experts` MLPs of
  // width `shared_expert_ffn` that see every token. experts = 0: a dense MLP of width `ffn`.
  int64_t experts = 0;
  int64_t experts_per_token = 0;
  int64_t expert_ffn = 0;
  int64_t shared_experts = 0;
  int64_t shared_expert_ffn = 0;
  // DiT only.
  int64_t patch = 2;
  int64_t in_channels = 4;
  int64_t out_channels = 8;
  int64_t freq_dim = 256;
  int64_t default_tokens = 256;
};

// Throws Failure naming file:line:key for a missing, unknown or inconsistent field.
ModelSpec parse_model_spec(const YamlNode& root);
// True when the YAML document is a zoo model (has `family`).
bool is_model_document(const YamlNode& root);

}  // namespace tessera::zoo
