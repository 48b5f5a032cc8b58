// Decoder-only LLMs (Llama 2, Gemma 2, OPT, GPT-3) from their zoo numbers.
#include "framework/frontend/zoo/builders.hpp"
#include "framework/frontend/zoo/layers.hpp"

namespace tessera::zoo {

namespace {

using ir::OpKind;

struct Decoder {
  const ModelSpec& m;
  ZooGraph& g;
  int64_t batch;
  int64_t seq;      // KV positions
  int64_t queries;  // new tokens: 1 (decode) or seq (prefill)
  bool decode;

  // Index of the query position rank s into a table of positions.
  std::string position(int64_t offset) const {
    if (decode) return std::to_string(seq - 1 + offset);
    return offset == 0 ? "s" : "s+" + std::to_string(offset);
  }
  Affine norm_affine() const { return m.bias ? Affine::scale_bias : Affine::scale; }
  std::string norm(const std::string& name, const std::string& x) const {
    return zoo::norm(g, name, x, m.norm, norm_affine(), batch, queries, m.hidden);
  }
  std::string add(const std::string& name, const std::string& a, const std::string& b) const {
    return pointwise(g, name, OpKind::elementwise, "add", {a + "[b,s,n]", b + "[b,s,n]"},
                     bsn(batch, queries, m.hidden));
  }
  std::string linear(const std::string& name, const std::string& x, const Ranks& in,
                     const Ranks& out) const {
    return zoo::linear(g, name, x, in, out, m.bias, tokens(batch, queries));
  }

