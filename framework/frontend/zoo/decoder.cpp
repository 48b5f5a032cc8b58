// Decoder-only LLMs (Llama 2, Gemma 2, OPT, GPT-3, Mixtral, Qwen-MoE) from their zoo numbers,
// whole or one chip's share of them (Shard).
#include <algorithm>
#include <cmath>

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
  // This chip's share of the model (Shard): attention heads, KV heads, FFN widths and vocabulary
  // rows; the whole model when tp is 1.
  int64_t heads;
  int64_t kv_heads;
  int64_t ffn;
  int64_t expert_ffn;
  int64_t shared_ffn;  // all shared experts as one MLP
  int64_t vocab;
  ExpertLoad load;

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
  void rope_table() const;
  // q or k with rotary embedding applied; `rank` is h or g.
  std::string rope(const std::string& name, const std::string& x, const std::string& rank,
                   int64_t count) const;
  // Writes this step's K or V into the layer's cache; returns the cache tensor.
  std::string cache_write(const std::string& prefix, const std::string& which,
                          const std::string& x) const;
  std::string attention_block(const std::string& prefix, const std::string& x) const;
  std::string mlp_block(const std::string& prefix, const std::string& x) const;
  // A gated or plain MLP of width `width` over the normalised `h`; returns the down projection.
  std::string mlp(const std::string& prefix, const std::string& h, int64_t width) const;
  std::string moe(const std::string& prefix, const std::string& h) const;
  std::string lm_head(const std::string& x) const;
};

std::string Decoder::embed() const {
  std::string ids = g.tensor("tokens", {batch, queries}, ir::TensorRole::input, ir::DType::int32);
  std::string table = g.weight("embed.weight", {vocab, m.hidden});
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
  rope_table();
  return x;
}

void Decoder::rope_table() const {
  if (m.position == Position::rotary)  // cos and sin per position: a buffer, not a parameter
    g.tensor("rope.table", {seq, m.head_dim}, ir::TensorRole::constant, m.dtype);
}

std::string Decoder::rope(const std::string& name, const std::string& x, const std::string& rank,
                          int64_t count) const {
  g.activation(name, {batch, queries, count, m.head_dim});
  std::string idx = "b,s," + rank + ",d";
  g.op(name, OpKind::elementwise, "rope",
       {{"b", batch}, {"s", queries}, {rank, count}, {"d", m.head_dim}},
       {x + "[" + idx + "]", "rope.table[" + position(0) + ",d]"}, name + "[" + idx + "]");
  return name;
}

std::string Decoder::cache_write(const std::string& prefix, const std::string& which,
                                 const std::string& x) const {
  std::string cache = g.tensor(prefix + which + "_cache", {batch, kv_heads, seq, m.head_dim},
                               ir::TensorRole::kv_cache, m.dtype);
  std::string slot = decode ? std::to_string(seq - 1) : "s";
  g.op(prefix + which + "_cache_write", OpKind::data_movement, "copy",
       {{"b", batch}, {"s", queries}, {"g", kv_heads}, {"d", m.head_dim}}, {x + "[b,s,g,d]"},
       cache + "[b,g," + slot + ",d]");
  return cache;
}

std::string Decoder::attention_block(const std::string& prefix, const std::string& x) const {
  std::string h = norm(prefix + "attn_norm", x);
  Ranks hidden{{"k", m.hidden}};
  std::string q = linear(prefix + "q_proj", h, hidden, {{"h", heads}, {"d", m.head_dim}});
  std::string k = linear(prefix + "k_proj", h, hidden, {{"g", kv_heads}, {"d", m.head_dim}});
  std::string v = linear(prefix + "v_proj", h, hidden, {{"g", kv_heads}, {"d", m.head_dim}});
  if (m.position == Position::rotary) {
    q = rope(prefix + "q_rope", q, "h", heads);
    k = rope(prefix + "k_rope", k, "g", kv_heads);
  }
  std::string k_cache = cache_write(prefix, "k", k);
  std::string v_cache = cache_write(prefix, "v", v);
  // Decode reads the whole cache from HBM; prefill attends to the keys it just computed.
  std::string keys = decode ? k_cache + "[b,g,t,d]" : k + "[b,t,g,d]";
  std::string values = decode ? v_cache + "[b,g,t,d]" : v + "[b,t,g,d]";
  AttentionShape shape{batch, queries, seq, heads, kv_heads, m.head_dim, m.attn_softcap};
  std::string o = attention(
      g, prefix, shape, [&](const std::string& head) { return q + "[b,s," + head + ",d]"; }, keys,
      values);
  std::string out =
      linear(prefix + "o_proj", o, {{"h", heads}, {"d", m.head_dim}}, {{"n", m.hidden}});
  if (m.post_norms) out = norm(prefix + "post_attn_norm", out);
  return add(prefix + "attn_residual", x, out);
}

