// Diffusion transformers (DiT, Peebles & Xie 2023): patchify, adaLN-Zero blocks conditioned on the
// timestep and class label, and the final adaLN layer and unpatchify. One denoising step.
#include <cmath>
#include <sstream>

#include "framework/frontend/zoo/builders.hpp"
#include "framework/frontend/zoo/layers.hpp"

namespace tessera::zoo {

namespace {

using ir::OpKind;

struct Dit {
  const ModelSpec& m;
  ZooGraph& g;
  int64_t batch;
  int64_t tokens;
  int64_t grid;  // tokens per side

  Rows per_sample() const { return Rows{{{"b", batch}}, "b", "b", {batch}}; }
  Ranks bn() const { return {{"b", batch}, {"n", m.hidden}}; }
  Ranks bsn() const { return zoo::bsn(batch, tokens, m.hidden); }
  Rows tokens_rows() const { return zoo::tokens(batch, tokens); }

  std::string patchify() const;
  std::string conditioning() const;
  // x * (1 + scale) + shift with the chunks `scale` and `shift` of the modulation tensor.
  std::string modulate(const std::string& name, const std::string& x, const std::string& mod,
                       int scale, int shift) const;
  std::string block(const std::string& prefix, const std::string& x, const std::string& c) const;
  std::string final_layer(const std::string& x, const std::string& c) const;
};

std::string Dit::patchify() const {
  int64_t side = grid * m.patch;
  std::string latent =
      g.tensor("latent", {batch, m.in_channels, side, side}, ir::TensorRole::input, m.dtype);
  std::string w = g.weight("patch_embed.weight", {m.hidden, m.in_channels, m.patch, m.patch});
  std::string bias = g.weight("patch_embed.bias", {m.hidden});
  std::string out = g.activation("patch_embed", {batch, grid, grid, m.hidden});
  std::string p = std::to_string(m.patch);
  g.op(out, OpKind::conv, "mac",
       {{"b", batch},
        {"y", grid},
        {"x", grid},
        {"n", m.hidden},
        {"c", m.in_channels},
        {"i", m.patch},
        {"j", m.patch}},
       {latent + "[b,c," + p + "*y+i," + p + "*x+j]", w + "[n,c,i,j]", bias + "[n]"},
       out + "[b,y,x,n]");
  g.view("patch_embed.tokens", {batch, tokens, m.hidden}, out);
  return pointwise(
      g, "pos_embed", OpKind::elementwise, "add",
      {"patch_embed.tokens[b,s,n]", g.weight("pos_embed.table", {tokens, m.hidden}) + "[s,n]"},
      bsn());
}

std::string Dit::conditioning() const {
  std::string freq = g.tensor("timestep_freq", {batch, m.freq_dim}, ir::TensorRole::input, m.dtype);
  std::string t =
      linear(g, "t_embed.fc1", freq, {{"k", m.freq_dim}}, {{"n", m.hidden}}, true, per_sample());
  t = pointwise(g, "t_embed.act", OpKind::unary, "silu", {t + "[b,n]"}, bn());
  t = linear(g, "t_embed.fc2", t, {{"k", m.hidden}}, {{"n", m.hidden}}, true, per_sample());
  std::string labels = g.tensor("labels", {batch}, ir::TensorRole::input, ir::DType::int32);
  std::string table = g.weight("y_embed.weight", {m.vocab, m.hidden});
  std::string y = g.activation("y_embed", {batch, m.hidden});
  g.op(y, OpKind::gather, "copy", bn(), {labels + "[b]", table + "[$0,n]"}, y + "[b,n]");
  std::string c =
      pointwise(g, "cond", OpKind::elementwise, "add", {t + "[b,n]", y + "[b,n]"}, bn());
  // Every adaLN starts with SiLU(c); computed once for all blocks.
  return pointwise(g, "cond_silu", OpKind::unary, "silu", {c + "[b,n]"}, bn());
}

std::string Dit::modulate(const std::string& name, const std::string& x, const std::string& mod,
                          int scale, int shift) const {
  return pointwise(g, name, OpKind::elementwise, "modulate",
                   {x + "[b,s,n]", mod + "[b," + std::to_string(scale) + ",n]",
                    mod + "[b," + std::to_string(shift) + ",n]"},
                   bsn());
}

std::string Dit::block(const std::string& prefix, const std::string& x,
                       const std::string& c) const {
  Ranks hidden{{"k", m.hidden}};
  Rows rows = tokens_rows();
  std::string mod =
      linear(g, prefix + "adaLN", c, hidden, {{"c", 6}, {"n", m.hidden}}, true, per_sample());
  auto gated_residual = [&](const std::string& name, const std::string& y, int gate) {
    return pointwise(g, name, OpKind::elementwise, "fma",
                     {mod + "[b," + std::to_string(gate) + ",n]", y + "[b,s,n]", x + "[b,s,n]"},
                     bsn());
  };
  std::string h =
      norm(g, prefix + "norm1", x, Norm::layernorm, Affine::none, batch, tokens, m.hidden);
  h = modulate(prefix + "modulate1", h, mod, 1, 0);
  std::string qkv = linear(g, prefix + "qkv", h, hidden,
                           {{"c", 3}, {"h", m.heads}, {"d", m.head_dim}}, true, rows);
  AttentionShape shape{batch, tokens, tokens, m.heads, m.kv_heads, m.head_dim, false};
  std::string o = attention(
      g, prefix, shape, [&](const std::string& head) { return qkv + "[b,s,0," + head + ",d]"; },
      qkv + "[b,t,1,g,d]", qkv + "[b,t,2,g,d]");
  o = linear(g, prefix + "proj", o, {{"h", m.heads}, {"d", m.head_dim}}, {{"n", m.hidden}}, true,
             rows);
  std::string x1 = gated_residual(prefix + "attn_residual", o, 2);
  h = norm(g, prefix + "norm2", x1, Norm::layernorm, Affine::none, batch, tokens, m.hidden);
  h = modulate(prefix + "modulate2", h, mod, 4, 3);
  h = linear(g, prefix + "fc1", h, hidden, {{"n", m.ffn}}, true, rows);
  h = pointwise(g, prefix + "act", OpKind::unary, activation_fn(m.activation), {h + "[b,s,n]"},
                zoo::bsn(batch, tokens, m.ffn));
  h = linear(g, prefix + "fc2", h, {{"k", m.ffn}}, {{"n", m.hidden}}, true, rows);
  return pointwise(g, prefix + "mlp_residual", OpKind::elementwise, "fma",
                   {mod + "[b,5,n]", h + "[b,s,n]", x1 + "[b,s,n]"}, bsn());
}

std::string Dit::final_layer(const std::string& x, const std::string& c) const {
  std::string mod = linear(g, "final.adaLN", c, {{"k", m.hidden}}, {{"c", 2}, {"n", m.hidden}},
                           true, per_sample());
  std::string h = norm(g, "final.norm", x, Norm::layernorm, Affine::none, batch, tokens, m.hidden);
  h = modulate("final.modulate", h, mod, 1, 0);
  std::string out =
      linear(g, "final.linear", h, {{"k", m.hidden}},
             {{"i", m.patch}, {"j", m.patch}, {"c", m.out_channels}}, true, tokens_rows());
  int64_t side = grid * m.patch;
  std::string image = g.activation("unpatchify", {batch, m.out_channels, side, side});
  std::string p = std::to_string(m.patch);
  g.op(image, OpKind::data_movement, "copy",
       {{"b", batch},
        {"c", m.out_channels},
        {"y", grid},
        {"i", m.patch},
        {"x", grid},
        {"j", m.patch}},
       {out + "[b," + std::to_string(grid) + "*y+x,i,j,c]"},
       image + "[b,c," + p + "*y+i," + p + "*x+j]");
  return image;
}

std::string shortest(double v) {
  std::ostringstream out;
  out << v;
  return out.str();
}

}  // namespace

Result<ir::Graph> build_dit(const ModelSpec& m, const RunShape& shape) {
  if (shape.mode == Mode::decode)
    return input_error(m.name +
                       " is a diffusion transformer: it has no decode mode; use --mode "
                       "prefill (one denoising step over --seq latent tokens)");
  int64_t tokens = shape.seq.value_or(m.default_tokens);
  auto grid = static_cast<int64_t>(std::llround(std::sqrt(static_cast<double>(tokens))));
  if (grid * grid != tokens)
    return input_error(
        m.name + ": --seq " + std::to_string(tokens) +
        " must be a square number of latent tokens (256 = 16x16 for 256x256 images)");
  std::string name =
      m.name + " step b" + std::to_string(shape.batch) + " s" + std::to_string(tokens);
  try {
    ZooGraph g(name, m.dtype, shape.weight_dtype, shape.precision ? &*shape.precision : nullptr,
               false);
    Dit d{m, g, shape.batch, tokens, grid};
    // Conditioning first, so every block's input comes from the op just before it.
    std::string c = d.conditioning();
    std::string x = d.patchify();
    for (int64_t l = 0; l < m.layers; ++l) x = d.block("blocks." + std::to_string(l) + ".", x, c);
    return g.finish({d.final_layer(x, c)});
  } catch (const Failure& f) {
    return f.error();
  }
}

Result<ir::Graph> build_model(const ModelSpec& model, const RunShape& shape, const Shard& shard) {
  if (shape.batch < 1 || shape.batch > kMaxBatch)
    return input_error(model.name + ": batch " + std::to_string(shape.batch) +
                       " is out of range [1, " + std::to_string(kMaxBatch) + "]");
  if (shape.seq && (*shape.seq < 1 || *shape.seq > kMaxSeq))
    return input_error(model.name + ": seq " + std::to_string(*shape.seq) +
                       " is out of range [1, " + std::to_string(kMaxSeq) + "]");
  if (!(shape.expert_skew >= 0 && shape.expert_skew <= kMaxExpertSkew))
    return input_error(model.name + ": expert skew " + shortest(shape.expert_skew) +
                       " is out of range [0, " + shortest(kMaxExpertSkew) + "]");
  if (auto s = check_shard(model, shard); !s) return s.error();
  ModelSpec typed = model;
  if (shape.dtype)
    typed.dtype = *shape.dtype;
  else if (shape.precision && shape.precision->activations)
    typed.dtype = *shape.precision->activations;
  return typed.family == Family::dit ? build_dit(typed, shape) : build_decoder(typed, shape, shard);
}

}  // namespace tessera::zoo
