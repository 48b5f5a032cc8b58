// Contractions (MatMul, Gemm, Conv, ConvTranspose and their quantised forms), sliding windows
// (pooling, LRN), reductions and scans, softmax and normalisations.
#include <algorithm>

#include "framework/common/user_text.hpp"
#include "framework/frontend/onnx/attributes.hpp"
#include "framework/frontend/onnx/converters.hpp"

namespace tessera::onnx_import {

namespace {

using ir::OpKind;
using Ranks = std::vector<ir::Rank>;

// Batch dims of a MatMul operand (all but the last two) broadcast against the output's.
std::vector<ir::IndexExpr> batch_index(const Dims& shape, size_t matrix_dims, const Ranks& batch) {
  Dims lead(shape.begin(), shape.end() - static_cast<long>(std::min(shape.size(), matrix_dims)));
  return broadcast_operand("", lead, batch).index;
}

// y = input `ia` @ input `ib` (MatMul 0 and 1; QLinearMatMul 0 and 3).
void matmul_of(NodeContext& ctx, int ia, int ib) {
  Dims a = ctx.shape(ia), b = ctx.shape(ib), y = ctx.out_shape();
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
  std::string ta = ctx.in(ia), tb = ctx.in(ib), out = ctx.out();
  ctx.op(batched ? OpKind::batched_matmul : OpKind::matmul, "mac", ranks,
         {operand(ta, ai), operand(tb, bi)}, operand(out, yi));
}

void matmul(NodeContext& ctx) {
  matmul_of(ctx, 0, 1);
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
  if (v.size() != n) throw ctx.fail(in_quotes(name) + " needs one value per spatial dim");
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

// Which inputs of a convolution node are the data, the weight and the bias (-1: none).
struct ConvInputs {
  int x = 0, w = 1, bias = 2;
};

void conv_of(NodeContext& ctx, ConvInputs io) {
  Dims x = ctx.shape(io.x), w = ctx.shape(io.w), y = ctx.out_shape();
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
  std::vector<ir::Operand> inputs{operand(ctx.in(io.x), xi), operand(ctx.in(io.w), wi)};
  if (io.bias >= 0 && ctx.has_input(io.bias))
    inputs.push_back(operand(ctx.in(io.bias), {grouped("m", mg)}));
  std::string out = ctx.out();
  ctx.op(OpKind::conv, "mac", ranks, std::move(inputs), operand(out, yi));
}

void conv(NodeContext& ctx) {
  conv_of(ctx, {});
}

// Leading padding a ConvTranspose crops from its unpadded output of `full` positions per dim.
Dims transpose_pads(const NodeContext& ctx, const Dims& full, const Dims& out_spatial) {
  size_t n = full.size();
  std::string mode = attr_string(ctx.node(), "auto_pad", "NOTSET");
  Dims pads = attr_ints(ctx.node(), "pads"), extra = attr_or(ctx, "output_padding", n, 0);
  Dims begin(n, 0);
  bool computed = mode != "NOTSET" || !attr_ints(ctx.node(), "output_shape").empty();
  for (size_t d = 0; d < n; ++d) {
    int64_t total = full[d] + extra[d] - out_spatial[d];
    if (computed)
      begin[d] = mode == "SAME_UPPER" ? total / 2 : total - total / 2;
    else if (!pads.empty())
      begin[d] = pads[d];
  }
  return begin;
}

// ConvTranspose: input position p spreads its window to s*p + d*r of the unpadded output; a
// copy crops that to the node's output when pads, output_padding or output_shape change it.
void conv_transpose(NodeContext& ctx) {
  Dims x = ctx.shape(0), w = ctx.shape(1), y = ctx.out_shape();
  if (x.size() < 3 || w.size() != x.size() || y.size() != x.size())
    throw ctx.fail("ConvTranspose needs input and weight of the same rank >= 3");
  int64_t groups = attr_int(ctx.node(), "group", 1);
  if (groups < 1 || x[1] % groups != 0 || w[0] != x[1])
    throw ctx.fail("the weight must be [C, M/group, k...] with 'group' dividing C");
  int64_t cg = x[1] / groups, mg = w[1];
  size_t n = x.size() - 2;
  Dims strides = attr_or(ctx, "strides", n, 1), dilations = attr_or(ctx, "dilations", n, 1);
  Dims full(n), out_spatial(y.begin() + 2, y.end());
  for (size_t d = 0; d < n; ++d)
    full[d] = strides[d] * (x[d + 2] - 1) + dilations[d] * (w[d + 2] - 1) + 1;
  Dims begin = transpose_pads(ctx, full, out_spatial);
  bool crop = full != out_spatial ||
              std::any_of(begin.begin(), begin.end(), [](int64_t b) { return b != 0; });
  auto grouped = [&](const std::string& r, int64_t per_group) {
    return groups > 1 ? affine({{per_group, "g"}, {1, r}}, 0) : rank(r);
  };
  Ranks ranks{{"n", x[0]}};
  if (groups > 1) ranks.push_back({"g", groups});
  ranks.push_back({"m", mg});
  std::vector<ir::IndexExpr> xi{rank("n"), grouped("c", cg)}, wi{grouped("c", cg), rank("m")},
      yi{rank("n"), grouped("m", mg)};
  for (size_t d = 0; d < n; ++d) ranks.push_back({"p" + std::to_string(d), x[d + 2]});
  ranks.push_back({"c", cg});
  for (size_t d = 0; d < n; ++d) {
    std::string p = "p" + std::to_string(d), r = "r" + std::to_string(d);
    ranks.push_back({r, w[d + 2]});
    xi.push_back(rank(p));
    wi.push_back(rank(r));
    yi.push_back(affine({{strides[d], p}, {dilations[d], r}}, 0));
  }
  std::vector<ir::Operand> inputs{operand(ctx.in(0), xi), operand(ctx.in(1), wi)};
  if (ctx.has_input(2)) inputs.push_back(operand(ctx.in(2), {grouped("m", mg)}));
  Dims full_shape{y[0], y[1]};
  full_shape.insert(full_shape.end(), full.begin(), full.end());
  std::string target = crop ? ctx.temp("uncropped", full_shape, ctx.out_dtype()) : ctx.out();
  ctx.op(OpKind::conv, "mac", ranks, std::move(inputs), operand(target, yi));
  if (!crop) return;
  Ranks out_ranks = ranks_for(y, "d");
  std::vector<ir::IndexExpr> src = indices_of(out_ranks);
  for (size_t d = 0; d < n; ++d) src[d + 2] = affine({{1, out_ranks[d + 2].name}}, begin[d]);
  std::string out = ctx.out();
  ctx.op(OpKind::data_movement, "copy", out_ranks, {operand(target, src)},
         operand(out, indices_of(out_ranks)), "crop");
}

// CumSum: one add per element along the axis (a scan, not a reduction of the whole axis).
void cumsum(NodeContext& ctx) {
  Ranks ranks = ranks_for(ctx.shape(0), "d");
  std::string in = ctx.in(0), out = ctx.out();
  ctx.op(OpKind::reduction, "cumsum", ranks, {operand(in, indices_of(ranks))},
         operand(out, indices_of(ranks)));
}

// LRN: a window of `size` channels around each one, squared and summed, scales the element.
void lrn(NodeContext& ctx) {
  Dims x = ctx.shape(0);
  int64_t size = attr_int(ctx.node(), "size", 1);
  if (x.size() < 2 || size < 1) throw ctx.fail("LRN needs rank >= 2 and a positive 'size'");
  Ranks ranks = ranks_for(x, "d");
  ranks.push_back({"r", size});
  std::vector<ir::IndexExpr> xi = indices_of(ranks_for(x, "d"));
  xi[1] = affine({{1, "d1"}, {1, "r"}}, -(size - 1) / 2);
  std::string in = ctx.in(0), out = ctx.out();
  ctx.op(OpKind::normalization, "sumsq", ranks, {operand(in, xi)},
         operand(out, indices_of(ranks_for(x, "d"))));
}

// Det of [..., n, n]: an LU factorisation, 2/3 n^3 FLOPs (`lu`, 2/3 per point of i, j, k).
void det(NodeContext& ctx) {
  Dims x = ctx.shape(0);
  if (x.size() < 2 || x[x.size() - 1] != x[x.size() - 2])
    throw ctx.fail("the input must be square matrices [..., n, n]");
  Ranks ranks = ranks_for(Dims(x.begin(), x.end() - 2), "b");
  int64_t n = x.back();
  for (const char* r : {"i", "j", "k"}) ranks.push_back({r, n});
  auto yi = indices_of(Ranks(ranks.begin(), ranks.end() - 3));
  auto xi = yi;
  xi.push_back(rank("i"));
  xi.push_back(rank("j"));
  std::string in = ctx.in(0), out = ctx.out();
  ctx.op(OpKind::reduction, "lu", ranks, {operand(in, xi)}, operand(out, yi));
}

void pool(NodeContext& ctx) {
  const std::string& op = ctx.node().op_type();
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
  if (ctx.node().output_size() > 1 && !ctx.node().output(1).empty()) ctx.companion(1, 0);
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

// A fused attention softmax (patterns.hpp) also reads the scale and the mask: epilogue inputs.
void softmax(NodeContext& ctx) {
  Ranks ranks = ranks_for(ctx.shape(0), "d");
  std::vector<ir::Operand> inputs{operand(ctx.in(0), indices_of(ranks))};
  for (int i = 1; i < ctx.inputs(); ++i)
    inputs.push_back(broadcast_operand(ctx.in(i), ctx.shape(i), ranks));
  std::string out = ctx.out();
  ctx.op(OpKind::softmax, "softmax", ranks, std::move(inputs), operand(out, indices_of(ranks)));
}

// Training-mode BatchNormalization's running mean and variance: per channel over the batch and
// positions (mean: one add per element; variance: a square and an add).
void batch_statistic(NodeContext& ctx, int i, const Ranks& ranks) {
  std::string x = ctx.in(0), out = ctx.out(i);
  ctx.op(OpKind::reduction, i == 1 ? "mean" : "sumsq", ranks, {operand(x, indices_of(ranks))},
         operand(out, {rank(ranks[1].name)}), std::to_string(i));
}

// Parameters broadcast to the input (LayerNormalization, fused RMS and group norms) or indexed by
// the channel rank 1 (BatchNormalization, InstanceNormalization).
void normalization(NodeContext& ctx) {
  const std::string& op = ctx.node().op_type();
  for (int i = 1; i < ctx.node().output_size(); ++i)
    if (!ctx.node().output(i).empty() && op != "LayerNormalization" && op != "BatchNormalization")
      throw ctx.fail("training-mode outputs are not supported");
  Dims x = ctx.shape(0);
  Ranks ranks = ranks_for(x, "d");
  std::vector<ir::Operand> inputs{operand(ctx.in(0), indices_of(ranks))};
  for (int i = 1; i < ctx.inputs(); ++i) {
    if (!ctx.has_input(i)) continue;
    Dims p = ctx.shape(i);
    if (op == "LayerNormalization" || op == "RMSNormalization" || op == "GroupNormalization") {
      inputs.push_back(broadcast_operand(ctx.in(i), p, ranks));
    } else {
      if (x.size() < 2 || p.size() != 1) throw ctx.fail("parameters must be per-channel vectors");
      inputs.push_back(operand(ctx.in(i), {rank(ranks[1].name)}));
    }
  }
  std::string fn = op == "BatchNormalization" ? "batchnorm"
                   : op == "RMSNormalization" ? "rmsnorm"
                                              : "layernorm";
  std::string out = ctx.out();
  ctx.op(OpKind::normalization, fn, ranks, std::move(inputs), operand(out, indices_of(ranks)));
  if (op == "BatchNormalization")
    for (int i = 1; i < ctx.node().output_size(); ++i)
      if (!ctx.node().output(i).empty()) batch_statistic(ctx, i, ranks);
}

}  // namespace

void add_compute_converters(ConverterTable& t) {
  t["MatMul"] = matmul;
  // Quantised contractions run on their narrow operands; zero points and scales are per-tensor
  // or per-channel constants applied around the multiply-accumulate.
  t["MatMulInteger"] = matmul;
  t["QLinearMatMul"] = [](NodeContext& ctx) { matmul_of(ctx, 0, 3); };
  t["Gemm"] = gemm;
  t["Conv"] = conv;
  t["ConvInteger"] = [](NodeContext& ctx) { conv_of(ctx, {0, 1, -1}); };
  t["QLinearConv"] = [](NodeContext& ctx) { conv_of(ctx, {0, 3, 8}); };
  for (const char* op : {"MaxPool", "AveragePool", "GlobalAveragePool", "GlobalMaxPool"})
    t[op] = pool;
  for (const char* op :
       {"ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceL1", "ReduceL2",
        "ReduceSumSquare", "ReduceLogSum", "ReduceLogSumExp", "ArgMax", "ArgMin"})
    t[op] = reduce;
  for (const char* op : {"Softmax", "LogSoftmax", "Hardmax"}) t[op] = softmax;
  for (const char* op : {"LayerNormalization", "BatchNormalization", "InstanceNormalization",
                         "MeanVarianceNormalization", "RMSNormalization", "GroupNormalization"})
    t[op] = normalization;
  t["ConvTranspose"] = conv_transpose;
  t["CumSum"] = cumsum;
  t["LRN"] = lrn;
  t["Det"] = det;
}

}  // namespace tessera::onnx_import
