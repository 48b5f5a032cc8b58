#include "framework/ir/repeats.hpp"

#include <map>

namespace tessera::ir {

namespace {

std::string renamed(const IndexExpr& e, const std::map<std::string, std::string>& names) {
  IndexExpr copy = e;
  for (auto& t : copy.terms) t.rank = names.at(t.rank);
  return copy.str();
}

// Where a range lies inside its tensor, the offset only says which part is read: the slices of
// a split op (w[k,n+512], w[k,n+1024]) move the same bytes and cost the same, so they are one
// class. An offset that clips at an edge (a padded convolution's p+r-1) changes the footprint
// and stays in the signature.
std::string dimension_signature(const Einsum& einsum, IndexExpr e, int64_t extent,
                                const std::map<std::string, std::string>& names) {
  if (!e.is_indirect()) {
    auto [lo, hi] = affine_range(einsum, e);
    if (lo >= 0 && hi < extent) e.offset -= lo;
  }
  return renamed(e, names) + ":" + std::to_string(extent);
}

std::string operand_signature(const Graph& graph, const Einsum& einsum, const Operand& o,
                              const std::map<std::string, std::string>& names) {
  const Tensor& t = *graph.find_tensor(o.tensor);
  const Tensor& base = graph.storage_tensor(o.tensor);
  std::string s = "[";
  for (size_t d = 0; d < o.index.size(); ++d)
    s += (d ? "," : "") + dimension_signature(einsum, o.index[d], t.shape[d], names);
  s += std::string("]") + to_string(t.dtype) +
       (storage_of(base.role) == Storage::hbm ? "@hbm" : "@chip");
  return s;
}

// Per op, the position in graph.tensors() of each input's storage tensor: looked up once, not
// once per period compared.
std::vector<std::vector<size_t>> input_storage(const Graph& graph) {
  std::vector<std::vector<size_t>> out;
  for (const auto& op : graph.ops()) {
    auto& row = out.emplace_back();
    for (const auto& in : op.einsum.inputs)
      row.push_back(static_cast<size_t>(&graph.storage_tensor(in.tensor) - graph.tensors().data()));
  }
  return out;
}

// Inputs of op `a` and op `b` = a + period are wired alike.
bool same_wiring(const std::vector<std::vector<size_t>>& inputs, const Edges& edges, int a, int b,
                 int period) {
  const auto& ia = inputs[static_cast<size_t>(a)];
  const auto& ib = inputs[static_cast<size_t>(b)];
  for (size_t j = 0; j < ia.size(); ++j) {
    if (ia[j] == ib[j]) continue;
    int pa = edges.producer[ia[j]];
    int pb = edges.producer[ib[j]];
    if (pa < 0 || pb < 0) {
      if (pa != pb) return false;  // one produced, one resident: not the same role
      continue;                    // per-layer weights or caches
    }
    if (pb - pa != period) return false;
  }
  return true;
}

}  // namespace

std::string op_signature(const Graph& graph, const Op& op) {
  std::map<std::string, std::string> names;
  std::string s = std::string(to_string(op.kind)) + " " + op.einsum.fn + " {";
  for (size_t r = 0; r < op.einsum.ranks.size(); ++r) {
    names[op.einsum.ranks[r].name] = "r" + std::to_string(r);
    s += "r" + std::to_string(r) + "=" + std::to_string(op.einsum.ranks[r].extent) + " ";
  }
  s += "}";
  for (const auto& in : op.einsum.inputs) s += operand_signature(graph, op.einsum, in, names);
  s += "->" + operand_signature(graph, op.einsum, op.einsum.output, names);
  if (op.math_fidelity != 0) s += " fidelity " + std::to_string(op.math_fidelity);
  return s;
}

OpClasses identical_ops(const Graph& graph) {
  OpClasses out;
  std::map<std::string, int> ids;
  for (size_t i = 0; i < graph.ops().size(); ++i) {
    auto [it, fresh] =
        ids.emplace(op_signature(graph, graph.ops()[i]), static_cast<int>(out.first_op.size()));
    if (fresh) {
      out.first_op.push_back(static_cast<int>(i));
      out.count.push_back(0);
    }
    out.class_of.push_back(it->second);
    ++out.count[it->second];
  }
  return out;
}

int RepeatedLayers::layer_of(int op) const {
  if (op < first_op || op >= first_op + ops_per_layer * count) return -1;
  return (op - first_op) / ops_per_layer;
}

std::optional<RepeatedLayers> repeated_layers(const Graph& graph, const OpClasses& classes,
                                              const Edges& edges) {
  int n = static_cast<int>(graph.ops().size());
  auto inputs = input_storage(graph);
  std::optional<RepeatedLayers> best;
  for (int period = 1; period <= n / 2; ++period) {
    // Layers of this period cover at most n / period * period ops: a period that cannot cover
    // more than the best is not searched (a chain of n identical ops is found at period 1 and
    // the search ends there, in time linear in n).
    if (best && n / period * period <= best->count * best->ops_per_layer) continue;
    int run = 0;  // consecutive i with op i matching op i + period
    for (int i = 0; i + period <= n; ++i) {
      bool match = i + period < n && classes.class_of[i] == classes.class_of[i + period] &&
                   same_wiring(inputs, edges, i, i + period, period);
      if (match) {
        ++run;
        continue;
      }
      int count = run / period + 1;
      if (count >= 2 && (!best || count * period > best->count * best->ops_per_layer))
        best = RepeatedLayers{i - run, period, count};
      run = 0;
    }
  }
  return best;
}

}  // namespace tessera::ir