std::string Decoder::mlp(const std::string& prefix, const std::string& h, int64_t width) const {
  Ranks hidden{{"k", m.hidden}};
  Ranks ffn_ranks{{"n", width}};
  std::string act;
  if (m.gated_mlp) {
    std::string gate = linear(prefix + "gate_proj", h, hidden, ffn_ranks);
    std::string up = linear(prefix + "up_proj", h, hidden, ffn_ranks);
    act = pointwise(g, prefix + "act", OpKind::elementwise, gated_fn(m.activation),
                    {gate + "[b,s,n]", up + "[b,s,n]"}, bsn(batch, queries, width));
  } else {
    std::string up = linear(prefix + "up_proj", h, hidden, ffn_ranks);
    act = pointwise(g, prefix + "act", OpKind::unary, activation_fn(m.activation), {up + "[b,s,n]"},
                    bsn(batch, queries, width));
  }
  return linear(prefix + "down_proj", act, {{"k", width}}, {{"n", m.hidden}});
}

// The router scores every expert for every token and keeps the top k; this chip's expected active
// experts (ExpertLoad) each run an MLP over the rows dispatched to them, written into one
// [experts, rows, hidden] tensor; the combine gathers each token's k outputs, weighs them by the
// router's scores and adds the shared experts' output. Dispatch and combine between chips (the
// all-to-alls of expert parallelism) are the caller's.
std::string Decoder::moe(const std::string& prefix, const std::string& h) const {
  const int64_t k = m.experts_per_token;
  const int64_t tokens = batch * queries;
  std::string router = zoo::linear(g, prefix + "router", h, {{"k", m.hidden}}, {{"e", m.experts}},
                                   false, zoo::tokens(batch, queries));
  // The indices of each token's k experts (the values travel with them, as ONNX's TopK writes).
  std::string topk = g.tensor(prefix + "router_topk", {batch, queries, k},
                              ir::TensorRole::activation, ir::DType::int32);
  g.op(topk, OpKind::reduction, "topk", {{"b", batch}, {"s", queries}, {"e", m.experts}, {"j", k}},
       {router + "[b,s,e]"}, topk + "[b,s,j]");
  std::string picks = g.view(prefix + "router_topk.flat", {tokens * k}, topk);
  std::string flat = g.view(prefix + "ffn_norm.tokens", {tokens, m.hidden}, h);
  const int64_t rows = load.rows;
  Rows expert_rows{{{"r", rows}}, "r", "r", {rows}};
  Ranks hidden{{"k", m.hidden}};
  Ranks width{{"n", expert_ffn}};
  std::string outs = g.activation(prefix + "experts_out", {load.experts, rows, m.hidden});
  for (int64_t e = 0; e < load.experts; ++e) {
    std::string p = prefix + "experts." + std::to_string(e) + ".";
    std::string in = g.activation(p + "dispatch", {rows, m.hidden});
    g.op(in, OpKind::gather, "copy", {{"r", rows}, {"n", m.hidden}},
         {picks + "[r]", flat + "[$0,n]"}, in + "[r,n]");
    Ranks act_ranks{{"r", rows}, {"n", expert_ffn}};
    std::string act;
    if (m.gated_mlp) {
      std::string gate = zoo::linear(g, p + "gate_proj", in, hidden, width, m.bias, expert_rows);
      std::string up = zoo::linear(g, p + "up_proj", in, hidden, width, m.bias, expert_rows);
      act = pointwise(g, p + "act", OpKind::elementwise, gated_fn(m.activation),
                      {gate + "[r,n]", up + "[r,n]"}, act_ranks);
    } else {
      std::string up = zoo::linear(g, p + "up_proj", in, hidden, width, m.bias, expert_rows);
      act = pointwise(g, p + "act", OpKind::unary, activation_fn(m.activation), {up + "[r,n]"},
                      act_ranks);
    }
    // The down projection writes this expert's slice of experts_out.
    std::vector<std::string> down{
        act + "[r,k]", g.weight(p + "down_proj.weight", {expert_ffn, m.hidden}) + "[k,n]"};
    if (m.bias) down.push_back(g.weight(p + "down_proj.bias", {m.hidden}) + "[n]");
    g.op(p + "down_proj", OpKind::matmul, "mac", {{"r", rows}, {"k", expert_ffn}, {"n", m.hidden}},
         down, outs + "[" + std::to_string(e) + ",r,n]");
  }
  std::string rows_out = g.view(prefix + "experts_out.rows", {load.experts * rows, m.hidden}, outs);
  std::vector<std::string> inputs{topk + "[b,s,j]", rows_out + "[$0,n]", router + "[b,s,$0]"};
  if (m.shared_experts > 0) inputs.push_back(mlp(prefix + "shared.", h, shared_ffn) + "[b,s,n]");
  std::string out = g.activation(prefix + "moe", {batch, queries, m.hidden});
  g.op(out, OpKind::gather, "mac", {{"b", batch}, {"s", queries}, {"j", k}, {"n", m.hidden}},
       inputs, out + "[b,s,n]");
  return out;
}

