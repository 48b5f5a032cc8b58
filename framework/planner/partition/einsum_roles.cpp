// OpShape from an ir::Op: rank roles for the CostModel's matmul query, which ranks need a
// combine step when split, and per operand which ranks index it.
//
// Roles of matmul-like ops come from the first two inputs (A, B) and the output: a rank in the
// output and both inputs is a batch rank, in the output and A only (or neither) an m rank, in the
// output and B only an n rank, absent from the output a k (reduced) rank. Softmax and
// normalisation reduce along their last rank although it stays in the output (the zoo and the
// ONNX importer put the normalised axis last), so splitting it needs a combine step too.
#include <algorithm>

#include "framework/ir/analysis.hpp"
#include "framework/planner/partition/plan_space.hpp"

namespace tessera::planner::partition {

namespace {

Result<OperandShape> describe_operand(const ir::Graph& graph, const ir::Einsum& einsum,
                                      const ir::Operand& operand, const std::string& label) {
  const ir::Tensor& tensor = graph.storage_tensor(operand.tensor);
  const ir::Tensor* view = graph.find_tensor(operand.tensor);
  OperandShape shape;
  shape.label = label;
  shape.dims = view->shape;
  shape.element_bytes = ir::element_bytes(view->dtype);
  shape.in_hbm = ir::storage_of(tensor.role) == ir::Storage::hbm;
  shape.uses_rank.assign(einsum.ranks.size(), false);
  for (const auto& expr : operand.index) {
    std::vector<IndexTerm> terms;
    for (const auto& term : expr.terms) {
      auto it = std::find_if(einsum.ranks.begin(), einsum.ranks.end(),
                             [&](const ir::Rank& r) { return r.name == term.rank; });
      int rank = static_cast<int>(it - einsum.ranks.begin());
      terms.push_back({rank, term.coeff < 0 ? -term.coeff : term.coeff});
      shape.uses_rank[rank] = true;
    }
    shape.terms.push_back(std::move(terms));
    shape.indirect.push_back(expr.indirect);
  }
  return shape;
}

// The operand whose type the op computes in: the first input that is neither an index list (the
// `$i` of a gather) nor a weight; for an op that reads only weights (and index lists), the output
// when its type is a compute type, else the first weight; the output when there is no input.
// Weights may be stored narrower than the activations (--weight-dtype bfp8, fp8): the core unpacks
// them and computes at the activations' rate, so x[m,k] · w[k,n] computes in x's type whichever
// operand comes first, and the embedding gather table[$i] in the type it writes.
const ir::Operand& compute_operand(const ir::Graph& graph, const ir::Einsum& einsum) {
  std::vector<bool> is_index(einsum.inputs.size(), false);
  auto mark = [&](const ir::Operand& operand) {
    for (const auto& expr : operand.index)
      if (expr.is_indirect() && static_cast<size_t>(expr.indirect) < is_index.size())
        is_index[static_cast<size_t>(expr.indirect)] = true;
  };
  for (const auto& in : einsum.inputs) mark(in);
  mark(einsum.output);
  auto is_weight = [&](const ir::Operand& operand) {
    return graph.storage_tensor(operand.tensor).role == ir::TensorRole::weight;
  };
  for (size_t i = 0; i < einsum.inputs.size(); ++i)
    if (!is_index[i] && !is_weight(einsum.inputs[i])) return einsum.inputs[i];
  if (ir::to_abi(graph.find_tensor(einsum.output.tensor)->dtype)) return einsum.output;
  for (size_t i = 0; i < einsum.inputs.size(); ++i)
    if (!is_index[i]) return einsum.inputs[i];
  return einsum.output;
}

// Cores move bytes whatever their type: only arithmetic needs a type a core computes in. An
// integer no core computes in (an int64 index) is computed as int32, the width of index
// arithmetic; a bool or a byte that only moves is moved as int8.
std::optional<tessera_dtype> compute_type(ir::OpKind kind, ir::DType dtype) {
  if (auto abi = ir::to_abi(dtype)) return abi;
  bool moves = kind == ir::OpKind::data_movement || kind == ir::OpKind::gather;
  if (dtype == ir::DType::boolean || dtype == ir::DType::uint8)
    return moves ? ir::to_abi(ir::DType::int8) : std::nullopt;
  return ir::to_abi(ir::DType::int32);
}

void assign_roles(OpShape& op) {
  const auto& out = op.operands.back();
  size_t inputs = op.operands.size() - 1;
  for (size_t r = 0; r < op.extents.size(); ++r) {
    bool in_out = out.uses_rank[r];
    bool in_a = inputs > 0 && op.operands[0].uses_rank[r];
    bool in_b = inputs > 1 && op.operands[1].uses_rank[r];
    op.combined[r] = !in_out;
    if (!in_out)
      op.roles[r] = Role::k;
    else if (in_a && in_b)
      op.roles[r] = Role::batch;
    else if (in_b)
      op.roles[r] = Role::n;
    else
      op.roles[r] = Role::m;
  }
  bool normalises = op.kind == ir::OpKind::softmax || op.kind == ir::OpKind::normalization;
  if (normalises && !op.extents.empty()) op.combined.back() = true;
}

}  // namespace

Result<OpShape> describe_op(const ir::Graph& graph, const ir::Op& op) {
  const ir::Einsum& einsum = op.einsum;
  OpShape shape;
  shape.name = op.name;
  shape.kind = op.kind;
  shape.math_fidelity = op.math_fidelity;
  shape.matmul_like = op.kind == ir::OpKind::matmul || op.kind == ir::OpKind::batched_matmul ||
                      op.kind == ir::OpKind::conv;
  for (const auto& rank : einsum.ranks) {
    shape.rank_names.push_back(rank.name);
    shape.extents.push_back(rank.extent);
    shape.points *= static_cast<double>(rank.extent);
  }
  shape.roles.assign(einsum.ranks.size(), Role::m);
  shape.combined.assign(einsum.ranks.size(), false);
  for (size_t i = 0; i < einsum.inputs.size(); ++i) {
    auto operand = describe_operand(graph, einsum, einsum.inputs[i], "in" + std::to_string(i));
    if (!operand) return operand.error();
    shape.operands.push_back(std::move(*operand));
  }
  auto output = describe_operand(graph, einsum, einsum.output, "out");
  if (!output) return output.error();
  output->is_output = true;
  output->in_hbm =
      ir::storage_of(graph.storage_tensor(einsum.output.tensor).role) == ir::Storage::hbm;
  shape.operands.push_back(std::move(*output));
  const ir::Operand& first = compute_operand(graph, einsum);
  ir::DType dtype = graph.find_tensor(first.tensor)->dtype;
  auto abi = compute_type(op.kind, dtype);
  if (!abi)
    return input_error(ir::op_context(op.name) + "it computes in the type of '" + first.tensor +
                       "', " + ir::to_string(dtype) +
                       ", which no core computes in; give that tensor a compute type (fp32, "
                       "fp16, bf16, fp8, int8, int32, fp64)");
  shape.dtype = *abi;
  shape.flops = ir::op_cost(graph, op).flops;
  assign_roles(shape);
  return shape;
}

double tile_elements(const OpShape& op, const OperandShape& operand,
                     const std::vector<int64_t>& tile) {
  double elements = 1;
  for (size_t d = 0; d < operand.dims.size(); ++d) {
    double extent = 1;
    if (operand.indirect[d] >= 0) {
      const auto& index = op.operands[static_cast<size_t>(operand.indirect[d])];
      extent = tile_elements(op, index, tile);
    } else {
      int64_t span = 1;
      for (const auto& term : operand.terms[d]) span += term.coeff * (tile[term.rank] - 1);
      extent = static_cast<double>(span);
    }
    elements *= std::min(extent, static_cast<double>(operand.dims[d]));
  }
  return elements;
}

}  // namespace tessera::planner::partition
