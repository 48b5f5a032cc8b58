#include "framework/frontend/zoo/model_spec.hpp"

#include <map>
#include <vector>

#include "framework/common/user_text.hpp"

namespace tessera::zoo {

namespace {

template <class E>
E choice(const YamlNode& root, const std::string& key, const std::map<std::string, E>& options,
         E fallback) {
  if (!root.has(key)) return fallback;
  std::string value = root.child(key).as_string();
  auto it = options.find(value);
  if (it != options.end()) return it->second;
  std::string valid;
  for (const auto& [name, e] : options) valid += (valid.empty() ? "" : ", ") + name;
  throw root.child(key).fail("unknown value " + in_quotes(value) + "; use one of " + valid);
}

bool flag(const YamlNode& root, const std::string& key) {
  return choice<bool>(root, key, {{"true", true}, {"false", false}}, false);
}

int64_t number(const YamlNode& root, const std::string& key, int64_t fallback = -1,
               int64_t max = int64_t{1} << 24) {
  if (!root.has(key)) {
    if (fallback >= 0) return fallback;
    throw root.fail("missing required key '" + key + "'");
  }
  return root.child(key).as_int(1, max);
}

// Ten times the deepest published model: every layer becomes ops, and a graph of millions of them
// would take the machine's memory before saying anything.
constexpr int64_t kMaxLayers = 1024;

// Routed experts per layer: well beyond the largest published MoE (DeepSeek-V3's 256), small
// enough that a layer's expert ops stay a few thousand.
constexpr int64_t kMaxExperts = 1024;

const std::vector<std::string> kMoeKeys{"experts_per_token", "expert_ffn", "shared_experts",
                                        "shared_expert_ffn"};

void check_experts(const YamlNode& root, const ModelSpec& m) {
  if (m.experts == 0) {
    for (const auto& key : kMoeKeys)
      if (root.has(key))
        throw root.child(key).fail(key +
                                   " describes a mixture of experts; give experts (the routed "
                                   "experts per layer) too");
    return;
  }
  if (m.family == Family::dit)
    throw root.child("experts").fail("a DiT has a dense MLP; experts apply to decoders");
  if (root.has("ffn"))
    throw root.child("ffn").fail(
        "a mixture of experts gives expert_ffn (and shared_expert_ffn) instead of ffn");
  if (m.experts_per_token > m.experts)
    throw root.child("experts_per_token")
        .fail("experts_per_token (" + std::to_string(m.experts_per_token) +
              ") must be at most experts (" + std::to_string(m.experts) + ")");
  if (m.shared_experts == 0 && root.has("shared_expert_ffn"))
    throw root.child("shared_expert_ffn").fail("shared_expert_ffn needs shared_experts >= 1");
}

void check_consistency(const YamlNode& root, const ModelSpec& m) {
  if (m.heads % m.kv_heads != 0)
    throw root.child("kv_heads")
        .fail("heads (" + std::to_string(m.heads) + ") must be a multiple of kv_heads");
  if (m.gated_mlp && m.activation == Activation::relu)
    throw root.child("activation").fail("a gated MLP uses silu, gelu or gelu_tanh, not relu");
  if (m.position == Position::learned && m.max_positions == 0)
    throw root.fail("position: learned needs max_positions (rows of the position table)");
  if (m.family == Family::dit && m.heads != m.kv_heads)
    throw root.child("kv_heads").fail("a DiT uses plain multi-head attention (kv_heads = heads)");
  check_experts(root, m);
}

}  // namespace

bool is_model_document(const YamlNode& root) {
  return root.has("family");
}

ModelSpec parse_model_spec(const YamlNode& root) {
  root.only_keys({"name",
                  "description",
                  "family",
                  "layers",
                  "hidden",
                  "heads",
                  "kv_heads",
                  "head_dim",
                  "ffn",
                  "vocab",
                  "norm",
                  "activation",
                  "mlp",
                  "position",
                  "max_positions",
                  "position_offset",
                  "bias",
                  "tied_embeddings",
                  "post_norms",
                  "embed_scale",
                  "attn_softcap",
                  "final_softcap",
                  "dtype",
                  "patch",
                  "in_channels",
                  "out_channels",
                  "freq_dim",
                  "tokens",
                  "experts",
                  "experts_per_token",
                  "expert_ffn",
                  "shared_experts",
                  "shared_expert_ffn"});
  ModelSpec m;
  m.file = root.file();
  m.name = root.child("name").as_string();
  m.description = root.get_string("description", "");
  m.family = choice<Family>(root, "family", {{"decoder", Family::decoder}, {"dit", Family::dit}},
                            Family::decoder);
  m.layers = number(root, "layers", -1, kMaxLayers);
  m.hidden = number(root, "hidden");
  m.heads = number(root, "heads");
  m.kv_heads = number(root, "kv_heads", m.heads);
  m.head_dim = number(root, "head_dim", m.hidden / m.heads);
  m.experts = root.has("experts") ? root.child("experts").as_int(0, kMaxExperts) : 0;
  m.ffn = m.experts > 0 ? 0 : number(root, "ffn");
  if (m.experts > 0) {
    m.experts_per_token = number(root, "experts_per_token", -1, kMaxExperts);
    m.expert_ffn = number(root, "expert_ffn");
    m.shared_experts =
        root.has("shared_experts") ? root.child("shared_experts").as_int(0, kMaxExperts) : 0;
    if (m.shared_experts > 0) m.shared_expert_ffn = number(root, "shared_expert_ffn");
  }
  m.vocab = number(root, "vocab");
  m.norm = choice<Norm>(root, "norm", {{"rmsnorm", Norm::rmsnorm}, {"layernorm", Norm::layernorm}},
                        Norm::rmsnorm);
  m.activation = choice<Activation>(root, "activation",
                                    {{"silu", Activation::silu},
                                     {"gelu", Activation::gelu},
                                     {"gelu_tanh", Activation::gelu_tanh},
                                     {"relu", Activation::relu}},
                                    Activation::silu);
  m.gated_mlp = choice<bool>(root, "mlp", {{"gated", true}, {"plain", false}}, true);
  m.position = choice<Position>(
      root, "position",
      {{"rotary", Position::rotary}, {"learned", Position::learned}, {"none", Position::none}},
      Position::rotary);
  m.max_positions = number(root, "max_positions", 0);
  m.position_offset = root.has("position_offset") ? root.child("position_offset").as_int(0, 16) : 0;
  m.bias = flag(root, "bias");
  m.tied_embeddings = flag(root, "tied_embeddings");
  m.post_norms = flag(root, "post_norms");
  m.embed_scale = flag(root, "embed_scale");
  m.attn_softcap = flag(root, "attn_softcap");
  m.final_softcap = flag(root, "final_softcap");
  std::string dtype = root.get_string("dtype", "fp16");
  auto parsed = ir::parse_dtype(dtype);
  if (!parsed) throw root.child("dtype").fail("unknown dtype " + in_quotes(dtype));
  m.dtype = *parsed;
  m.patch = number(root, "patch", 2);
  m.in_channels = number(root, "in_channels", 4);
  m.out_channels = number(root, "out_channels", 8);
  m.freq_dim = number(root, "freq_dim", 256);
  m.default_tokens = number(root, "tokens", 256);
  check_consistency(root, m);
  return m;
}

}  // namespace tessera::zoo
