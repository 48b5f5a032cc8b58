// apply_splits: the graph rebuilt with each split op replaced by its slices.
#include "framework/planner/split.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "framework/planner/chain_split.hpp"
#include "framework/planner/slicing.hpp"

namespace tessera::planner {

std::string slice_name(const std::string& op, const std::string& rank, int64_t index,
                       int64_t slices) {
  return fmt::format("{}@{}{}/{}", op, rank, index, slices);
}

std::optional<std::string> sliced_op(const std::string& name) {
  size_t at = name.rfind('@');
  size_t slash = name.rfind('/');
  if (at == std::string::npos || at == 0 || slash == std::string::npos || slash < at) return {};
  auto digits = [&](size_t from, size_t to) {
    return from < to && std::all_of(name.begin() + from, name.begin() + to,
                                    [](char c) { return c >= '0' && c <= '9'; });
  };
  size_t index = slash;
  while (index > at + 1 && name[index - 1] >= '0' && name[index - 1] <= '9') --index;
  if (index == at + 1 || !digits(index, slash) || !digits(slash + 1, name.size())) return {};
  return name.substr(0, at);
}

namespace {

// The partial sums between two slices of a reduction split: on chip, shaped like the part of the
// output the op writes (a KV-cache update writes one slot of a large tensor), indexed alike.
struct Accumulator {
  ir::Tensor tensor;
  ir::Operand operand;
};

Accumulator accumulator(const ir::Graph& graph, const ir::Op& op, const std::string& name) {
  const ir::Tensor& out = *graph.find_tensor(op.einsum.output.tensor);
  Accumulator acc{{name, {}, out.dtype, ir::TensorRole::activation, ""}, op.einsum.output};
  acc.operand.tensor = name;
  for (auto& expr : acc.operand.index) {
    auto [lo, hi] = ir::affine_range(op.einsum, expr);
    acc.tensor.shape.push_back(hi - lo + 1);
    expr.offset -= lo;
  }
  return acc;
}

class Splitter {
 public:
  Splitter(const ir::Graph& graph, ir::GraphBuilder& builder) : graph_(graph), b_(builder) {}

  Status add(const ir::Op& op, const OpSplit& split) {
    const ir::Rank* rank = op.einsum.find_rank(split.rank);
    std::string ctx = ir::op_context(op.name);
    if (rank == nullptr)
      return input_error(ctx + "cannot split along '" + split.rank + "': the op's ranks are " +
                         op.einsum.ranks_str());
    std::vector<Part> parts = parts_of(rank->extent, split.slices);
    if (parts.empty())
      return input_error(ctx + fmt::format("rank '{}' of extent {} cannot be cut into {} slices "
                                           "(2 or more, none of them empty)",
                                           split.rank, rank->extent, split.slices));
    bool reduced = !uses_rank(op.einsum.output, split.rank);
    bool normalises = op.kind == ir::OpKind::softmax || op.kind == ir::OpKind::normalization;
    if (normalises && (reduced || split.rank == op.einsum.ranks.back().name))
      return input_error(ctx + "cannot split along '" + split.rank +
                         "': a softmax or normalisation needs the whole rank for its statistics");
    for (size_t i = 0; i < parts.size(); ++i)
      if (Status s = add_slice(op, split, parts, i, reduced); !s) return s;
    return ok_status();
  }

 private:
  Status add_slice(const ir::Op& op, const OpSplit& split, const std::vector<Part>& parts, size_t i,
                   bool reduced) {
    const Part& part = parts[i];
    const bool last = i + 1 == parts.size();
    ir::Op slice = op;
    slice.name = slice_name(op.name, split.rank, static_cast<int64_t>(i), split.slices);
    slice.source = op.source + fmt::format(" (slice {}/{} of {})", i, split.slices, split.rank);
    for (auto& r : slice.einsum.ranks)
      if (r.name == split.rank) r.extent = part.extent;
    slice.einsum.inputs.clear();
    size_t arity = static_cast<size_t>(ir::find_point_fn(op.einsum.fn)->arity);
    for (size_t j = 0; j < op.einsum.inputs.size(); ++j)
      if (!reduced || last || j < arity)
        slice.einsum.inputs.push_back(shifted(op.einsum.inputs[j], split.rank, part.lo));
    slice.einsum.output = shifted(op.einsum.output, split.rank, part.lo);
    if (reduced) {
      if (i > 0) slice.einsum.inputs.push_back(previous_.operand);
      if (!last) {
        Accumulator acc = accumulator(graph_, op, slice.name + ".partial");
        if (Status s = b_.add_tensor(acc.tensor); !s) return s;
        slice.einsum.output = acc.operand;
        previous_ = std::move(acc);
      }
    }
    auto added = b_.add_op(std::move(slice));
    if (!added) return added.error();
    return ok_status();
  }

  const ir::Graph& graph_;
  ir::GraphBuilder& b_;
  Accumulator previous_;
};

Result<ir::Graph> apply_op_splits(const ir::Graph& graph, const std::vector<OpSplit>& splits) {
  std::map<std::string, const OpSplit*> by_op;
  for (const OpSplit& s : splits)
    if (!by_op.emplace(s.op, &s).second)
      return input_error(ir::op_context(s.op) + "is split twice");
  ir::GraphBuilder b(graph.name());
  for (const ir::Tensor& t : graph.tensors())
    if (Status s = b.add_tensor(t); !s) return s.error();
  size_t applied = 0;
  for (const ir::Op& op : graph.ops()) {
    auto it = by_op.find(op.name);
    if (it == by_op.end()) {
      if (auto added = b.add_op(op); !added) return added.error();
      continue;
    }
    Splitter splitter(graph, b);
    if (Status s = splitter.add(op, *it->second); !s) return s.error();
    ++applied;
  }
  if (applied != by_op.size())
    for (const OpSplit& s : splits) {
      bool found = std::any_of(graph.ops().begin(), graph.ops().end(),
                               [&](const ir::Op& op) { return op.name == s.op; });
      if (!found) return input_error("split of op '" + s.op + "': the graph has no such op");
    }
  for (const std::string& out : graph.outputs())
    if (Status s = b.mark_output(out); !s) return s.error();
  return b.finish();
}

}  // namespace

Result<ir::Graph> apply_splits(const ir::Graph& graph, const std::vector<OpSplit>& splits) {
  std::vector<OpSplit> chains, ops;
  for (const OpSplit& s : splits) (s.through.empty() ? ops : chains).push_back(s);
  if (chains.empty()) return apply_op_splits(graph, ops);
  auto chained = apply_chain_splits(graph, chains);
  if (!chained) return chained.error();
  return apply_op_splits(*chained, ops);
}

}  // namespace tessera::planner