  std::string embed() const;
  // q or k with rotary embedding applied; `heads` is h or g.
  std::string rope(const std::string& name, const std::string& x, const std::string& heads,
                   int64_t count) const;
  // Writes this step's K or V into the layer's cache; returns the cache tensor.
  std::string cache_write(const std::string& prefix, const std::string& which,
                          const std::string& x) const;
  std::string attention_block(const std::string& prefix, const std::string& x) const;
  std::string mlp_block(const std::string& prefix, const std::string& x) const;
  std::string lm_head(const std::string& x) const;
};

std::string Decoder::embed() const {
  std::string ids = g.tensor("tokens", {batch, queries}, ir::TensorRole::input, ir::DType::int32);
  std::string table = g.weight("embed.weight", {m.vocab, m.hidden});
  std::string x = g.activation("embed", {batch, queries, m.hidden});
  g.op(x, OpKind::gather, "copy", bsn(batch, queries, m.hidden), {ids + "[b,s]", table + "[$0,n]"},
       x + "[b,s,n]");
  if (m.embed_scale)
    x = pointwise(g, "embed_scale", OpKind::unary, "mul", {x + "[b,s,n]"},
                  bsn(batch, queries, m.hidden));
  if (m.position == Position::learned) {
    std::string pos = g.weight("pos_embed.weight", {m.max_positions + m.position_offset, m.hidden});
    x = pointwise(g, "pos_embed", OpKind::elementwise, "add",
                  {x + "[b,s,n]", pos + "[" + position(m.position_offset) + ",n]"},
                  bsn(batch, queries, m.hidden));
  }
  if (m.position == Position::rotary)  // cos and sin per position: a buffer, not a parameter
    g.tensor("rope.table", {seq, m.head_dim}, ir::TensorRole::constant, m.dtype);
  return x;
}

std::string Decoder::rope(const std::string& name, const std::string& x, const std::string& heads,
                          int64_t count) const {
  g.activation(name, {batch, queries, count, m.head_dim});
  std::string idx = "b,s," + heads + ",d";
  g.op(name, OpKind::elementwise, "rope",
       {{"b", batch}, {"s", queries}, {heads, count}, {"d", m.head_dim}},
       {x + "[" + idx + "]", "rope.table[" + position(0) + ",d]"}, name + "[" + idx + "]");
  return name;
}

std::string Decoder::cache_write(const std::string& prefix, const std::string& which,
                                 const std::string& x) const {
  std::string cache = g.tensor(prefix + which + "_cache", {batch, m.kv_heads, seq, m.head_dim},
                               ir::TensorRole::kv_cache, m.dtype);
  std::string slot = decode ? std::to_string(seq - 1) : "s";
  g.op(prefix + which + "_cache_write", OpKind::data_movement, "copy",
       {{"b", batch}, {"s", queries}, {"g", m.kv_heads}, {"d", m.head_dim}}, {x + "[b,s,g,d]"},
       cache + "[b,g," + slot + ",d]");
  return cache;
}

std::string Decoder::attention_block(const std::string& prefix, const std::string& x) const {
  std::string h = norm(prefix + "attn_norm", x);
  Ranks hidden{{"k", m.hidden}};
  std::string q = linear(prefix + "q_proj", h, hidden, {{"h", m.heads}, {"d", m.head_dim}});
  std::string k = linear(prefix + "k_proj", h, hidden, {{"g", m.kv_heads}, {"d", m.head_dim}});
  std::string v = linear(prefix + "v_proj", h, hidden, {{"g", m.kv_heads}, {"d", m.head_dim}});
  if (m.position == Position::rotary) {
    q = rope(prefix + "q_rope", q, "h", m.heads);
    k = rope(prefix + "k_rope", k, "g", m.kv_heads);
  }
  std::string k_cache = cache_write(prefix, "k", k);
  std::string v_cache = cache_write(prefix, "v", v);
  // Decode reads the whole cache from HBM; prefill attends to the keys it just computed.
  std::string keys = decode ? k_cache + "[b,g,t,d]" : k + "[b,t,g,d]";
  std::string values = decode ? v_cache + "[b,g,t,d]" : v + "[b,t,g,d]";
  AttentionShape shape{batch, queries, seq, m.heads, m.kv_heads, m.head_dim, m.attn_softcap};
  std::string o = attention(
      g, prefix, shape, [&](const std::string& head) { return q + "[b,s," + head + ",d]"; }, keys,
      values);
  std::string out =
      linear(prefix + "o_proj", o, {{"h", m.heads}, {"d", m.head_dim}}, {{"n", m.hidden}});
  if (m.post_norms) out = norm(prefix + "post_attn_norm", out);
  return add(prefix + "attn_residual", x, out);
}

std::string Decoder::mlp_block(const std::string& prefix, const std::string& x) const {
  std::string h = norm(prefix + "ffn_norm", x);
  Ranks hidden{{"k", m.hidden}};
  Ranks ffn{{"n", m.ffn}};
  std::string act;
  if (m.gated_mlp) {
    std::string gate = linear(prefix + "gate_proj", h, hidden, ffn);
    std::string up = linear(prefix + "up_proj", h, hidden, ffn);
    act = pointwise(g, prefix + "act", OpKind::elementwise, gated_fn(m.activation),
                    {gate + "[b,s,n]", up + "[b,s,n]"}, bsn(batch, queries, m.ffn));
  } else {
    std::string up = linear(prefix + "up_proj", h, hidden, ffn);
    act = pointwise(g, prefix + "act", OpKind::unary, activation_fn(m.activation), {up + "[b,s,n]"},
                    bsn(batch, queries, m.ffn));
  }
  std::string out = linear(prefix + "down_proj", act, {{"k", m.ffn}}, {{"n", m.hidden}});
  if (m.post_norms) out = norm(prefix + "post_ffn_norm", out);
  return add(prefix + "ffn_residual", x, out);
}

std::string Decoder::lm_head(const std::string& x) const {
  // Only the last position's logits are needed to pick the next token.
  Rows last{{{"b", batch}}, "b," + std::to_string(queries - 1), "b", {batch}};
  std::string logits;
  if (m.tied_embeddings) {
    logits = g.activation("lm_head", {batch, m.vocab});
    g.op(logits, OpKind::matmul, "mac", {{"b", batch}, {"k", m.hidden}, {"v", m.vocab}},
         {x + "[" + last.x_index + ",k]", "embed.weight[v,k]"}, logits + "[b,v]");
  } else {
    logits = zoo::linear(g, "lm_head", x, {{"k", m.hidden}}, {{"v", m.vocab}}, false, last);
  }
  if (m.final_softcap)
    logits = pointwise(g, "logit_softcap", OpKind::unary, "softcap", {logits + "[b,v]"},
                       {{"b", batch}, {"v", m.vocab}});
  return logits;
}

}  // namespace

Result<ir::Graph> build_decoder(const ModelSpec& m, const RunShape& shape) {
  Mode mode = shape.mode.value_or(Mode::decode);
  int64_t seq = shape.seq.value_or(2048);
  if (m.position == Position::learned && seq > m.max_positions)
    return input_error(m.name + ": --seq " + std::to_string(seq) + " exceeds the model's " +
                       std::to_string(m.max_positions) + " learned positions");
  bool decode = mode == Mode::decode;
  std::string name = m.name + (decode ? " decode" : " prefill") + " b" +
                     std::to_string(shape.batch) + " s" + std::to_string(seq);
  try {
    ZooGraph g(name, m.dtype, shape.weight_dtype);
    Decoder d{m, g, shape.batch, seq, decode ? 1 : seq, decode};
    std::string x = d.embed();
    std::vector<std::string> outputs;
    for (int64_t l = 0; l < m.layers; ++l) {
      std::string prefix = "layers." + std::to_string(l) + ".";
      x = d.mlp_block(prefix, d.attention_block(prefix, x));
      outputs.push_back(prefix + "k_cache");
      outputs.push_back(prefix + "v_cache");
    }
    outputs.insert(outputs.begin(), d.lm_head(d.norm("final_norm", x)));
    return g.finish(outputs);
  } catch (const Failure& f) {
    return f.error();
  }
}

}  // namespace tessera::zoo
