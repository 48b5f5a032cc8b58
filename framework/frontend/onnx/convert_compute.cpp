// Contractions (MatMul, Gemm, Conv), sliding windows (pooling), reductions, softmax and
// normalisations.
#include "framework/frontend/onnx/attributes.hpp"
#include "framework/frontend/onnx/converters.hpp"

namespace tessera::onnx_import {

namespace {

using ir::OpKind;
using Ranks = std::vector<ir::Rank>;

ir::Operand operand(const std::string& tensor, std::vector<ir::IndexExpr> index) {
  return ir::Operand{tensor, std::move(index)};
}

// Batch dims of a MatMul operand (all but the last two) broadcast against the output's.
std::vector<ir::IndexExpr> batch_index(const Dims& shape, size_t matrix_dims, const Ranks& batch) {
  Dims lead(shape.begin(), shape.end() - static_cast<long>(std::min(shape.size(), matrix_dims)));
  return broadcast_operand("", lead, batch).index;
}

void matmul(NodeContext& ctx) {
  Dims a = ctx.shape(0), b = ctx.shape(1), y = ctx.out_shape();
  if (a.empty() || b.empty()) throw ctx.fail("MatMul inputs must have at least one dimension");
  int64_t k = a.back();
  bool a_matrix = a.size() >= 2, b_matrix = b.size() >= 2;
  if (y.size() < size_t{a_matrix} + size_t{b_matrix})
    throw ctx.fail("the inferred output shape does not fit the inputs");
  size_t batch_rank = y.size() - (a_matrix ? 1 : 0) - (b_matrix ? 1 : 0);
  Ranks batch = ranks_for(Dims(y.begin(), y.begin() + static_cast<long>(batch_rank)), "b");
  Ranks ranks = batch;
  if (a_matrix) ranks.push_back({"m", a[a.size() - 2]});
  ranks.push_back({"k", k});
  if (b_matrix) ranks.push_back({"n", b.back()});
  auto ai = batch_index(a, a_matrix ? 2 : 1, batch);
  if (a_matrix) ai.push_back(rank("m"));
  ai.push_back(rank("k"));
  auto bi = batch_index(b, b_matrix ? 2 : 1, batch);
  bool batched = false;
  for (const auto& e : bi) batched = batched || !e.terms.empty();
  bi.push_back(rank("k"));
  if (b_matrix) bi.push_back(rank("n"));
  auto yi = indices_of(batch);
  if (a_matrix) yi.push_back(rank("m"));
  if (b_matrix) yi.push_back(rank("n"));
  std::string ta = ctx.in(0), tb = ctx.in(1), out = ctx.out();
  ctx.op(batched ? OpKind::batched_matmul : OpKind::matmul, "mac", ranks,
         {operand(ta, ai), operand(tb, bi)}, operand(out, yi));
}

void gemm(NodeContext& ctx) {
  Dims a = ctx.shape(0), y = ctx.out_shape();
  if (a.size() != 2 || y.size() != 2) throw ctx.fail("Gemm inputs must be matrices");
  bool ta = attr_int(ctx.node(), "transA", 0) != 0, tb = attr_int(ctx.node(), "transB", 0) != 0;
  int64_t k = ta ? a[0] : a[1];
  Ranks ranks{{"m", y[0]}, {"k", k}, {"n", y[1]}};
  std::vector<ir::Operand> inputs{operand(ctx.in(0), ta ? std::vector{rank("k"), rank("m")}
                                                        : std::vector{rank("m"), rank("k")}),
                                  operand(ctx.in(1), tb ? std::vector{rank("n"), rank("k")}
                                                        : std::vector{rank("k"), rank("n")})};
  Ranks out_ranks{ranks[0], ranks[2]};
  if (ctx.has_input(2)) inputs.push_back(broadcast_operand(ctx.in(2), ctx.shape(2), out_ranks));
  std::string out = ctx.out();
  ctx.op(OpKind::matmul, "mac", ranks, std::move(inputs), operand(out, indices_of(out_ranks)));
}

// Leading padding per spatial dim of a Conv or pooling node (explicit or auto_pad).
Dims begin_pads(const NodeContext& ctx, const Dims& in_spatial, const Dims& out_spatial,
                const Dims& kernel, const Dims& strides, const Dims& dilations) {
  size_t n = in_spatial.size();
  std::string mode = attr_string(ctx.node(), "auto_pad", "NOTSET");
  Dims pads = attr_ints(ctx.node(), "pads");
  Dims begin(n, 0);
  if (mode == "NOTSET") {
    if (!pads.empty() && pads.size() != 2 * n)
      throw ctx.fail("'pads' needs two values per spatial dim");
    for (size_t d = 0; d < n && !pads.empty(); ++d) begin[d] = pads[d];
    return begin;
  }
  if (mode == "VALID") return begin;
  for (size_t d = 0; d < n; ++d) {
    int64_t total = std::max<int64_t>(
        (out_spatial[d] - 1) * strides[d] + (kernel[d] - 1) * dilations[d] + 1 - in_spatial[d], 0);
    begin[d] = mode == "SAME_LOWER" ? (total + 1) / 2 : total / 2;
  }
  return begin;
}

Dims attr_or(const NodeContext& ctx, const std::string& name, size_t n, int64_t fallback) {
  Dims v = attr_ints(ctx.node(), name);
  if (v.empty()) return Dims(n, fallback);
  if (v.size() != n) throw ctx.fail("'" + name + "' needs one value per spatial dim");
  return v;
}

struct Window {
  Ranks out_ranks;                         // spatial output ranks p0, p1, ...
  Ranks kernel_ranks;                      // window ranks r0, r1, ...
  std::vector<ir::IndexExpr> input_index;  // stride*p + dilation*r - pad per spatial dim
};

Window window(const NodeContext& ctx, const Dims& x, const Dims& y, const Dims& kernel) {
  size_t n = x.size() - 2;
  Dims in_sp(x.begin() + 2, x.end()), out_sp(y.begin() + 2, y.end());
  Dims strides = attr_or(ctx, "strides", n, 1), dilations = attr_or(ctx, "dilations", n, 1);
  Dims pads = begin_pads(ctx, in_sp, out_sp, kernel, strides, dilations);
  Window w;
  for (size_t d = 0; d < n; ++d) {
    std::string p = "p" + std::to_string(d), r = "r" + std::to_string(d);
    w.out_ranks.push_back({p, out_sp[d]});
    w.kernel_ranks.push_back({r, kernel[d]});
    w.input_index.push_back(affine({{strides[d], p}, {dilations[d], r}}, -pads[d]));
  }
  return w;
}

void conv(NodeContext& ctx) {
  Dims x = ctx.shape(0), w = ctx.shape(1), y = ctx.out_shape();
  if (x.size() < 3 || w.size() != x.size() || y.size() != x.size())
    throw ctx.fail("Conv needs input and weight of the same rank >= 3");
  int64_t groups = attr_int(ctx.node(), "group", 1);
  if (groups < 1 || x[1] % groups != 0 || w[0] % groups != 0)
    throw ctx.fail("'group' must divide the input and output channels");
  int64_t cg = x[1] / groups, mg = w[0] / groups;
  Window win = window(ctx, x, y, Dims(w.begin() + 2, w.end()));
  Ranks ranks{{"n", y[0]}};
  if (groups > 1) ranks.push_back({"g", groups});
  ranks.push_back({"m", mg});
  ranks.insert(ranks.end(), win.out_ranks.begin(), win.out_ranks.end());
  ranks.push_back({"c", cg});
  ranks.insert(ranks.end(), win.kernel_ranks.begin(), win.kernel_ranks.end());
  auto grouped = [&](const std::string& r, int64_t per_group) {
    return groups > 1 ? affine({{per_group, "g"}, {1, r}}, 0) : rank(r);
  };
  std::vector<ir::IndexExpr> xi{rank("n"), grouped("c", cg)};
  xi.insert(xi.end(), win.input_index.begin(), win.input_index.end());
  std::vector<ir::IndexExpr> wi{grouped("m", mg), rank("c")};
  for (const auto& r : win.kernel_ranks) wi.push_back(rank(r.name));
  std::vector<ir::IndexExpr> yi{rank("n"), grouped("m", mg)};
  for (const auto& r : win.out_ranks) yi.push_back(rank(r.name));
  std::vector<ir::Operand> inputs{operand(ctx.in(0), xi), operand(ctx.in(1), wi)};
  if (ctx.has_input(2)) inputs.push_back(operand(ctx.in(2), {grouped("m", mg)}));
  std::string out = ctx.out();
  ctx.op(OpKind::conv, "mac", ranks, std::move(inputs), operand(out, yi));
}

void pool(NodeContext& ctx) {
  const std::string& op = ctx.node().op_type();
  for (int i = 1; i < ctx.node().output_size(); ++i)
    if (!ctx.node().output(i).empty()) throw ctx.fail("the Indices output is not supported");
  Dims x = ctx.shape(0), y = ctx.out_shape();
  if (x.size() < 3) throw ctx.fail("pooling needs an input of rank >= 3");
  bool global = op.rfind("Global", 0) == 0;
  Dims kernel = global ? Dims(x.begin() + 2, x.end()) : attr_ints(ctx.node(), "kernel_shape");
  if (kernel.size() != x.size() - 2)
    throw ctx.fail("'kernel_shape' needs one value per spatial dim");
  Window win = window(ctx, x, y, kernel);
  Ranks ranks{{"n", x[0]}, {"c", x[1]}};
  ranks.insert(ranks.end(), win.out_ranks.begin(), win.out_ranks.end());
  ranks.insert(ranks.end(), win.kernel_ranks.begin(), win.kernel_ranks.end());
  std::vector<ir::IndexExpr> xi{rank("n"), rank("c")};
  xi.insert(xi.end(), win.input_index.begin(), win.input_index.end());
  std::vector<ir::IndexExpr> yi{rank("n"), rank("c")};
  for (const auto& r : win.out_ranks) yi.push_back(rank(r.name));  // extent 1 when global
  bool max = op.find("Max") != std::string::npos;
  std::string in = ctx.in(0), out = ctx.out();
  ctx.op(OpKind::reduction, max ? "max" : "mean", ranks, {operand(in, xi)}, operand(out, yi));
}

// Reduced axes of a Reduce*/ArgMax node; all axes when none are given.
std::vector<bool> reduced_axes(const NodeContext& ctx, size_t rank_count) {
  const std::string& op = ctx.node().op_type();
  bool axes_input = (op == "ReduceSum" && ctx.opset() >= 13) || ctx.opset() >= 18;
  Dims axes;
  if (op == "ArgMax" || op == "ArgMin")
    axes = {attr_int(ctx.node(), "axis", 0)};
  else if (axes_input && ctx.has_input(1))
    axes = ctx.int_values(1, "'axes'");
  else if (!axes_input)
    axes = attr_ints(ctx.node(), "axes");
  bool noop = attr_int(ctx.node(), "noop_with_empty_axes", 0) != 0;
  std::vector<bool> reduced(rank_count, axes.empty() && !noop);
  for (int64_t a : axes) {
    int64_t n = normalize_axis(a, static_cast<int64_t>(rank_count));
    if (n < 0) throw ctx.fail("axis " + std::to_string(a) + " is out of range");
    reduced[n] = true;
  }
  return reduced;
}

void reduce(NodeContext& ctx) {
  static const std::map<std::string, std::string> fns = {
      {"ReduceSum", "sum"},    {"ReduceMean", "mean"},
      {"ReduceMax", "max"},    {"ReduceMin", "min"},
      {"ReduceProd", "mul"},   {"ReduceL1", "sumsq"},
      {"ReduceL2", "sumsq"},   {"ReduceSumSquare", "sumsq"},
      {"ReduceLogSum", "sum"}, {"ReduceLogSumExp", "sumsq"},
      {"ArgMax", "max"},       {"ArgMin", "min"}};
  Dims x = ctx.shape(0);
  auto reduced = reduced_axes(ctx, x.size());
  bool keep = attr_int(ctx.node(), "keepdims", 1) != 0;
  Ranks ranks = ranks_for(x, "d");
  std::vector<ir::IndexExpr> yi;
  for (size_t d = 0; d < x.size(); ++d) {
    if (!reduced[d])
      yi.push_back(rank(ranks[d].name));
    else if (keep)
      yi.push_back(constant(0));
  }
  std::string in = ctx.in(0), out = ctx.out();
  ctx.op(OpKind::reduction, fns.at(ctx.node().op_type()), ranks, {operand(in, indices_of(ranks))},
         operand(out, yi));
}

void softmax(NodeContext& ctx) {
  Ranks ranks = ranks_for(ctx.shape(0), "d");
  std::string in = ctx.in(0), out = ctx.out();
  ctx.op(OpKind::softmax, "softmax", ranks, {operand(in, indices_of(ranks))},
         operand(out, indices_of(ranks)));
}

// Parameters indexed by the trailing ranks from `axis` (LayerNormalization) or by the channel
// rank 1 (BatchNormalization, InstanceNormalization).
void normalization(NodeContext& ctx) {
  const std::string& op = ctx.node().op_type();
  for (int i = 1; i < ctx.node().output_size(); ++i)
    if (!ctx.node().output(i).empty() && op != "LayerNormalization")
      throw ctx.fail("training-mode outputs are not supported");
  Dims x = ctx.shape(0);
  Ranks ranks = ranks_for(x, "d");
  std::vector<ir::Operand> inputs{operand(ctx.in(0), indices_of(ranks))};
  for (int i = 1; i < ctx.inputs(); ++i) {
    if (!ctx.has_input(i)) continue;
    Dims p = ctx.shape(i);
    if (op == "LayerNormalization") {
      inputs.push_back(broadcast_operand(ctx.in(i), p, ranks));
    } else {
      if (x.size() < 2 || p.size() != 1) throw ctx.fail("parameters must be per-channel vectors");
      inputs.push_back(operand(ctx.in(i), {rank(ranks[1].name)}));
    }
  }
  std::string fn = op == "BatchNormalization" ? "batchnorm" : "layernorm";
  std::string out = ctx.out();
  ctx.op(OpKind::normalization, fn, ranks, std::move(inputs), operand(out, indices_of(ranks)));
}

}  // namespace

void add_compute_converters(ConverterTable& t) {
  t["MatMul"] = matmul;
  t["Gemm"] = gemm;
  t["Conv"] = conv;
  for (const char* op : {"MaxPool", "AveragePool", "GlobalAveragePool", "GlobalMaxPool"})
    t[op] = pool;
  for (const char* op :
       {"ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceL1", "ReduceL2",
        "ReduceSumSquare", "ReduceLogSum", "ReduceLogSumExp", "ArgMax", "ArgMin"})
    t[op] = reduce;
  for (const char* op : {"Softmax", "LogSoftmax", "Hardmax"}) t[op] = softmax;
  for (const char* op : {"LayerNormalization", "BatchNormalization", "InstanceNormalization"})
    t[op] = normalization;
}

}  // namespace tessera::onnx_import
