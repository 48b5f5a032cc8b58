#include "framework/planner/handoff.hpp"

#include <algorithm>
#include <bit>
#include <cstdlib>
#include <map>
#include <optional>
#include <string>
#include <utility>

namespace tessera::planner {

namespace {

// Beyond this many cells (both ops cut many dimensions finely) the placements are taken as
// unrelated rather than checked cell by cell.
constexpr double kMaxCells = double{1 << 20};
constexpr uint32_t kMaskChips = 64;  // chips a cell's holders are kept for, one bit each

// Bytes from chip a to chip b at [a * chips + b].
struct ChipMatrix {
  uint32_t chips;
  std::vector<double> bytes;
  explicit ChipMatrix(uint32_t n) : chips(n), bytes(size_t{n} * n, 0) {}
  void add(uint32_t from, uint32_t to, double b) { bytes[size_t{from} * chips + to] += b; }
  HandOff handoff() const {
    HandOff out;
    for (uint32_t a = 0; a < chips; ++a)
      for (uint32_t b = 0; b < chips; ++b)
        if (a != b && bytes[size_t{a} * chips + b] > 0)
          out.moves.push_back({a, b, bytes[size_t{a} * chips + b]});
    return out;
  }
};

// Per tensor dimension, the rank indexing it alone: stride 1 over the whole dimension, no offset
// (-1: a dimension of one position indexed by none); nullopt when `operand` is not indexed so or
// is a view of another shape than its storage's.
std::optional<std::vector<int>> dim_ranks(const ir::Operand& index,
                                          const partition::OperandShape& operand,
                                          const partition::OpShape& shape,
                                          const ir::Tensor& storage) {
  if (operand.dims != storage.shape || index.index.size() != operand.dims.size())
    return std::nullopt;
  std::vector<int> ranks;
  for (size_t d = 0; d < operand.dims.size(); ++d) {
    const ir::IndexExpr& e = index.index[d];
    if (e.is_indirect() || e.offset != 0) return std::nullopt;
    if (operand.terms[d].empty() && operand.dims[d] == 1) {
      ranks.push_back(-1);
      continue;
    }
    if (operand.terms[d].size() != 1) return std::nullopt;
    const partition::IndexTerm& t = operand.terms[d].front();
    if (t.coeff != 1 || shape.extents[t.rank] != operand.dims[d]) return std::nullopt;
    ranks.push_back(t.rank);
  }
  return ranks;
}

// Whether the op's merged output stays at the roots of its combine tree (not sent back down).
bool held_at_roots(const OpTraffic& t) {
  return t.combine_parts > 1 && t.combine_passes == 1;
}

// The plan cores holding the op's output once it is merged: the roots of the combine tree, or
// every core when nothing is merged or the merge is sent back down.
std::vector<uint32_t> holders(const OpTraffic& t) {
  std::vector<uint32_t> out;
  if (held_at_roots(t)) {
    for (size_t base = 0; base < t.combine_order.size(); base += t.combine_parts)
      out.push_back(t.combine_order[base]);
    return out;
  }
  for (uint32_t k = 0; k < t.cores; ++k) out.push_back(k);
  return out;
}

// One op's tiles along the tensor's dimensions: per dimension its rank (-1: unsplit), tile
// extent and factor, and the stride of each rank's digit in the plan's core index.
struct Cut {
  std::vector<int> rank;
  std::vector<int64_t> tile, factor;
  std::vector<int64_t> stride;  // per rank of the op
  int64_t digit(uint32_t core, size_t d) const {
    return rank[d] < 0 ? 0 : static_cast<int64_t>(core) / stride[rank[d]] % factor[d];
  }
  // The index of core's tile among the op's tiles of the tensor (mixed radix over the factors).
  size_t tile_of(uint32_t core) const {
    size_t index = 0;
    for (size_t d = rank.size(); d-- > 0;) index = index * factor[d] + digit(core, d);
    return index;
  }
  // tile_of(k) of every core k < cores: each dimension's digit counts cores up to its stride, then
  // steps, wrapping at its factor (core / stride % factor without dividing).
  std::vector<size_t> tiles_of_cores(uint32_t cores) const {
    std::vector<size_t> out(cores, 0), radix(rank.size(), 1);
    std::vector<int64_t> digit(rank.size(), 0), left(rank.size(), 0);
    for (size_t d = 0; d < rank.size(); ++d) {
      if (d > 0) radix[d] = radix[d - 1] * static_cast<size_t>(factor[d - 1]);
      if (rank[d] >= 0) left[d] = stride[rank[d]];
    }
    for (uint32_t k = 0; k < cores; ++k) {
      for (size_t d = 0; d < rank.size(); ++d) {
        out[k] += static_cast<size_t>(digit[d]) * radix[d];
        if (rank[d] >= 0 && --left[d] == 0) {
          left[d] = stride[rank[d]];
          if (++digit[d] == factor[d]) digit[d] = 0;
        }
      }
    }
    return out;
  }
  size_t tiles() const {
    size_t n = 1;
    for (int64_t f : factor) n *= static_cast<size_t>(f);
    return n;
  }
};

Cut cut_of(const std::vector<int>& ranks, const PlacedOp& op, const std::vector<int64_t>& dims) {
  Cut c{ranks, {}, {}, std::vector<int64_t>(op.exec->factors.size(), 1)};
  int64_t stride = 1;
  for (int r : op.traffic->order) {
    c.stride[r] = stride;
    stride *= op.exec->factors[r];
  }
  for (size_t d = 0; d < ranks.size(); ++d) {
    bool split = ranks[d] >= 0;
    c.tile.push_back(split ? op.exec->tile[ranks[d]] : dims[d]);
    c.factor.push_back(split ? op.exec->factors[ranks[d]] : 1);
  }
  return c;
}

// Per tile of `cut`, the chips (one bit each) of the op's `cores` cores that work on it.
std::vector<uint64_t> chips_per_tile(const Cut& cut, uint32_t cores, uint32_t chips) {
  std::vector<uint64_t> out(cut.tiles(), 0);
  const std::vector<size_t> tile = cut.tiles_of_cores(cores);
  for (uint32_t k = 0, chip = 0; k < cores; ++k) {
    // chip_of(k, cores, chips): the largest chip whose block starts at or before k.
    while (chip + 1 < chips && uint64_t{cores} * (chip + 1) / chips <= k) ++chip;
    out[tile[k]] |= uint64_t{1} << chip;
  }
  return out;
}

// Per dimension the bounds where either op's tiles start, and the dimension's end. Each op's
// starts ascend already, so the two are merged as they are stepped through: sorting them was 6 %
// of a Llama 2 13B compile on ipu-pod4-hbm3e (a dimension of 5120 cut into tiles of 1).
std::vector<std::vector<int64_t>> cell_bounds(const std::vector<int64_t>& dims, const Cut& a,
                                              const Cut& b) {
  std::vector<std::vector<int64_t>> bounds(dims.size());
  for (size_t d = 0; d < dims.size(); ++d) {
    const int64_t end = dims[d];
    for (int64_t at_a = 0, at_b = 0; at_a < end || at_b < end;) {
      const int64_t at = std::min(at_a, at_b);  // both below end, or the one that is
      bounds[d].push_back(at);
      if (at_a == at) at_a += a.tile[d];
      if (at_b == at) at_b += b.tile[d];
    }
    bounds[d].push_back(end);
  }
  return bounds;
}

// The holder chip nearest `chip` by index (ties: the lower), among the first `chips`.
uint32_t nearest(uint64_t holders, uint32_t chip, uint32_t chips) {
  uint32_t best = 0;
  int64_t best_distance = -1;
  for (uint32_t a = 0; a < chips; ++a) {
    if (!(holders >> a & 1)) continue;
    int64_t distance = std::llabs(int64_t{a} - int64_t{chip});
    if (best_distance < 0 || distance < best_distance) best = a, best_distance = distance;
  }
  return best;
}

// One dimension's cells: each one's extent, and the part its start adds to the index of the
// producer's and of the consumer's tile holding it (mixed radix, dimension 0 least significant).
struct CellAxis {
  std::vector<double> extent;
  std::vector<size_t> p_part, c_part;
};

std::vector<CellAxis> cell_axes(const std::vector<std::vector<int64_t>>& bounds, const Cut& p,
                                const Cut& c) {
  std::vector<CellAxis> axes(bounds.size());
  size_t p_radix = 1, c_radix = 1;
  for (size_t d = 0; d < bounds.size(); ++d) {
    for (size_t a = 0; a + 1 < bounds[d].size(); ++a) {
      const int64_t start = bounds[d][a];
      axes[d].extent.push_back(static_cast<double>(bounds[d][a + 1] - start));
      axes[d].p_part.push_back(p_radix *
                               static_cast<size_t>(std::min(start / p.tile[d], p.factor[d] - 1)));
      axes[d].c_part.push_back(c_radix *
                               static_cast<size_t>(std::min(start / c.tile[d], c.factor[d] - 1)));
    }
    p_radix *= static_cast<size_t>(p.factor[d]);
    c_radix *= static_cast<size_t>(c.factor[d]);
  }
  return axes;
}

// The exact rule (handoff.hpp): each cell of the tensor, from the nearest chip holding it to every
// chip needing it that does not. False when the cells are too many to check. Cells are visited
// with dimension 0 fastest, and a cell's bytes multiply its extents from the last dimension down
// to dimension 0: the outer dimensions' product is kept while dimension 0 runs, the same
// multiplications in the same order.
bool exact(const Cut& p, const PlacedOp& producer, const Cut& c, const PlacedOp& consumer,
           const std::vector<int64_t>& dims, double element_bytes, ChipMatrix& m) {
  auto bounds = cell_bounds(dims, p, c);
  double cells = 1;
  for (const auto& b : bounds) cells *= static_cast<double>(b.size() - 1);
  if (cells > kMaxCells) return false;
  const uint32_t chips = m.chips;
  std::vector<uint64_t> held(p.tiles(), 0);
  const OpTraffic& made = *producer.traffic;
  if (held_at_roots(made))
    for (uint32_t k : holders(made))
      held[p.tile_of(k)] |= uint64_t{1} << chip_of(k, made.cores, chips);
  else
    held = chips_per_tile(p, made.cores, chips);
  const std::vector<uint64_t> needed = chips_per_tile(c, consumer.traffic->cores, chips);
  std::vector<uint32_t> sender(held.size() * chips);  // per producer tile and needing chip
  for (size_t t = 0; t < held.size(); ++t)
    for (uint32_t to = 0; held[t] != 0 && to < chips; ++to)
      sender[t * chips + to] = nearest(held[t], to, chips);
  const std::vector<CellAxis> axes = cell_axes(bounds, p, c);
  const size_t rank = dims.size();
  const size_t inner = rank == 0 ? 1 : axes[0].extent.size();
  std::vector<size_t> at(rank, 0);  // the cell's outer dimensions (at[0] unused)
  for (bool more = true; more;) {
    double outer = element_bytes;
    size_t p_outer = 0, c_outer = 0;
    for (size_t d = rank; d-- > 1;) {
      outer *= axes[d].extent[at[d]];
      p_outer += axes[d].p_part[at[d]];
      c_outer += axes[d].c_part[at[d]];
    }
    for (size_t a = 0; a < inner; ++a) {
      const double bytes = rank == 0 ? outer : outer * axes[0].extent[a];
      const size_t pi = p_outer + (rank == 0 ? 0 : axes[0].p_part[a]);
      const size_t ci = c_outer + (rank == 0 ? 0 : axes[0].c_part[a]);
      if (held[pi] == 0) continue;
      for (uint64_t missing = needed[ci] & ~held[pi]; missing != 0; missing &= missing - 1) {
        const auto to = static_cast<uint32_t>(std::countr_zero(missing));
        m.add(sender[pi * chips + to], to, bytes);
      }
    }
    more = false;
    for (size_t d = 1; d < rank && !more; ++d) {
      if (++at[d] + 1 < bounds[d].size())
        more = true;
      else
        at[d] = 0;
    }
  }
  return true;
}

// The unrelated rule (handoff.hpp): chip c needs its tiles' share of the tensor, and each other
// chip sends the part of it that it holds.
void unrelated(const PlacedOp& producer, const PlacedOp& consumer,
               const partition::OperandShape& operand, double elements, ChipMatrix& m) {
  const uint32_t chips = m.chips;
  std::vector<double> hold(chips, 0), need(chips, 0);
  if (producer.traffic != nullptr) {
    std::vector<uint32_t> held = holders(*producer.traffic);
    for (uint32_t k : held)
      hold[chip_of(k, producer.traffic->cores, chips)] += 1.0 / static_cast<double>(held.size());
  } else {
    const uint32_t cores = producer.exec->cores_used;
    for (uint32_t k = 0; k < cores; ++k) hold[chip_of(k, cores, chips)] += 1.0 / cores;
  }
  const uint32_t cores = consumer.exec->cores_used;
  const double tile = partition::tile_elements(*consumer.shape, operand, consumer.exec->tile);
  for (uint32_t k = 0; k < cores; ++k) need[chip_of(k, cores, chips)] += tile / elements;
  for (uint32_t to = 0; to < chips; ++to)
    for (uint32_t from = 0; from < chips; ++from)
      if (from != to)
        m.add(from, to, elements * operand.element_bytes * std::min(1.0, need[to]) * hold[from]);
}

}  // namespace

double HandOff::bytes() const {
  double total = 0;
  for (const ChipMove& m : moves) total += m.bytes;
  return total;
}

bool hands_off(const Machine& machine) {
  return machine.chips > 1 && machine.chip_link_bytes_per_s > 0;
}

std::vector<std::vector<Source>> activation_sources(const ir::Graph& graph) {
  std::map<std::string, int> last_writer;  // by storage tensor
  std::vector<std::vector<Source>> out(graph.ops().size());
  for (size_t i = 0; i < graph.ops().size(); ++i) {
    const ir::Einsum& e = graph.ops()[i].einsum;
    for (size_t j = 0; j < e.inputs.size(); ++j) {
      const ir::Tensor& storage = graph.storage_tensor(e.inputs[j].tensor);
      if (storage.role != ir::TensorRole::activation) continue;
      if (auto it = last_writer.find(storage.name); it != last_writer.end())
        out[i].push_back({static_cast<int>(j), it->second});
    }
    last_writer[graph.storage_tensor(e.output.tensor).name] = static_cast<int>(i);
  }
  return out;
}

HandOff input_handoff(const ir::Graph& graph, int consumer, const Source& source,
                      const std::vector<PlacedOp>& placed, uint32_t chips) {
  const PlacedOp& p = placed[source.producer];
  const PlacedOp& c = placed[consumer];
  if (chips < 2 || p.shape == nullptr || c.shape == nullptr || p.exec == nullptr ||
      c.exec == nullptr)
    return {};
  const ir::Operand& read = graph.ops()[consumer].einsum.inputs[source.operand];
  const ir::Operand& written = graph.ops()[source.producer].einsum.output;
  const ir::Tensor& storage = graph.storage_tensor(read.tensor);
  const partition::OperandShape& operand = c.shape->operands[source.operand];
  ChipMatrix m(chips);
  std::optional<std::vector<int>> p_ranks, c_ranks;
  // Both placed in mixed radix on each chip's block of cores (not a plugin's own core digits).
  if (chips <= kMaskChips && p.traffic != nullptr && c.traffic != nullptr &&
      p.traffic->physical.empty() && c.traffic->physical.empty() && !p.traffic->order.empty() &&
      !c.traffic->order.empty()) {
    p_ranks = dim_ranks(written, p.shape->operands.back(), *p.shape, storage);
    c_ranks = dim_ranks(read, operand, *c.shape, storage);
  }
  bool done = p_ranks && c_ranks &&
              exact(cut_of(*p_ranks, p, storage.shape), p, cut_of(*c_ranks, c, storage.shape), c,
                    storage.shape, operand.element_bytes, m);
  if (!done) unrelated(p, c, operand, storage.elements(), m);
  return m.handoff();
}

HandOff merged(const std::vector<HandOff>& parts) {
  std::map<std::pair<uint32_t, uint32_t>, double> sum;
  for (const HandOff& h : parts)
    for (const ChipMove& m : h.moves) sum[{m.from_chip, m.to_chip}] += m.bytes;
  HandOff out;
  for (const auto& [pair, bytes] : sum) out.moves.push_back({pair.first, pair.second, bytes});
  return out;
}

}  // namespace tessera::planner
