#include "framework/frontend/zoo/layers.hpp"

namespace tessera::zoo {

namespace {

using ir::OpKind;

std::string join(const std::vector<std::string>& parts) {
  std::string out;
  for (const auto& p : parts)
    if (!p.empty()) out += (out.empty() ? "" : ",") + p;
  return out;
}

std::string rank_names(const Ranks& ranks) {
  std::vector<std::string> names;
  for (const auto& r : ranks) names.push_back(r.name);
  return join(names);
}

Ranks concat(Ranks a, const Ranks& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

}  // namespace

ir::DType ZooGraph::group_dtype(const std::string& group, ir::DType fallback) {
  if (group.empty() || precision_ == nullptr) return fallback;
  groups_.insert(group);
  auto it = precision_->tensors.find(group);
  return it == precision_->tensors.end() ? fallback : it->second;
}

std::string ZooGraph::tensor(const std::string& name, std::vector<int64_t> shape,
                             ir::TensorRole role, ir::DType dtype) {
  if (role == ir::TensorRole::kv_cache) dtype = group_dtype("kv_cache", dtype);
  builder_.add_tensor(ir::Tensor{name, std::move(shape), dtype, role, ""}).take();
  return name;
}

std::string ZooGraph::weight(const std::string& name, std::vector<int64_t> shape) {
  return tensor(name, std::move(shape), ir::TensorRole::weight,
                group_dtype(weight_group(name), weight_dtype_));
}

std::string ZooGraph::activation(const std::string& name, std::vector<int64_t> shape) {
  return tensor(name, std::move(shape), ir::TensorRole::activation, dtype_);
}

std::string ZooGraph::view(const std::string& name, std::vector<int64_t> shape,
                           const std::string& base) {
  const ir::Tensor* b = builder_.graph().find_tensor(base);
  builder_.add_tensor(ir::Tensor{name, std::move(shape), b->dtype, b->role, base}).take();
  return name;
}

void ZooGraph::op(const std::string& name, OpKind kind, const std::string& fn, const Ranks& ranks,
                  const std::vector<std::string>& inputs, const std::string& output) {
  ir::Op op{name, kind, {ranks, {}, ir::parse_operand(output).take(), fn}, "zoo"};
  if (precision_ != nullptr) {
    auto it = precision_->fidelity.find(op_group(name, decode_));
    if (it != precision_->fidelity.end()) op.math_fidelity = it->second;
  }
  for (const auto& in : inputs) op.einsum.inputs.push_back(ir::parse_operand(in).take());
  builder_.add_op(std::move(op)).take();
}

ir::Graph ZooGraph::finish(const std::vector<std::string>& outputs) {
  if (precision_ != nullptr)
    for (const auto& [group, dtype] : precision_->tensors) {
      if (groups_.count(group) != 0) continue;
      std::string has;
      for (const auto& g : groups_) has += (has.empty() ? "" : ", ") + g;
      throw Failure(input_error("precision: tensor group '" + group + "' matches no tensor of " +
                                builder_.graph().name() +
                                "; its groups are: " + (has.empty() ? "none" : has)));
    }
  for (const auto& o : outputs) builder_.mark_output(o).take();
  return builder_.finish();
}

Rows tokens(int64_t batch, int64_t seq) {
  return Rows{{{"b", batch}, {"s", seq}}, "b,s", "b,s", {batch, seq}};
}

std::string linear(ZooGraph& g, const std::string& name, const std::string& x, const Ranks& in,
                   const Ranks& out, bool bias, const Rows& rows) {
  std::vector<int64_t> w_shape;
  std::vector<int64_t> b_shape;
  for (const auto& r : in) w_shape.push_back(r.extent);
  for (const auto& r : out) b_shape.push_back(r.extent);
  w_shape.insert(w_shape.end(), b_shape.begin(), b_shape.end());
  std::vector<int64_t> y_shape = rows.y_shape;
  y_shape.insert(y_shape.end(), b_shape.begin(), b_shape.end());
  std::string feats = rank_names(out);
  std::vector<std::string> inputs{
      x + "[" + join({rows.x_index, rank_names(in)}) + "]",
      g.weight(name + ".weight", w_shape) + "[" + join({rank_names(in), feats}) + "]"};
  if (bias) inputs.push_back(g.weight(name + ".bias", b_shape) + "[" + feats + "]");
  g.activation(name, y_shape);
  g.op(name, OpKind::matmul, "mac", concat(concat(rows.ranks, in), out), inputs,
       name + "[" + join({rows.y_index, feats}) + "]");
  return name;
}

std::string norm(ZooGraph& g, const std::string& name, const std::string& x, Norm kind,
                 Affine affine, int64_t batch, int64_t seq, int64_t hidden) {
  std::vector<std::string> inputs{x + "[b,s,n]"};
  if (affine != Affine::none) inputs.push_back(g.weight(name + ".weight", {hidden}) + "[n]");
  if (affine == Affine::scale_bias) inputs.push_back(g.weight(name + ".bias", {hidden}) + "[n]");
  g.activation(name, {batch, seq, hidden});
  g.op(name, OpKind::normalization, kind == Norm::rmsnorm ? "rmsnorm" : "layernorm",
       {{"b", batch}, {"s", seq}, {"n", hidden}}, inputs, name + "[b,s,n]");
  return name;
}

std::string pointwise(ZooGraph& g, const std::string& name, OpKind kind, const std::string& fn,
                      const std::vector<std::string>& inputs, const Ranks& ranks) {
  std::vector<int64_t> shape;
  for (const auto& r : ranks) shape.push_back(r.extent);
  g.activation(name, shape);
  g.op(name, kind, fn, ranks, inputs, name + "[" + rank_names(ranks) + "]");
  return name;
}

Ranks bsn(int64_t batch, int64_t seq, int64_t features) {
  return {{"b", batch}, {"s", seq}, {"n", features}};
}

std::string attention(ZooGraph& g, const std::string& prefix, const AttentionShape& a,
                      const std::function<std::string(const std::string&)>& q, const std::string& k,
                      const std::string& v) {
  int64_t per_group = a.heads / a.kv_heads;
  // Grouped-query attention: head h = per_group * g + r reads KV group g.
  Ranks heads{{"g", a.kv_heads}};
  std::string head = "g";
  if (per_group > 1) {
    heads.push_back({"r", per_group});
    head = std::to_string(per_group) + "*g+r";
  }
  Ranks bh = concat({{"b", a.batch}}, heads);
  std::string scores = g.activation(prefix + "scores", {a.batch, a.heads, a.queries, a.keys});
  g.op(scores, OpKind::batched_matmul, "mac",
       concat(bh, {{"s", a.queries}, {"t", a.keys}, {"d", a.head_dim}}), {q(head), k},
       scores + "[b," + head + ",s,t]");
  Ranks bhst{{"b", a.batch}, {"h", a.heads}, {"s", a.queries}, {"t", a.keys}};
  if (a.softcap) {
    std::string capped = g.activation(prefix + "softcap", {a.batch, a.heads, a.queries, a.keys});
    g.op(capped, OpKind::unary, "softcap", bhst, {scores + "[b,h,s,t]"}, capped + "[b,h,s,t]");
    scores = capped;
  }
  std::string probs = g.activation(prefix + "softmax", {a.batch, a.heads, a.queries, a.keys});
  g.op(probs, OpKind::softmax, "softmax", bhst, {scores + "[b,h,s,t]"}, probs + "[b,h,s,t]");
  std::string out = g.activation(prefix + "attn_v", {a.batch, a.queries, a.heads, a.head_dim});
  g.op(out, OpKind::batched_matmul, "mac",
       concat(bh, {{"s", a.queries}, {"d", a.head_dim}, {"t", a.keys}}),
       {probs + "[b," + head + ",s,t]", v}, out + "[b,s," + head + ",d]");
  return out;
}

std::string activation_fn(Activation a) {
  switch (a) {
    case Activation::silu:
      return "silu";
    case Activation::gelu:
      return "gelu";
    case Activation::gelu_tanh:
      return "gelu_tanh";
    case Activation::relu:
      return "relu";
  }
  return "relu";
}

std::string gated_fn(Activation a) {
  return activation_fn(a) + "_mul";
}

}  // namespace tessera::zoo
