// Data movement and views. Reshape-like ops change only how elements are numbered: they become
// views (no op). Transpose, Concat, Split, Slice, Gather, Expand, Tile, Pad, DepthToSpace and
// SpaceToDepth move data: one copy op whose Einsum says which input element lands where.
#include "framework/common/user_text.hpp"
#include "framework/frontend/onnx/attributes.hpp"
#include "framework/frontend/onnx/converters.hpp"
#include "framework/frontend/onnx/fold.hpp"

namespace tessera::onnx_import {

namespace {

using ir::OpKind;
using Ranks = std::vector<ir::Rank>;

void copy_op(NodeContext& ctx, OpKind kind, const Ranks& ranks, std::vector<ir::Operand> inputs,
             int output = 0, const std::string& part = "") {
  std::string out = ctx.out(output);
  ctx.op(kind, "copy", ranks, std::move(inputs), ir::Operand{out, indices_of(ranks)}, part);
}

void view(NodeContext& ctx) {
  for (int i = 1; i < ctx.node().output_size(); ++i)
    if (!ctx.node().output(i).empty()) throw ctx.fail("only the first output is supported");
  ctx.view(0, 0);
}

// Inference keeps every element, whatever the mode the model was exported in: the output is a
// view of the input, and a mask something reads is written as a constant.
void dropout(NodeContext& ctx) {
  const ConstTensor* training = ctx.value(2);
  if (ctx.has_input(2) &&
      (training == nullptr || training->size() != 1 || training->as_double(0) != 0))
    ctx.note("training-mode Dropout imported as identity (inference keeps every element)");
  ctx.view(0, 0);
  if (ctx.node().output_size() > 1 && !ctx.node().output(1).empty()) {
    Ranks ranks = ranks_for(ctx.out_shape(1), "d");
    std::string mask = ctx.out(1);
    ctx.op(OpKind::data_movement, "fill", ranks, {}, ir::Operand{mask, indices_of(ranks)}, "mask");
  }
}

void constant_data(NodeContext& ctx) {
  ctx.weight_output(0);
}

void transpose(NodeContext& ctx) {
  Dims x = ctx.shape(0);
  Dims perm = attr_ints(ctx.node(), "perm");
  if (perm.empty())
    for (size_t d = x.size(); d-- > 0;) perm.push_back(static_cast<int64_t>(d));
  if (perm.size() != x.size()) throw ctx.fail("'perm' must list every axis once");
  Ranks in_ranks = ranks_for(x, "d");
  Ranks out_ranks;
  for (int64_t p : perm) {
    if (p < 0 || p >= static_cast<int64_t>(x.size())) throw ctx.fail("'perm' is out of range");
    out_ranks.push_back(in_ranks[p]);
  }
  std::string in = ctx.in(0), out = ctx.out();
  ctx.op(OpKind::data_movement, "copy", in_ranks, {ir::Operand{in, indices_of(in_ranks)}},
         ir::Operand{out, indices_of(out_ranks)});
}

// A decode step's present = Concat(past, new): the cache in HBM gets only the new positions,
// written at their offset; the past is already in place, so it is neither read nor copied.
void write_kv_cache(NodeContext& ctx, const KvCache& cache) {
  Dims y = ctx.out_shape();
  std::string present = ctx.cache_out();
  int64_t offset = 0;
  for (int i = 0; i < ctx.inputs(); ++i) {
    Dims x = ctx.shape(i);
    if (x.size() != y.size()) throw ctx.fail("inputs must have the output's rank");
    if (ctx.node().input(i) != cache.past) {
      Ranks ranks = ranks_for(x, "d");
      auto yi = indices_of(ranks);
      yi[cache.axis] = affine({{1, ranks[cache.axis].name}}, offset);
      std::string in = ctx.in(i);
      ctx.op(OpKind::data_movement, "copy", ranks, {ir::Operand{in, indices_of(ranks)}},
             ir::Operand{present, yi}, ctx.inputs() > 2 ? std::to_string(i) : "");
    }
    offset += x[cache.axis];
  }
}

// Input i of a Concat covers [offset, offset + extent) of the axis: index `d<axis> - offset`.
void concat(NodeContext& ctx) {
  if (const KvCache* cache = ctx.kv_cache()) return write_kv_cache(ctx, *cache);
  Dims y = ctx.out_shape();
  int64_t axis = normalize_axis(attr_int(ctx.node(), "axis", 0), static_cast<int64_t>(y.size()));
  if (axis < 0) throw ctx.fail("'axis' is out of range");
  Ranks ranks = ranks_for(y, "d");
  std::vector<ir::Operand> inputs;
  int64_t offset = 0;
  for (int i = 0; i < ctx.inputs(); ++i) {
    Dims x = ctx.shape(i);
    if (x.size() != y.size()) throw ctx.fail("inputs must have the output's rank");
    ir::Operand o{ctx.in(i), indices_of(ranks)};
    o.index[axis] = affine({{1, ranks[axis].name}}, -offset);
    inputs.push_back(std::move(o));
    offset += x[axis];
  }
  std::string out = ctx.out();
  ctx.op(OpKind::data_movement, "concat", ranks, std::move(inputs),
         ir::Operand{out, indices_of(ranks)});
}

// One op per output: output i reads the input from its offset along the axis.
void split(NodeContext& ctx) {
  Dims x = ctx.shape(0);
  int64_t axis = normalize_axis(attr_int(ctx.node(), "axis", 0), static_cast<int64_t>(x.size()));
  if (axis < 0) throw ctx.fail("'axis' is out of range");
  std::string in = ctx.in(0);
  int64_t offset = 0;
  for (int i = 0; i < ctx.node().output_size(); ++i) {
    Dims y = ctx.out_shape(i);
    Ranks ranks = ranks_for(y, "d");
    ir::Operand o{in, indices_of(ranks)};
    o.index[axis] = affine({{1, ranks[axis].name}}, offset);
    offset += y[axis];
    copy_op(ctx, OpKind::data_movement, ranks, {std::move(o)}, i, std::to_string(i));
  }
}

void slice(NodeContext& ctx) {
  Dims x = ctx.shape(0);
  std::vector<const ConstTensor*> values;
  for (int i = 0; i < ctx.inputs(); ++i) values.push_back(ctx.value(i));
  auto bounds = slice_bounds(ctx.node(), ctx.opset(), values);
  if (!bounds)
    throw ctx.fail("starts, ends, axes and steps must be constants known at import time");
  auto plan = slice_plan(x, bounds->starts, bounds->ends, bounds->axes, bounds->steps);
  if (!plan) throw ctx.fail("inconsistent starts, ends, axes or steps");
  Ranks ranks = ranks_for(ctx.out_shape(), "d");
  if (ranks.size() != x.size()) throw ctx.fail("the output rank differs from the input's");
  ir::Operand o{ctx.in(0), {}};
  for (size_t d = 0; d < x.size(); ++d)
    o.index.push_back(affine({{(*plan)[d].step, ranks[d].name}}, (*plan)[d].start));
  copy_op(ctx, OpKind::data_movement, ranks, {std::move(o)});
}

// Output = data[:axis] + indices + data[axis+1:]. Known constant scalar indices pick one slice
// (data movement); others are looked up at run time (gather, `$1`).
void gather(NodeContext& ctx) {
  Dims data = ctx.shape(0), idx = ctx.shape(1), y = ctx.out_shape();
  int64_t axis = normalize_axis(attr_int(ctx.node(), "axis", 0), static_cast<int64_t>(data.size()));
  if (axis < 0 || y.size() != data.size() + idx.size() - 1) throw ctx.fail("inconsistent shapes");
  Ranks ranks = ranks_for(y, "d");
  auto at = [&](size_t d) { return rank(ranks[d].name); };
  ir::Operand data_op{ctx.in(0), {}};
  for (int64_t d = 0; d < axis; ++d) data_op.index.push_back(at(d));
  const ConstTensor* known = ctx.value(1);
  bool fixed = known != nullptr && known->size() == 1 && idx.empty() && !known->is_float();
  if (fixed) {
    int64_t k = known->ints[0] < 0 ? known->ints[0] + data[axis] : known->ints[0];
    if (k < 0 || k >= data[axis]) throw ctx.fail("index " + std::to_string(k) + " is out of range");
    data_op.index.push_back(constant(k));
  } else {
    data_op.index.push_back(indirect(1));
  }
  size_t after = axis + idx.size();
  for (size_t d = after; d < y.size(); ++d) data_op.index.push_back(at(d));
  if (fixed) return copy_op(ctx, OpKind::data_movement, ranks, {std::move(data_op)});
  ir::Operand idx_op{ctx.in(1), {}};
  for (size_t d = axis; d < after; ++d) idx_op.index.push_back(at(d));
  copy_op(ctx, OpKind::gather, ranks, {std::move(data_op), std::move(idx_op)});
}

void expand(NodeContext& ctx) {
  Ranks ranks = ranks_for(ctx.out_shape(), "d");
  copy_op(ctx, OpKind::data_movement, ranks, {broadcast_operand(ctx.in(0), ctx.shape(0), ranks)});
}

// Every mode reads each input element once and writes the output: 'reflect', 'edge' and 'wrap'
// fill the border from elements already read, 'constant' with the value.
void pad(NodeContext& ctx) {
  Dims x = ctx.shape(0);
  Dims pads = ctx.opset() >= 11 ? ctx.int_values(1, "'pads'") : attr_ints(ctx.node(), "pads");
  if (ctx.opset() >= 18 && ctx.has_input(3)) throw ctx.fail("the 'axes' input is not supported");
  if (pads.size() != 2 * x.size()) throw ctx.fail("'pads' needs two values per axis");
  Ranks ranks = ranks_for(ctx.out_shape(), "d");
  ir::Operand o{ctx.in(0), {}};
  for (size_t d = 0; d < x.size(); ++d) o.index.push_back(affine({{1, ranks[d].name}}, -pads[d]));
  copy_op(ctx, OpKind::data_movement, ranks, {std::move(o)});
}

// Tile: out[r*n + i] = x[i] per dim, over ranks (r, i) for the repeats and the input's extent.
void tile(NodeContext& ctx) {
  Dims x = ctx.shape(0), y = ctx.out_shape();
  if (y.size() != x.size()) throw ctx.fail("repeats must have one value per dimension");
  Ranks ranks;
  std::vector<ir::IndexExpr> xi, yi;
  for (size_t d = 0; d < x.size(); ++d) {
    std::string r = "r" + std::to_string(d), i = "i" + std::to_string(d);
    if (x[d] < 1 || y[d] % x[d] != 0) throw ctx.fail("the output is not a whole number of tiles");
    ranks.push_back({r, y[d] / x[d]});
    ranks.push_back({i, x[d]});
    xi.push_back(rank(i));
    yi.push_back(affine({{x[d], r}, {1, i}}, 0));
  }
  std::string in = ctx.in(0), out = ctx.out();
  ctx.op(OpKind::data_movement, "copy", ranks, {ir::Operand{in, xi}}, ir::Operand{out, yi});
}

// DepthToSpace / SpaceToDepth: [N, C, H, W] blocks of b x b between channels and positions.
void depth_space(NodeContext& ctx) {
  Dims x = ctx.shape(0), y = ctx.out_shape();
  int64_t b = attr_int(ctx.node(), "blocksize", 0);
  if (x.size() != 4 || b < 1) throw ctx.fail("needs a 4-D input and a positive 'blocksize'");
  bool to_space = ctx.node().op_type() == "DepthToSpace";
  Dims space = to_space ? y : x, depth = to_space ? x : y;
  int64_t c = space[1];
  Ranks ranks{{"n", x[0]}, {"c", c}, {"h", depth[2]}, {"i", b}, {"w", depth[3]}, {"j", b}};
  bool crd = to_space && attr_string(ctx.node(), "mode", "DCR") == "CRD";
  ir::IndexExpr channel = crd ? affine({{b * b, "c"}, {b, "i"}, {1, "j"}}, 0)
                              : affine({{b * c, "i"}, {c, "j"}, {1, "c"}}, 0);
  std::vector<ir::IndexExpr> depth_index{rank("n"), channel, rank("h"), rank("w")};
  std::vector<ir::IndexExpr> space_index{rank("n"), rank("c"), affine({{b, "h"}, {1, "i"}}, 0),
                                         affine({{b, "w"}, {1, "j"}}, 0)};
  std::string in = ctx.in(0), out = ctx.out();
  ctx.op(OpKind::data_movement, "copy", ranks,
         {ir::Operand{in, to_space ? depth_index : space_index}},
         ir::Operand{out, to_space ? space_index : depth_index});
}

// Trilu at run time (a constant input is folded): a masked copy of the matrix.
void trilu(NodeContext& ctx) {
  Ranks ranks = ranks_for(ctx.out_shape(), "d");
  copy_op(ctx, OpKind::data_movement, ranks, {ir::Operand{ctx.in(0), indices_of(ranks)}});
}

// ReverseSequence: each sequence read back to front along the time axis (the full length: the
// bytes are the tensor's either way).
void reverse_sequence(NodeContext& ctx) {
  Dims x = ctx.shape(0);
  int64_t axis =
      normalize_axis(attr_int(ctx.node(), "time_axis", 0), static_cast<int64_t>(x.size()));
  if (axis < 0) throw ctx.fail("'time_axis' is out of range");
  Ranks ranks = ranks_for(x, "d");
  ir::Operand o{ctx.in(0), indices_of(ranks)};
  o.index[axis] = affine({{-1, ranks[axis].name}}, x[axis] - 1);
  copy_op(ctx, OpKind::data_movement, ranks, {std::move(o)});
}

// An If left after folding has a condition computed from data.
void control_flow(NodeContext& ctx) {
  throw ctx.fail("its condition " + in_quotes(ctx.node().input(0)) +
                 " depends on data (it is not computed from shapes and constants); control "
                 "flow is not supported");
}

void fill(NodeContext& ctx) {
  Ranks ranks = ranks_for(ctx.out_shape(), "d");
  std::string out = ctx.out();
  ctx.op(OpKind::data_movement, "fill", ranks, {}, ir::Operand{out, indices_of(ranks)});
}

}  // namespace

void add_movement_converters(ConverterTable& t) {
  for (const char* op : {"Identity", "Reshape", "Flatten", "Squeeze", "Unsqueeze"}) t[op] = view;
  t["Dropout"] = dropout;
  t["Constant"] = constant_data;
  t["Transpose"] = transpose;
  t["Concat"] = concat;
  t["Split"] = split;
  t["Slice"] = slice;
  t["Gather"] = gather;
  t["Expand"] = expand;
  t["Pad"] = pad;
  t["ConstantOfShape"] = fill;
  // Values the op writes without reading data: an identity matrix, random numbers, a range.
  for (const char* op : {"EyeLike", "RandomUniformLike", "RandomNormalLike", "RandomUniform",
                         "RandomNormal", "Range"})
    t[op] = fill;
  t["Tile"] = tile;
  t["DepthToSpace"] = depth_space;
  t["SpaceToDepth"] = depth_space;
  t["Trilu"] = trilu;
  t["If"] = control_flow;
  t["ReverseSequence"] = reverse_sequence;
}

}  // namespace tessera::onnx_import
