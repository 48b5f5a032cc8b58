// The Einsum op is already an Einsum: each letter of the equation becomes a rank (einsum_equation
// names them). Two operands multiply-accumulate (a matmul, batched when a letter is kept in both
// and the output); one operand sums its dropped letters (a reduction) or, dropping none, is a
// transpose or diagonal (a copy).
#include "framework/frontend/onnx/attributes.hpp"
#include "framework/frontend/onnx/converters.hpp"
#include "framework/frontend/onnx/einsum_equation.hpp"

namespace tessera::onnx_import {

namespace {

using ir::OpKind;

std::string rank_name(char letter) {
  return std::string("e") + letter;
}

OpKind kind_of(const EinsumEquation& eq) {
  if (eq.inputs.size() == 1)
    return eq.output.size() < eq.extents.size() ? OpKind::reduction : OpKind::data_movement;
  for (char c : eq.output)
    if (eq.inputs[0].find(c) != std::string::npos && eq.inputs[1].find(c) != std::string::npos &&
        eq.extents.at(c) > 1)
      return OpKind::batched_matmul;
  return OpKind::matmul;
}

void einsum(NodeContext& ctx) {
  std::vector<Dims> shapes;
  for (int i = 0; i < ctx.inputs(); ++i) shapes.push_back(ctx.shape(i));
  if (shapes.empty() || shapes.size() > 2)
    throw ctx.fail("only Einsums of one or two operands are supported");
  auto parsed = parse_einsum(attr_string(ctx.node(), "equation", ""), shapes);
  if (auto* why = std::get_if<std::string>(&parsed)) throw ctx.fail(*why);
  const auto& eq = std::get<EinsumEquation>(parsed);
  std::vector<ir::Rank> ranks;
  for (const auto& term : eq.inputs)
    for (char c : term)
      if (std::none_of(ranks.begin(), ranks.end(),
                       [&](const ir::Rank& r) { return r.name == rank_name(c); }))
        ranks.push_back({rank_name(c), eq.extents.at(c)});
  std::vector<ir::Operand> inputs;
  for (size_t i = 0; i < shapes.size(); ++i) {
    ir::Operand o{ctx.in(static_cast<int>(i)), {}};
    for (size_t d = 0; d < shapes[i].size(); ++d) {
      char c = eq.inputs[i][d];
      bool broadcast = shapes[i][d] == 1 && eq.extents.at(c) != 1;
      o.index.push_back(broadcast ? constant(0) : rank(rank_name(c)));
    }
    inputs.push_back(std::move(o));
  }
  ir::Operand out{ctx.out(), {}};
  for (char c : eq.output) out.index.push_back(rank(rank_name(c)));
  OpKind kind = kind_of(eq);
  std::string fn = shapes.size() == 2 ? "mac" : (kind == OpKind::reduction ? "sum" : "copy");
  ctx.op(kind, fn, std::move(ranks), std::move(inputs), std::move(out));
}

}  // namespace

void add_einsum_converter(ConverterTable& t) {
  t["Einsum"] = einsum;
}

}  // namespace tessera::onnx_import