std::string Decoder::mlp_block(const std::string& prefix, const std::string& x) const {
  std::string h = norm(prefix + "ffn_norm", x);
  std::string out = m.experts > 0 ? moe(prefix, h) : mlp(prefix, h, ffn);
  if (m.post_norms) out = norm(prefix + "post_ffn_norm", out);
  return add(prefix + "ffn_residual", x, out);
}

std::string Decoder::lm_head(const std::string& x) const {
  // Only the last position's logits are needed to pick the next token.
  Rows last{{{"b", batch}}, "b," + std::to_string(queries - 1), "b", {batch}};
  std::string logits;
  if (m.tied_embeddings) {
    logits = g.activation("lm_head", {batch, vocab});
    g.op(logits, OpKind::matmul, "mac", {{"b", batch}, {"k", m.hidden}, {"v", vocab}},
         {x + "[" + last.x_index + ",k]", "embed.weight[v,k]"}, logits + "[b,v]");
  } else {
    logits = zoo::linear(g, "lm_head", x, {{"k", m.hidden}}, {{"v", vocab}}, false, last);
  }
  if (m.final_softcap)
    logits = pointwise(g, "logit_softcap", OpKind::unary, "softcap", {logits + "[b,v]"},
                       {{"b", batch}, {"v", vocab}});
  return logits;
}

std::string join_numbers(const std::vector<int64_t>& values) {
  std::string out;
  for (int64_t v : values) out += (out.empty() ? "" : ", ") + std::to_string(v);
  return out;
}

// Every tp that splits the model evenly (what check_shard accepts), for its messages.
std::vector<int64_t> valid_tps(const ModelSpec& m) {
  std::vector<int64_t> out;
  for (int64_t tp = 1; tp <= m.heads; ++tp) {
    bool kv = m.kv_heads % tp == 0 || tp % m.kv_heads == 0;
    bool widths = m.ffn % tp == 0 && m.expert_ffn % tp == 0 && m.shared_expert_ffn % tp == 0;
    if (m.heads % tp == 0 && kv && widths) out.push_back(tp);
  }
  return out;
}

int64_t stage_end(const ModelSpec& m, const Shard& shard) {
  return shard.last_layer.value_or(m.layers);
}

