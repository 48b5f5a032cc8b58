// Elementwise ops and activations: one Einsum over the output's ranks, inputs broadcast.
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
  };
  return fns;
}

// Inputs that are data, not parameters: Clip's bounds and CastLike's type donor are not read.
int data_inputs(const NodeContext& ctx) {
  const std::string& op = ctx.node().op_type();
  if (op == "Clip" || op == "CastLike") return 1;
  return ctx.inputs();
}

void elementwise(NodeContext& ctx) {
  const std::string& op = ctx.node().op_type();
  std::string fn = point_fns().at(op);
  if (op == "Gelu" && attr_string(ctx.node(), "approximate", "none") == "tanh") fn = "gelu_tanh";
  auto ranks = ranks_for(ctx.out_shape(), "d");
  std::vector<ir::Operand> inputs;
  for (int i = 0; i < data_inputs(ctx); ++i)
    if (ctx.has_input(i)) inputs.push_back(broadcast_operand(ctx.in(i), ctx.shape(i), ranks));
  OpKind kind = inputs.size() > 1 ? OpKind::elementwise : OpKind::unary;
  std::string out = ctx.out();
  ctx.op(kind, fn, ranks, std::move(inputs), ir::Operand{out, indices_of(ranks)});
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
}

}  // namespace tessera::onnx_import
