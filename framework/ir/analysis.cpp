#include "framework/ir/analysis.hpp"

#include <algorithm>

namespace tessera::ir {

namespace {

double operand_footprint(const Graph& graph, const Einsum& einsum, const Operand& operand,
                         int depth = 0);

// Elements the indirect index operand `i` has; guards against $-cycles with `depth`.
double index_operand_elements(const Graph& graph, const Einsum& einsum, int i, int depth) {
  if (i < 0 || i >= static_cast<int>(einsum.inputs.size()) || depth > 4) return 1;
  return operand_footprint(graph, einsum, einsum.inputs[i], depth + 1);
}

double operand_footprint(const Graph& graph, const Einsum& einsum, const Operand& operand,
                         int depth) {
  const Tensor* t = graph.find_tensor(operand.tensor);
  double elements = 1;
  for (size_t d = 0; d < operand.index.size() && t != nullptr; ++d) {
    const IndexExpr& e = operand.index[d];
    double index_elems =
        e.is_indirect() ? index_operand_elements(graph, einsum, e.indirect, depth) : 0;
    elements *= footprint_elements(einsum, e, t->shape[d], index_elems);
  }
  return elements;
}

size_t tensor_position(const Graph& graph, const std::string& name) {
  return static_cast<size_t>(graph.find_tensor(name) - graph.tensors().data());
}

}  // namespace

OpCost op_cost(const Graph& graph, const Op& op) {
  OpCost cost;
  const Einsum& e = op.einsum;
  auto fn = find_point_fn(e.fn);
  if (fn) {
    cost.flops = fn->flops_per_point * e.points();
    double out_elems = operand_footprint(graph, e, e.output);
    // Index operands of a gather ($i) choose positions; they are not combined.
    int index_operands = 0;
    for (size_t i = 0; i < e.inputs.size(); ++i)
      for (const auto& in : e.inputs)
        if (std::any_of(in.index.begin(), in.index.end(),
                        [&](const IndexExpr& x) { return x.indirect == static_cast<int>(i); })) {
          ++index_operands;
          break;
        }
    int extra = static_cast<int>(e.inputs.size()) - index_operands - fn->arity;
    if (extra > 0) cost.flops += extra * out_elems;
  }
  for (const auto& in : e.inputs) {
    const Tensor& base = graph.storage_tensor(in.tensor);
    double bytes = operand_footprint(graph, e, in) * element_bytes(base.dtype);
    (storage_of(base.role) == Storage::hbm ? cost.hbm_bytes_in : cost.on_chip_bytes_in) += bytes;
  }
  const Tensor& out = graph.storage_tensor(e.output.tensor);
  cost.bytes_out = operand_footprint(graph, e, e.output) * element_bytes(out.dtype);
  cost.writes_hbm = storage_of(out.role) == Storage::hbm;
  return cost;
}

Edges edges(const Graph& graph) {
  Edges out;
  size_t n = graph.tensors().size();
  out.producer.assign(n, -1);
  out.consumers.assign(n, {});
  out.op_preds.assign(graph.ops().size(), {});
  // Slices of a split op write disjoint parts of one tensor: a reader depends on every writer.
  std::vector<std::vector<int>> writers(n);
  for (size_t i = 0; i < graph.ops().size(); ++i) {
    const Op& op = graph.ops()[i];
    for (const auto& in : op.einsum.inputs) {
      size_t base = tensor_position(graph, graph.storage_tensor(in.tensor).name);
      auto& c = out.consumers[base];
      if (c.empty() || c.back() != static_cast<int>(i)) c.push_back(static_cast<int>(i));
      out.op_preds[i].insert(out.op_preds[i].end(), writers[base].begin(), writers[base].end());
    }
    size_t written = tensor_position(graph, op.einsum.output.tensor);
    writers[written].push_back(static_cast<int>(i));
    if (out.producer[written] < 0) out.producer[written] = static_cast<int>(i);
    auto& preds = out.op_preds[i];
    std::sort(preds.begin(), preds.end());
    preds.erase(std::unique(preds.begin(), preds.end()), preds.end());
  }
  for (size_t t = 0; t < n; ++t) {  // a view shares its base's edges
    const Tensor& tensor = graph.tensors()[t];
    if (tensor.view_of.empty()) continue;
    size_t base = tensor_position(graph, tensor.view_of);
    out.producer[t] = out.producer[base];
    out.consumers[t] = out.consumers[base];
  }
  return out;
}

std::vector<Lifetime> lifetimes(const Graph& graph, const Edges& edges) {
  std::vector<Lifetime> out(graph.tensors().size());
  int last = static_cast<int>(graph.ops().size()) - 1;
  for (size_t t = 0; t < out.size(); ++t) {
    out[t].first_op = edges.producer[t];
    if (!edges.consumers[t].empty()) out[t].last_op = edges.consumers[t].back();
    out[t].last_op = std::max(out[t].last_op, out[t].first_op);
  }
  for (const auto& name : graph.outputs()) {
    size_t t = tensor_position(graph, graph.storage_tensor(name).name);
    out[t].last_op = last;
  }
  for (size_t t = 0; t < out.size(); ++t) {
    const Tensor& tensor = graph.tensors()[t];
    if (!tensor.view_of.empty()) out[t] = out[tensor_position(graph, tensor.view_of)];
  }
  return out;
}

Totals totals(const Graph& graph) {
  Totals t;
  t.ops = graph.ops().size();
  for (const auto& tensor : graph.tensors()) {
    if (!tensor.view_of.empty()) continue;
    if (tensor.role == TensorRole::weight) t.weight_bytes += tensor.bytes();
    if (tensor.role == TensorRole::constant) t.constant_bytes += tensor.bytes();
    if (tensor.role == TensorRole::kv_cache) t.kv_cache_bytes += tensor.bytes();
    if (tensor.role == TensorRole::input) t.input_bytes += tensor.bytes();
  }
  for (const auto& op : graph.ops()) {
    OpCost c = op_cost(graph, op);
    t.flops += c.flops;
    t.hbm_bytes_in += c.hbm_bytes_in;
    t.on_chip_bytes_in += c.on_chip_bytes_in;
    t.bytes_out += c.bytes_out;
  }
  // Live activations per op, by a sweep over lifetime starts and ends.
  Edges e = edges(graph);
  auto life = lifetimes(graph, e);
  std::vector<double> delta(graph.ops().size() + 1, 0.0);
  for (size_t i = 0; i < life.size(); ++i) {
    const Tensor& tensor = graph.tensors()[i];
    if (!tensor.view_of.empty() || storage_of(tensor.role) != Storage::on_chip) continue;
    if (life[i].first_op < 0) continue;
    delta[life[i].first_op] += tensor.bytes();
    delta[life[i].last_op + 1] -= tensor.bytes();
  }
  double live = 0;
  for (size_t i = 0; i < graph.ops().size(); ++i) {
    live += delta[i];
    t.peak_live_on_chip_bytes = std::max(t.peak_live_on_chip_bytes, live);
  }
  return t;
}

}  // namespace tessera::ir
