// Ops whose positions are chosen by the values of another tensor: GatherElements, GatherND,
// ScatterND, ScatterElements (KV-cache writes, MoE dispatch), TopK (MoE routing), OneHot, and the
// losses that pick the target class (NegativeLogLikelihoodLoss, SoftmaxCrossEntropyLoss). The
// chosen dimension is indexed indirectly ($i), so the bytes an op moves are the positions picked.
#include <algorithm>
#include <optional>

#include "framework/frontend/onnx/attributes.hpp"
#include "framework/frontend/onnx/converters.hpp"

namespace tessera::onnx_import {

namespace {

using ir::OpKind;
using Ranks = std::vector<ir::Rank>;

int64_t axis_of(const NodeContext& ctx, int64_t rank_count, int64_t fallback = 0) {
  int64_t axis = normalize_axis(attr_int(ctx.node(), "axis", fallback), rank_count);
  if (axis < 0) throw ctx.fail("'axis' is out of range");
  return axis;
}

// out[d] = data[d0, .., $1, .., dn] with the indices tensor read at d: output shape = indices'.
void gather_elements(NodeContext& ctx) {
  Dims data = ctx.shape(0), idx = ctx.shape(1);
  if (data.size() != idx.size()) throw ctx.fail("data and indices must have the same rank");
  int64_t axis = axis_of(ctx, static_cast<int64_t>(data.size()));
  Ranks ranks = ranks_for(ctx.out_shape(), "d");
  ir::Operand d{ctx.in(0), indices_of(ranks)};
  d.index[axis] = indirect(1);
  ir::Operand i{ctx.in(1), indices_of(ranks)};
  std::string out = ctx.out();
  ctx.op(OpKind::gather, "copy", ranks, {std::move(d), std::move(i)},
         ir::Operand{out, indices_of(ranks)});
}

// indices[b.., q.., k] picks data[b.., $, .., $ (k dims), rest..]: output = b + q + rest.
void gather_nd(NodeContext& ctx) {
  Dims data = ctx.shape(0), idx = ctx.shape(1), y = ctx.out_shape();
  auto batch = static_cast<size_t>(attr_int(ctx.node(), "batch_dims", 0));
  if (idx.empty() || batch >= idx.size() || batch + idx.back() > data.size())
    throw ctx.fail("indices do not fit the data's rank and batch_dims");
  auto k = static_cast<size_t>(idx.back());
  Ranks ranks = ranks_for(y, "d");
  Ranks all = ranks;
  all.push_back({"t", static_cast<int64_t>(k)});
  ir::Operand d{ctx.in(0), {}};
  for (size_t a = 0; a < batch; ++a) d.index.push_back(rank(ranks[a].name));
  for (size_t a = 0; a < k; ++a) d.index.push_back(indirect(1));
  size_t q = idx.size() - 1;  // output dims before the data's trailing ones
  for (size_t a = batch + k; a < data.size(); ++a)
    d.index.push_back(rank(ranks[q + a - batch - k].name));
  ir::Operand i{ctx.in(1), {}};
  for (size_t a = 0; a < q; ++a) i.index.push_back(rank(ranks[a].name));
  i.index.push_back(rank("t"));
  std::string out = ctx.out();
  ctx.op(OpKind::gather, "copy", all, {std::move(d), std::move(i)},
         ir::Operand{out, indices_of(ranks)});
}

// A scatter over the output (= data's shape): data is copied, updates land where the indices say.
// The updates' scattered dimensions are indexed by the index operand ($2); it costs no FLOPs.
void scatter_op(NodeContext& ctx, Ranks ranks, ir::Operand updates, ir::Operand indices) {
  Ranks out_ranks(ranks.begin(), ranks.begin() + static_cast<long>(ctx.out_shape().size()));
  std::string data = ctx.in(0), out = ctx.out();
  ctx.op(OpKind::data_movement, "scatter", std::move(ranks),
         {ir::Operand{data, indices_of(out_ranks)}, std::move(updates), std::move(indices)},
         ir::Operand{out, indices_of(out_ranks)});
}

// ScatterElements (and opset-9 Scatter): updates[d] goes to out[d with axis = indices[d]].
void scatter_elements(NodeContext& ctx) {
  Dims data = ctx.shape(0), idx = ctx.shape(1);
  if (data.size() != idx.size() || ctx.shape(2) != idx)
    throw ctx.fail("data, indices and updates must have the same rank (updates: indices' shape)");
  int64_t axis = axis_of(ctx, static_cast<int64_t>(data.size()));
  Ranks ranks = ranks_for(data, "d");
  ir::Operand u{ctx.in(2), indices_of(ranks)};
  u.index[axis] = indirect(2);
  ir::Operand i{ctx.in(1), indices_of(ranks)};
  scatter_op(ctx, ranks, std::move(u), std::move(i));
}

// Constant ScatterND indices [q.., k] as affine functions of the update's q coordinates: per
// indexed dimension, base + Σ coeff_i * u_i, checked at every index tuple; nullopt otherwise.
std::optional<std::vector<ir::IndexExpr>> affine_positions(const ConstTensor& idx, const Dims& q) {
  auto k = static_cast<size_t>(idx.dims.back());
  int64_t tuples = idx.size() / std::max<int64_t>(static_cast<int64_t>(k), 1);
  std::vector<int64_t> stride(q.size(), 1);  // tuple strides of the q coordinates
  for (size_t i = q.size(); i-- > 1;) stride[i - 1] = stride[i] * q[i];
  std::vector<ir::IndexExpr> out;
  for (size_t j = 0; j < k; ++j) {
    int64_t base = idx.ints[j];
    std::vector<ir::AffineTerm> terms;
    for (size_t i = 0; i < q.size(); ++i)
      if (q[i] > 1) terms.push_back({idx.ints[stride[i] * k + j] - base, "u" + std::to_string(i)});
    for (int64_t t = 0; t < tuples; ++t) {
      int64_t expect = base;
      for (size_t i = 0; i < q.size(); ++i) {
        int64_t coord = (t / stride[i]) % q[i];
        if (q[i] > 1) expect += coord * (idx.ints[stride[i] * k + j] - base);
      }
      if (idx.ints[t * k + j] != expect) return std::nullopt;
    }
    out.push_back(affine(terms, base));
  }
  return out;
}

// A decode step's cache update by ScatterND at known positions: the updates are written into the
// cache in HBM where the indices say, in place; the rest of the cache is not touched.
bool write_kv_cache_in_place(NodeContext& ctx, const Dims& data, const Dims& upd, size_t q) {
  const ConstTensor* idx = ctx.value(1);
  if (idx == nullptr || idx->is_float() || idx->dims.empty()) return false;
  auto k = static_cast<size_t>(idx->dims.back());
  for (int64_t e = 0; e < idx->size(); ++e)  // negative or out-of-range positions: not in place
    if (idx->ints[e] < 0 || idx->ints[e] >= data[static_cast<size_t>(e) % k]) return false;
  auto positions = affine_positions(*idx, Dims(upd.begin(), upd.begin() + static_cast<long>(q)));
  if (!positions) return false;
  Ranks ranks = ranks_for(Dims(upd.begin(), upd.begin() + static_cast<long>(q)), "u");
  std::vector<ir::IndexExpr> out = *positions;
  for (size_t a = q; a < upd.size(); ++a) {
    ranks.push_back({"d" + std::to_string(out.size()), upd[a]});
    out.push_back(rank(ranks.back().name));
  }
  if (out.size() != data.size()) return false;
  std::string updates = ctx.in(2), cache = ctx.cache_out();
  ctx.op(OpKind::data_movement, "copy", ranks, {ir::Operand{updates, indices_of(ranks)}},
         ir::Operand{cache, out});
  return true;
}

// ScatterND: updates[q.., rest..] goes to out[indices[q..] (k dims), rest..].
void scatter_nd(NodeContext& ctx) {
  Dims data = ctx.shape(0), idx = ctx.shape(1), upd = ctx.shape(2);
  if (idx.empty() || static_cast<size_t>(idx.back()) > data.size())
    throw ctx.fail("the indices' last dimension must be at most the data's rank");
  auto k = static_cast<size_t>(idx.back());
  size_t q = idx.size() - 1;
  if (upd.size() != q + data.size() - k) throw ctx.fail("updates do not fit indices and data");
  if (ctx.kv_cache() && write_kv_cache_in_place(ctx, data, upd, q)) return;
  Ranks ranks = ranks_for(data, "d");
  ir::Operand u{ctx.in(2), {}};
  for (size_t a = 0; a < q; ++a) u.index.push_back(indirect(2));
  for (size_t a = k; a < data.size(); ++a) u.index.push_back(rank(ranks[a].name));
  ir::Operand i{ctx.in(1), {}};
  for (size_t a = 0; a < q; ++a)
    i.index.push_back(a < ranks.size() ? rank(ranks[a].name) : constant(0));
  ranks.push_back({"t", static_cast<int64_t>(k)});
  i.index.push_back(rank("t"));
  scatter_op(ctx, ranks, std::move(u), std::move(i));
}

// TopK: every element of the axis is compared with the k kept ones (`topk`, one FLOP per pair);
// the indices are written with the values.
void topk(NodeContext& ctx) {
  Dims x = ctx.shape(0), y = ctx.out_shape();
  int64_t axis = axis_of(ctx, static_cast<int64_t>(x.size()), -1);
  Ranks ranks = ranks_for(x, "d");
  ranks.push_back({"j", y[axis]});
  std::vector<ir::IndexExpr> yi = indices_of(ranks_for(x, "d"));
  yi[axis] = rank("j");
  std::string in = ctx.in(0), out = ctx.out();
  ctx.op(OpKind::reduction, "topk", ranks, {ir::Operand{in, indices_of(ranks_for(x, "d"))}},
         ir::Operand{out, yi});
  if (ctx.node().output_size() > 1 && !ctx.node().output(1).empty()) ctx.companion(1, 0);
}

// OneHot: out[.., c, ..] = (indices[..] == c) ? on : off, a comparison per output element.
void one_hot(NodeContext& ctx) {
  Dims idx = ctx.shape(0), y = ctx.out_shape();
  int64_t axis = normalize_axis(attr_int(ctx.node(), "axis", -1), static_cast<int64_t>(y.size()));
  if (axis < 0 || y.size() != idx.size() + 1) throw ctx.fail("'axis' is out of range");
  Ranks ranks = ranks_for(y, "d");
  ir::Operand i{ctx.in(0), {}};
  for (size_t d = 0; d < y.size(); ++d)
    if (static_cast<int64_t>(d) != axis) i.index.push_back(rank(ranks[d].name));
  std::string values = ctx.in(2), out = ctx.out();
  ctx.op(OpKind::elementwise, "compare", ranks, {std::move(i), ir::Operand{values, {constant(0)}}},
         ir::Operand{out, indices_of(ranks)});
}

// The negative log-likelihood of the target classes: per element -input[n, $target, d..]
// (times weight[$target]), then the mean or sum unless reduction is 'none'.
void nll(NodeContext& ctx, const std::string& input, const Dims& shape, int target, int weight) {
  Dims t = ctx.shape(target);
  if (shape.size() < 2 || t.size() != shape.size() - 1)
    throw ctx.fail("the target must have the input's shape without the class dimension");
  Ranks ranks = ranks_for(t, "d");
  ir::Operand x{input, {rank("d0"), indirect(1)}};
  for (size_t d = 1; d < t.size(); ++d) x.index.push_back(rank(ranks[d].name));
  std::vector<ir::Operand> in{std::move(x), ir::Operand{ctx.in(target), indices_of(ranks)}};
  if (ctx.has_input(weight)) in.push_back(ir::Operand{ctx.in(weight), {indirect(1)}});
  std::string reduction = attr_string(ctx.node(), "reduction", "mean");
  bool reduce = reduction != "none";
  std::string picked = reduce ? ctx.temp("picked", t, ctx.dtype(0)) : ctx.out();
  ctx.op(OpKind::gather, ctx.has_input(weight) ? "mul" : "neg", ranks, std::move(in),
         ir::Operand{picked, indices_of(ranks)}, "pick");
  if (!reduce) return;
  std::string out = ctx.out();
  ctx.op(OpKind::reduction, reduction == "sum" ? "sum" : "mean", ranks,
         {ir::Operand{picked, indices_of(ranks)}}, ir::Operand{out, {}}, reduction);
}

void nll_loss(NodeContext& ctx) {
  nll(ctx, ctx.in(0), ctx.shape(0), 1, 2);
}

// SoftmaxCrossEntropyLoss: log-softmax over the classes (output 1 when asked for), then NLL.
void softmax_cross_entropy(NodeContext& ctx) {
  Dims x = ctx.shape(0);
  Ranks ranks = ranks_for(x, "d");
  bool keep = ctx.node().output_size() > 1 && !ctx.node().output(1).empty();
  std::string log_prob = keep ? ctx.out(1) : ctx.temp("log_prob", x, ctx.dtype(0));
  std::string in = ctx.in(0);
  ctx.op(OpKind::softmax, "softmax", ranks, {ir::Operand{in, indices_of(ranks)}},
         ir::Operand{log_prob, indices_of(ranks)}, "log_softmax");
  nll(ctx, log_prob, x, 1, 2);
}

}  // namespace

void add_indexing_converters(ConverterTable& t) {
  t["GatherElements"] = gather_elements;
  t["GatherND"] = gather_nd;
  t["ScatterElements"] = scatter_elements;
  t["Scatter"] = scatter_elements;
  t["ScatterND"] = scatter_nd;
  t["TopK"] = topk;
  t["OneHot"] = one_hot;
  t["NegativeLogLikelihoodLoss"] = nll_loss;
  t["SoftmaxCrossEntropyLoss"] = softmax_cross_entropy;
}

}  // namespace tessera::onnx_import
