#include "framework/planner/chain_split.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "framework/planner/slicing.hpp"
#include "framework/planner/split.hpp"

namespace tessera::planner {

namespace {

// The rank an index is exactly (one term, coefficient 1, no offset), or "".
std::string bare_rank(const ir::IndexExpr& e) {
  bool bare = !e.is_indirect() && e.terms.size() == 1 && e.terms[0].coeff == 1 && e.offset == 0;
  return bare ? e.terms[0].rank : "";
}

// The one dimension of `operand` that `rank` alone indexes, or -1.
int dimension_of(const ir::Operand& operand, const std::string& rank) {
  int found = -1;
  for (size_t d = 0; d < operand.index.size(); ++d) {
    if (bare_rank(operand.index[d]) != rank) continue;
    if (found >= 0) return -1;
    found = static_cast<int>(d);
  }
  return found;
}

// Whether `value` is read by one operand of one op of the graph and nothing else (no view, not a
// graph output); then that op's input reading it, else -1.
int only_read_by(const ir::Graph& graph, const ir::Op& reader, const std::string& value) {
  int reads = 0, input = -1;
  for (const ir::Op& op : graph.ops())
    for (size_t i = 0; i < op.einsum.inputs.size(); ++i) {
      if (op.einsum.inputs[i].tensor != value) continue;
      ++reads;
      if (&op == &reader) input = static_cast<int>(i);
    }
  const auto& outs = graph.outputs();
  bool viewed = std::any_of(graph.tensors().begin(), graph.tensors().end(),
                            [&](const ir::Tensor& t) { return t.view_of == value; });
  bool alone = reads == 1 && !viewed && std::find(outs.begin(), outs.end(), value) == outs.end();
  return alone ? input : -1;
}

int64_t extent_of(const ir::Op& op, const std::string& rank) {
  const ir::Rank* r = op.einsum.find_rank(rank);
  return r == nullptr ? -1 : r->extent;
}

// The rank of `reader` that continues the chain from `rank` of `writer`, or "".
std::string next_rank(const ir::Graph& graph, const ir::Op& writer, const std::string& rank,
                      const ir::Op& reader) {
  const std::string& value = writer.einsum.output.tensor;
  int input = only_read_by(graph, reader, value);
  int d = dimension_of(writer.einsum.output, rank);
  if (input < 0 || d < 0) return "";
  const ir::Operand& read = reader.einsum.inputs[static_cast<size_t>(input)];
  std::string next = bare_rank(read.index[static_cast<size_t>(d)]);
  int64_t extent = graph.find_tensor(value)->shape[static_cast<size_t>(d)];
  bool whole = extent_of(writer, rank) == extent && extent_of(reader, next) == extent;
  return whole && dimension_of(read, next) == d ? next : "";
}

// Adds the chain's blocks, block after block, to a builder that holds the graph's tensors but
// the values between the chain's ops.
class ChainBlocks {
 public:
  ChainBlocks(const ir::Graph& graph, size_t first, const std::vector<std::string>& ranks,
              std::vector<Part> parts, ir::GraphBuilder& builder)
      : graph_(graph), first_(first), ranks_(ranks), parts_(std::move(parts)), b_(builder) {}

  Status add() {
    for (size_t i = 0; i < parts_.size(); ++i) {
      std::string previous;
      for (size_t j = 0; j < ranks_.size(); ++j) {
        auto written = add_block(j, i, previous);
        if (!written) return written.error();
        previous = *written;
      }
    }
    return ok_status();
  }

 private:
  // Block i of the chain's op j: the value from the op before read from that block's tensor
  // `previous` as it is (both count the part from 0), its other inputs shifted to the part; the
  // value for the next op written to a tensor of its own (returned), the last op's output shifted
  // to the part.
  Result<std::string> add_block(size_t j, size_t i, const std::string& previous) {
    const ir::Op& op = graph_.ops()[first_ + j];
    const std::string& rank = ranks_[j];
    const Part& part = parts_[i];
    auto blocks = static_cast<int64_t>(parts_.size());
    std::string before = j > 0 ? graph_.ops()[first_ + j - 1].einsum.output.tensor : "";
    ir::Op block = op;
    block.name = slice_name(op.name, rank, static_cast<int64_t>(i), blocks);
    block.source = op.source + fmt::format(" (block {}/{} of {})", i, blocks, rank);
    for (auto& r : block.einsum.ranks)
      if (r.name == rank) r.extent = part.extent;
    for (auto& in : block.einsum.inputs)
      in = in.tensor == before ? ir::Operand{previous, in.index} : shifted(in, rank, part.lo);
    if (j + 1 == ranks_.size()) {
      block.einsum.output = shifted(op.einsum.output, rank, part.lo);
      if (auto added = b_.add_op(std::move(block)); !added) return added.error();
      return std::string();
    }
    ir::Tensor value = *graph_.find_tensor(op.einsum.output.tensor);
    value.name = slice_name(value.name, rank, static_cast<int64_t>(i), blocks);
    value.shape[static_cast<size_t>(dimension_of(op.einsum.output, rank))] = part.extent;
    if (Status s = b_.add_tensor(value); !s) return s.error();
    block.einsum.output.tensor = value.name;
    if (auto added = b_.add_op(std::move(block)); !added) return added.error();
    return value.name;
  }

