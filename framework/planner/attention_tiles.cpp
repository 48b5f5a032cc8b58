#include "framework/planner/attention_tiles.hpp"

#include <algorithm>

#include "framework/planner/chain_split.hpp"
#include "framework/planner/slicing.hpp"

namespace tessera::planner {

namespace {

// The last op of the attention whose scores op i writes, or 0: elementwise or unary ops (a
// soft-cap) after the scores, a softmax, then a batched matmul reducing the softmax's normalised
// rank (its last).
size_t attention_end(const ir::Graph& graph, size_t i) {
  const auto& ops = graph.ops();
  if (ops[i].kind != ir::OpKind::batched_matmul) return 0;
  size_t j = i + 1;
  while (j < ops.size() &&
         (ops[j].kind == ir::OpKind::unary || ops[j].kind == ir::OpKind::elementwise))
    ++j;
  if (j + 1 >= ops.size() || ops[j].kind != ir::OpKind::softmax ||
      ops[j + 1].kind != ir::OpKind::batched_matmul)
    return 0;
  std::string keys = continued_rank(graph, j, ops[j].einsum.ranks.back().name);
  return !keys.empty() && !uses_rank(ops[j + 1].einsum.output, keys) ? j + 1 : 0;
}

// The longest rank of op `first` the chain keeps through its last op; "" when none does.
std::string query_rank(const ir::Graph& graph, size_t first, size_t last) {
  std::string best;
  int64_t longest = 0;
  for (const ir::Rank& r : graph.ops()[first].einsum.ranks)
    if (r.extent > longest && chain_ranks(graph, first, last, r.name)) {
      best = r.name;
      longest = r.extent;
    }
  return best;
}

// The fewest blocks, a power of two up to one per position and kMaxBlocks, whose share of `bytes`
// fits `budget`; then as few as cut the extent into equal parts (parts_of) of that size.
int64_t blocks_for(double bytes, double budget, int64_t extent) {
  int64_t blocks = 2;
  while (blocks < std::min(extent, kMaxBlocks) && bytes / static_cast<double>(blocks) > budget)
    blocks *= 2;
  int64_t size = (extent + std::min(blocks, extent) - 1) / std::min(blocks, extent);
  return (extent + size - 1) / size;
}

}  // namespace

std::vector<OpSplit> attention_tiles(const ir::Graph& graph, const Machine& machine) {
  double sram =
      static_cast<double>(machine.cores) * static_cast<double>(machine.sram_bytes_per_core);
  std::vector<OpSplit> tiles;
  for (size_t i = 0; i < graph.ops().size(); ++i) {
    size_t last = attention_end(graph, i);
    if (last == 0) continue;
    double between = 0;  // scores, soft-capped scores, probabilities
    for (size_t j = i; j < last; ++j)
      between += graph.find_tensor(graph.ops()[j].einsum.output.tensor)->bytes();
    std::string rank = query_rank(graph, i, last);
    const ir::Op& scores = graph.ops()[i];
    if (between > sram && !rank.empty()) {
      int64_t blocks = blocks_for(between, sram, scores.einsum.find_rank(rank)->extent);
      if (blocks >= 2) tiles.push_back({scores.name, rank, blocks, graph.ops()[last].name});
    }
    i = last;
  }
  return tiles;
}

}  // namespace tessera::planner