bool embeds(const Shard& shard) {
  return shard.embedding.value_or(shard.first_layer == 0);
}

bool ends_in_head(const ModelSpec& m, const Shard& shard) {
  return shard.head.value_or(stage_end(m, shard) == m.layers);
}

}  // namespace

Status check_shard(const ModelSpec& m, const Shard& shard) {
  if (m.family == Family::dit) {
    if (shard == Shard{}) return ok_status();
    return input_error(m.name +
                       ": a DiT runs whole on each chip (data parallel); tp, ep and pipeline "
                       "stages apply to decoders");
  }
  std::string tp = "tp=" + std::to_string(shard.tp);
  std::string tps = "; tp may be one of " + join_numbers(valid_tps(m));
  if (shard.tp < 1 || m.heads % shard.tp != 0)
    return input_error(tp + " does not divide " + m.name + "'s " + std::to_string(m.heads) +
                       " attention heads" + tps);
  if (m.kv_heads % shard.tp != 0 && shard.tp % m.kv_heads != 0)
    return input_error(tp + " neither divides nor is a multiple of " + m.name + "'s " +
                       std::to_string(m.kv_heads) + " KV heads" + tps);
  for (auto [width, what] : {std::pair{m.ffn, "FFN width"}, std::pair{m.expert_ffn, "expert FFN"},
                             std::pair{m.shared_expert_ffn, "shared-expert FFN"}})
    if (width % shard.tp != 0)
      return input_error(tp + " does not divide " + m.name + "'s " + what + " " +
                         std::to_string(width) + tps);
  if (m.experts == 0 && shard.ep != 1)
    return input_error("ep=" + std::to_string(shard.ep) + " for " + m.name +
                       ", which has no experts");
  if (shard.ep < 1 || (m.experts > 0 && m.experts % shard.ep != 0)) {
    std::vector<int64_t> eps;
    for (int64_t ep = 1; ep <= m.experts; ++ep)
      if (m.experts % ep == 0) eps.push_back(ep);
    return input_error("ep=" + std::to_string(shard.ep) + " does not divide " + m.name + "'s " +
                       std::to_string(m.experts) + " experts; ep may be one of " +
                       join_numbers(eps));
  }
  int64_t first = shard.first_layer, last = stage_end(m, shard);
  std::string range = "layers " + std::to_string(first) + "-" + std::to_string(last);
  if (first < 0 || last > m.layers)
    return input_error(range + " are outside " + m.name + "'s " + std::to_string(m.layers) +
                       " layers");
  // An empty stage at either end still holds something: the embedding or the LM head, as
  // PopTransformer gives IPU 0 the embeddings alone.
  if (first > last || (first == last && !embeds(shard) && !ends_in_head(m, shard)))
    return input_error(range + " hold no layer of " + m.name +
                       ": a stage is layers [first, last) with first < last, or empty at either "
                       "end (the embedding alone, or the LM head alone)");
  return ok_status();
}

// Expected values over the routing, never a sample: T tokens each pick k experts, expert i with
// probability k·w_i (w uniform, or Zipf under expert_skew), so it gets t_i = T·k·w_i tokens and is
// active with probability 1 - (1 - k·w_i)^T. The chip (round-robin placement: expert i on chip
// i mod ep; chip 0 is built) runs ceil(Σ its activation probabilities) experts, each over
// ceil(Σ its t_i / that count) rows: the rounding up keeps the busiest chip's work whole. With
// ep > 1 the experts are spread over ep chips that each attend for their own `batch` users (the
// replicas of a data-parallel strategy), so T counts the tokens of all ep of them.
ExpertLoad expert_load(const ModelSpec& m, const RunShape& shape, const Shard& shard) {
  ExpertLoad load;
  if (m.experts == 0 || shard.ep < 1) return load;
  bool decode = shape.mode.value_or(Mode::decode) == Mode::decode;
  double tokens = static_cast<double>(shape.batch) *
                  static_cast<double>(decode ? 1 : shape.seq.value_or(2048)) *
                  static_cast<double>(shard.ep);
  std::vector<double> w(static_cast<size_t>(m.experts));
  double total = 0;
  for (size_t i = 0; i < w.size(); ++i)
    total += w[i] = std::pow(static_cast<double>(i + 1), -shape.expert_skew);
  const auto k = static_cast<double>(m.experts_per_token);
  double active = 0;
  int64_t held = 0;
  for (size_t i = 0; i < w.size(); i += static_cast<size_t>(shard.ep)) {
    double p = std::min(1.0, k * w[i] / total);
    load.tokens += tokens * k * w[i] / total;
    active += 1 - std::pow(1 - p, tokens);
    ++held;
  }
  // The tolerance keeps a sum that is whole in exact arithmetic (8 × 0.25) from rounding up a
  // further expert.
  load.experts = std::clamp<int64_t>(static_cast<int64_t>(std::ceil(active - 1e-9)), 1, held);
  load.rows = std::max<int64_t>(
      1, static_cast<int64_t>(std::ceil(load.tokens / static_cast<double>(load.experts) - 1e-9)));
  return load;
}