  const ir::Graph& graph_;
  size_t first_;
  const std::vector<std::string>& ranks_;
  std::vector<Part> parts_;
  ir::GraphBuilder& b_;
};

struct Chain {
  size_t first = 0, last = 0;
  std::vector<std::string> ranks;
  int64_t blocks = 0;
};

// The chains' op ranges and ranks, ordered; errors as apply_chain_splits says.
Result<std::vector<Chain>> chains_of(const ir::Graph& graph, const std::vector<OpSplit>& splits) {
  std::map<std::string, size_t> index;
  for (size_t i = 0; i < graph.ops().size(); ++i) index[graph.ops()[i].name] = i;
  std::vector<Chain> chains;
  for (const OpSplit& s : splits) {
    auto first = index.find(s.op), last = index.find(s.through);
    if (first == index.end() || last == index.end())
      return input_error(fmt::format("split of ops '{}' through '{}': the graph has no such op",
                                     s.op, first == index.end() ? s.op : s.through));
    auto ranks = chain_ranks(graph, first->second, last->second, s.rank);
    if (!ranks) return ranks.error();
    chains.push_back({first->second, last->second, std::move(*ranks), s.slices});
  }
  std::sort(chains.begin(), chains.end(),
            [](const Chain& a, const Chain& b) { return a.first < b.first; });
  for (size_t c = 1; c < chains.size(); ++c)
    if (chains[c].first <= chains[c - 1].last)
      return input_error(ir::op_context(graph.ops()[chains[c].first].name) +
                         "is split twice (two chain splits overlap)");
  return chains;
}

}  // namespace

std::string continued_rank(const ir::Graph& graph, size_t j, const std::string& rank) {
  if (j + 1 >= graph.ops().size()) return "";
  return next_rank(graph, graph.ops()[j], rank, graph.ops()[j + 1]);
}

Result<std::vector<std::string>> chain_ranks(const ir::Graph& graph, size_t first, size_t last,
                                             const std::string& rank) {
  const auto& ops = graph.ops();
  if (first >= last || last >= ops.size())
    return input_error(ir::op_context(ops[std::min(first, ops.size() - 1)].name) +
                       "a chain split needs ops after it, in graph order");
  if (extent_of(ops[first], rank) < 0)
    return input_error(ir::op_context(ops[first].name) + "cannot split along '" + rank +
                       "': the op's ranks are " + ops[first].einsum.ranks_str());
  std::vector<std::string> ranks{rank};
  for (size_t j = first; j < last; ++j) {
    std::string next = continued_rank(graph, j, ranks.back());
    if (next.empty())
      return input_error(ir::op_context(ops[j + 1].name) +
                         fmt::format("does not continue the chain along '{}': it must be the only "
                                     "reader of '{}', whose dimension '{}' indexes, and read it "
                                     "by one rank alone",
                                     ranks.back(), ops[j].einsum.output.tensor, ranks.back()));
    ranks.push_back(next);
  }
  if (!uses_rank(ops[last].einsum.output, ranks.back()))
    return input_error(ir::op_context(ops[last].name) + "ends the chain but reduces '" +
                       ranks.back() + "'; a chain is cut along a rank its last op keeps");
  return ranks;
}

Result<ir::Graph> apply_chain_splits(const ir::Graph& graph, const std::vector<OpSplit>& splits) {
  auto chains = chains_of(graph, splits);
  if (!chains) return chains.error();
  std::set<std::string> between;  // values replaced by their blocks
  for (const Chain& c : *chains)
    for (size_t j = c.first; j < c.last; ++j) between.insert(graph.ops()[j].einsum.output.tensor);
  ir::GraphBuilder b(graph.name());
  for (const ir::Tensor& t : graph.tensors())
    if (!between.count(t.name))
      if (Status s = b.add_tensor(t); !s) return s.error();
  auto chain = chains->begin();
  for (size_t i = 0; i < graph.ops().size(); ++i) {
    if (chain == chains->end() || i != chain->first) {
      if (auto added = b.add_op(graph.ops()[i]); !added) return added.error();
      continue;
    }
    const ir::Op& first = graph.ops()[i];
    auto parts = parts_of(extent_of(first, chain->ranks[0]), chain->blocks);
    if (parts.empty())
      return input_error(ir::op_context(first.name) +
                         fmt::format("rank '{}' of extent {} cannot be cut into {} blocks (2 or "
                                     "more, none of them empty)",
                                     chain->ranks[0], extent_of(first, chain->ranks[0]),
                                     chain->blocks));
    ChainBlocks blocks(graph, i, chain->ranks, std::move(parts), b);
    if (Status s = blocks.add(); !s) return s.error();
    i = chain->last;
    ++chain;
  }
  for (const std::string& out : graph.outputs())
    if (Status s = b.mark_output(out); !s) return s.error();
  return b.finish();
}

}  // namespace tessera::planner
