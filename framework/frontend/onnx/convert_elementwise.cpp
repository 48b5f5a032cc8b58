// Elementwise ops and activations: one Einsum over the output's ranks, inputs broadcast.
#include <algorithm>

#include "framework/frontend/onnx/attributes.hpp"
#include "framework/frontend/onnx/converters.hpp"

namespace tessera::onnx_import {

namespace {

using ir::OpKind;

// The point function of each elementwise op type.
const std::map<std::string, std::string>& point_fns() {
  static const std::map<std::string, std::string> fns = {
      {"Add", "add"},
      {"Sub", "sub"},
      {"Mul", "mul"},
      {"Div", "div"},
      {"Pow", "pow"},
      {"Mod", "mod"},
      {"Max", "max"},
      {"Min", "min"},
      {"Sum", "add"},
      {"Mean", "add"},
      {"Equal", "compare"},
      {"Less", "compare"},
      {"Greater", "compare"},
      {"LessOrEqual", "compare"},
      {"GreaterOrEqual", "compare"},
      {"And", "compare"},
      {"Or", "compare"},
      {"Xor", "compare"},
      {"Not", "compare"},
      {"IsNaN", "compare"},
      {"IsInf", "compare"},
      {"Where", "select"},
      {"PRelu", "prelu"},
      {"Relu", "relu"},
      {"Sigmoid", "sigmoid"},
      {"Tanh", "tanh"},
      {"Exp", "exp"},
      {"Log", "log"},
      {"Sqrt", "sqrt"},
      {"Erf", "erf"},
      {"Neg", "neg"},
      {"Abs", "abs"},
      {"Reciprocal", "reciprocal"},
      {"Floor", "round"},
      {"Ceil", "round"},
      {"Round", "round"},
      {"Sign", "round"},
      {"Sin", "trig"},
      {"Cos", "trig"},
      {"Tan", "trig"},
      {"Asin", "trig"},
      {"Acos", "trig"},
      {"Atan", "trig"},
      {"Sinh", "trig"},
      {"Cosh", "trig"},
      {"Asinh", "trig"},
      {"Acosh", "trig"},
      {"Atanh", "trig"},
      {"Softplus", "softplus"},
      {"Softsign", "softplus"},
      {"Elu", "elu"},
      {"Selu", "elu"},
      {"Celu", "elu"},
      {"LeakyRelu", "leaky_relu"},
      {"HardSigmoid", "hard_sigmoid"},
      {"HardSwish", "hard_sigmoid"},
      {"ThresholdedRelu", "relu"},
      {"Cast", "cast"},
      {"CastLike", "cast"},
      {"Clip", "clip"},
      {"Gelu", "gelu"},
      {"Shrink", "clip"},
      {"BitShift", "shift"},
      {"Bernoulli", "compare"},
      {"QuantizeLinear", "quantize"},
      {"DequantizeLinear", "dequantize"},
  };
  return fns;
}

// Inputs that are data, not parameters: Clip's bounds and CastLike's type donor are not read.
int data_inputs(const NodeContext& ctx) {
  const std::string& op = ctx.node().op_type();
  if (op == "Clip" || op == "CastLike") return 1;
  return ctx.inputs();
}

// Input i read at the output's ranks: broadcast (numpy rules), except the per-channel scale and
// zero point of (De)QuantizeLinear, which follow 'axis'.
ir::Operand input_operand(NodeContext& ctx, int i, const std::vector<ir::Rank>& ranks) {
  const std::string& op = ctx.node().op_type();
  Dims shape = ctx.shape(i);
  bool per_axis = (op == "QuantizeLinear" || op == "DequantizeLinear") && i > 0 &&
                  shape.size() == 1 && shape[0] > 1;
  if (!per_axis) return broadcast_operand(ctx.in(i), shape, ranks);
  int64_t axis =
      normalize_axis(attr_int(ctx.node(), "axis", 1), static_cast<int64_t>(ranks.size()));
  if (axis < 0 || ranks[axis].extent != shape[0])
    throw ctx.fail("a per-axis scale or zero point must have the extent of 'axis'");
  return ir::Operand{ctx.in(i), {rank(ranks[axis].name)}};
}

void elementwise(NodeContext& ctx) {
  const std::string& op = ctx.node().op_type();
  std::string fn = point_fns().at(op);
  if (op == "Gelu" && attr_string(ctx.node(), "approximate", "none") == "tanh") fn = "gelu_tanh";
  auto ranks = ranks_for(ctx.out_shape(), "d");
  std::vector<ir::Operand> inputs;
  for (int i = 0; i < data_inputs(ctx); ++i)
    if (ctx.has_input(i)) inputs.push_back(input_operand(ctx, i, ranks));
  // select's operands are (a, b, cond): the element type of the data, not of the mask, is what
  // the op computes in.
  if (op == "Where" && inputs.size() == 3)
    std::rotate(inputs.begin(), inputs.begin() + 1, inputs.end());
  OpKind kind = inputs.size() > 1 ? OpKind::elementwise : OpKind::unary;
  std::string out = ctx.out();
  ctx.op(kind, fn, ranks, std::move(inputs), ir::Operand{out, indices_of(ranks)});
}

// DynamicQuantizeLinear: a min/max reduction over x gives the scale (and with it the zero
// point), then x is quantised with them.
void dynamic_quantize(NodeContext& ctx) {
  auto ranks = ranks_for(ctx.shape(0), "d");
  std::string x = ctx.in(0), scale = ctx.out(1);
  ctx.op(OpKind::reduction, "minmax", ranks, {ir::Operand{x, indices_of(ranks)}},
         ir::Operand{scale, {}}, "scale");
  ctx.companion(2, 1);
  std::string zero_point = ctx.node().output(2), y = ctx.out(0);
  ctx.op(OpKind::elementwise, "quantize", ranks,
         {ir::Operand{x, indices_of(ranks)}, ir::Operand{scale, {}}, ir::Operand{zero_point, {}}},
         ir::Operand{y, indices_of(ranks)});
}

}  // namespace

ir::Operand broadcast_operand(const std::string& tensor, const Dims& shape,
                              const std::vector<ir::Rank>& out_ranks) {
  ir::Operand o{tensor, {}};
  size_t offset = out_ranks.size() - std::min(out_ranks.size(), shape.size());
  for (size_t d = 0; d < shape.size(); ++d) {
    const ir::Rank* r = d + offset < out_ranks.size() && shape.size() <= out_ranks.size()
                            ? &out_ranks[d + offset]
                            : nullptr;
    bool broadcast = r == nullptr || (shape[d] == 1 && r->extent != 1);
    o.index.push_back(broadcast ? constant(0) : rank(r->name));
  }
  return o;
}

void add_elementwise_converters(ConverterTable& table) {
  for (const auto& [op, fn] : point_fns()) table[op] = elementwise;
  table["DynamicQuantizeLinear"] = dynamic_quantize;
}

}  // namespace tessera::onnx_import