Result<ir::Graph> build_decoder(const ModelSpec& m, const RunShape& shape, const Shard& shard) {
  if (auto s = check_shard(m, shard); !s) return s.error();
  Mode mode = shape.mode.value_or(Mode::decode);
  int64_t seq = shape.seq.value_or(2048);
  if (m.position == Position::learned && seq > m.max_positions)
    return input_error(m.name + ": --seq " + std::to_string(seq) + " exceeds the model's " +
                       std::to_string(m.max_positions) + " learned positions");
  bool decode = mode == Mode::decode;
  const int64_t first = shard.first_layer, last = stage_end(m, shard);
  std::string name = m.name + (decode ? " decode" : " prefill") + " b" +
                     std::to_string(shape.batch) + " s" + std::to_string(seq);
  if (shard.tp > 1) name += " tp" + std::to_string(shard.tp);
  if (shard.ep > 1) name += " ep" + std::to_string(shard.ep);
  if (first != 0 || last != m.layers || !embeds(shard) || !ends_in_head(m, shard))
    name += " layers " + std::to_string(first) + "-" + std::to_string(last);
  try {
    ZooGraph g(name, m.dtype, shape.weight_dtype, shape.precision ? &*shape.precision : nullptr,
               decode);
    const int64_t tp = shard.tp;
    // Megatron pads the vocabulary to a multiple of tp; so does the shard, by rounding up.
    Decoder d{m,
              g,
              shape.batch,
              seq,
              decode ? 1 : seq,
              decode,
              m.heads / tp,
              std::max<int64_t>(1, m.kv_heads / tp),
              m.ffn / tp,
              m.expert_ffn / tp,
              m.shared_experts * m.shared_expert_ffn / tp,
              (m.vocab + tp - 1) / tp,
              expert_load(m, shape, shard)};
    std::string x;
    if (embeds(shard)) {
      x = d.embed();
    } else {  // a later pipeline stage: the previous stage's hidden state
      x = g.tensor("hidden_in", {shape.batch, d.queries, m.hidden}, ir::TensorRole::input, m.dtype);
      if (first < last) d.rope_table();  // a head alone has no attention
    }
    std::vector<std::string> outputs;
    for (int64_t l = first; l < last; ++l) {
      std::string prefix = "layers." + std::to_string(l) + ".";
      x = d.mlp_block(prefix, d.attention_block(prefix, x));
      outputs.push_back(prefix + "k_cache");
      outputs.push_back(prefix + "v_cache");
    }
    // Only the last stage ends in logits; the others hand their hidden state on.
    // A tied head on a stage without the embedding keeps its own copy of the table, as
    // Megatron's last pipeline stage does.
    if (ends_in_head(m, shard) && m.tied_embeddings && !embeds(shard))
      g.weight("embed.weight", {d.vocab, m.hidden});
    outputs.insert(outputs.begin(),
                   ends_in_head(m, shard) ? d.lm_head(d.norm("final_norm", x)) : x);
    return g.finish(outputs);
  } catch (const Failure& f) {
    return f.error();
  }
}

}  // namespace tessera::zoo
