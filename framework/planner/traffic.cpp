#include "framework/planner/traffic.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <string>

namespace tessera::planner {

namespace {

// The default order: combined ranks fastest, then the others; within each, the last rank first.
std::vector<int> default_order(const partition::OpShape& op) {
  std::vector<int> order;
  for (bool combined : {true, false})
    for (size_t r = op.extents.size(); r-- > 0;)
      if (op.combined[r] == combined) order.push_back(static_cast<int>(r));
  return order;
}

std::vector<int64_t> strides_of(const std::vector<int>& order,
                                const std::vector<int64_t>& factors) {
  std::vector<int64_t> strides(factors.size(), 0);
  int64_t stride = 1;
  for (int r : order) {
    strides[r] = stride;
    stride *= factors[r];
  }
  return strides;
}

// The cores sharing `operand`'s tile (differing only on the ranks it ignores), each group in core
// order; group[k] and member[k] say where core k is.
struct Sharing {
  std::vector<std::vector<uint32_t>> groups;
  std::vector<uint32_t> group, member;
};

Sharing sharing(const partition::OperandShape& operand, const std::vector<int64_t>& factors,
                const std::vector<int64_t>& strides, uint32_t cores) {
  Sharing s;
  s.group.resize(cores);
  s.member.resize(cores);
  std::map<int64_t, uint32_t> index_of;  // the core of the tile's used-rank digits -> group
  for (uint32_t k = 0; k < cores; ++k) {
    int64_t key = 0;
    for (size_t r = 0; r < factors.size(); ++r)
      if (operand.uses_rank[r]) key += (k / strides[r]) % factors[r] * strides[r];
    auto [it, fresh] = index_of.try_emplace(key, static_cast<uint32_t>(s.groups.size()));
    if (fresh) s.groups.emplace_back();
    s.group[k] = it->second;
    s.member[k] = static_cast<uint32_t>(s.groups[it->second].size());
    s.groups[it->second].push_back(k);
  }
  return s;
}

// Every member of a group passes to the next of its ring of `ring` consecutive members.
std::vector<uint32_t> rings(const Sharing& s, uint32_t cores, int64_t ring) {
  std::vector<uint32_t> next(cores);
  for (uint32_t k = 0; k < cores; ++k) {
    const auto& g = s.groups[s.group[k]];
    auto size = static_cast<uint32_t>(std::min<int64_t>(ring, static_cast<int64_t>(g.size())));
    uint32_t m = s.member[k], first = m / size * size;
    next[k] = g[first + (m - first + 1) % size];
  }
  return next;
}

// The HBM input whose tile is largest: what distribute_data mostly moves.
int largest_hbm_input(const partition::OpShape& op, const ExecPlan& exec) {
  int best = -1;
  double best_bytes = 0;
  for (size_t i = 0; i + 1 < op.operands.size(); ++i) {
    const auto& operand = op.operands[i];
    if (!operand.in_hbm || operand.is_output) continue;
    double bytes = partition::tile_elements(op, operand, exec.tile) * operand.element_bytes;
    if (best < 0 || bytes > best_bytes) best = static_cast<int>(i), best_bytes = bytes;
  }
  return best;
}

Status check_fields(const partition::OpShape& op, const ExecPlan& exec) {
  if (exec.factors.size() != op.extents.size())
    return input_error("exec.factors: " + std::to_string(exec.factors.size()) +
                       " factors for an op of " + std::to_string(op.extents.size()) +
                       " ranks; re-run tessera compile");
  double product = 1;
  for (int64_t f : exec.factors) {
    if (f < 1) return input_error(fmt::format("exec.factors: {} is not a core count (>= 1)", f));
    product *= static_cast<double>(f);
  }
  if (product != exec.cores_used || exec.tile.size() != op.extents.size())
    return input_error(fmt::format(
        "exec.factors: their product {:g} is not cores_used {} (or the tile has not one extent "
        "per rank); re-run tessera compile",
        product, exec.cores_used));
  if (exec.rotation_steps < 1 || exec.rotated_operand >= static_cast<int>(op.operands.size()) - 1)
    return input_error("exec.rotated_operand, exec.rotation_steps: operand " +
                       std::to_string(exec.rotated_operand) + " in " +
                       std::to_string(exec.rotation_steps) + " steps is not a rotation of one of " +
                       "the op's inputs; re-run tessera compile");
  return ok_status();
}

}  // namespace

int OpTraffic::combine_levels() const {
  return combine_parts > 1 ? static_cast<int>(std::ceil(std::log2(combine_parts))) : 0;
}

uint32_t chip_of(uint32_t core, uint32_t cores, uint32_t chips) {
  // The largest c with cores·c/chips <= core.
  auto c = static_cast<uint32_t>((uint64_t{core} * chips + chips - 1) / cores);
  while (c > 0 && uint64_t{cores} * c / chips > core) --c;
  while (c + 1 < chips && uint64_t{cores} * (c + 1) / chips <= core) ++c;
  return c;
}

std::vector<std::pair<uint32_t, uint32_t>> combine_transfers(const OpTraffic& t, int step) {
  const int levels = t.combine_levels();
  const bool down = step >= levels;
  const uint32_t half = 1u << (down ? 2 * levels - 1 - step : step);
  std::vector<std::pair<uint32_t, uint32_t>> out;
  const auto& at = t.combine_order;
  for (uint32_t base = 0; base < at.size(); base += t.combine_parts) {
    for (uint32_t i = half; i < t.combine_parts && base + i < at.size(); i += 2 * half) {
      if (down)
        out.emplace_back(at[base + i - half], at[base + i]);
      else
        out.emplace_back(at[base + i], at[base + i - half]);
    }
  }
  return out;
}

namespace {

// The op's exchanges under one placement.
Result<OpTraffic> place(const partition::OpShape& op, const ExecPlan& exec,
                        const std::vector<int>& order, int main_input) {
  OpTraffic t;
  t.cores = exec.cores_used;
  t.order = order;
  std::vector<int64_t> strides = strides_of(order, exec.factors);
  if (exec.rotated_operand >= 0) {
    Sharing s = sharing(op.operands[exec.rotated_operand], exec.factors, strides, t.cores);
    if (static_cast<int64_t>(s.groups.front().size()) % exec.rotation_steps != 0)
      return input_error("exec.rotation_steps: " + std::to_string(exec.rotation_steps) +
                         " does not divide the " + std::to_string(s.groups.front().size()) +
                         " cores sharing the rotated operand; re-run tessera compile");
    t.rotation_next = rings(s, t.cores, exec.rotation_steps);
  }
  t.rotation_bytes = std::max(0.0, exec.shift_bytes - exec.combine_bytes);
  partition::OperandShape tile_of_output;  // varies over the combined ranks only
  for (size_t r = 0; r < exec.factors.size(); ++r) {
    if (op.combined[r]) t.combine_parts *= static_cast<uint32_t>(exec.factors[r]);
    tile_of_output.uses_rank.push_back(!op.combined[r]);
  }
  if (t.combine_parts > 1)
    for (const auto& g : sharing(tile_of_output, exec.factors, strides, t.cores).groups)
      t.combine_order.insert(t.combine_order.end(), g.begin(), g.end());
  t.combine_passes = op.kind == ir::OpKind::softmax || op.kind == ir::OpKind::normalization ? 2 : 1;
  t.combine_bytes = exec.combine_bytes;
  if (main_input >= 0) {
    Sharing s = sharing(op.operands[main_input], exec.factors, strides, t.cores);
    if (s.groups.front().size() > 1) t.gather_next = rings(s, t.cores, t.cores);
  }
  return t;
}

// Bytes of one exchange's transfers between chips: `bytes` over all of them.
double crossing(const std::vector<std::pair<uint32_t, uint32_t>>& between, double bytes,
                uint32_t cores, uint32_t chips) {
  if (between.empty()) return 0;
  size_t crossing = 0;
  for (auto [a, b] : between) crossing += chip_of(a, cores, chips) != chip_of(b, cores, chips);
  return bytes * static_cast<double>(crossing) / static_cast<double>(between.size());
}

std::vector<std::pair<uint32_t, uint32_t>> moves(const std::vector<uint32_t>& next) {
  std::vector<std::pair<uint32_t, uint32_t>> out;
  for (uint32_t k = 0; k < next.size(); ++k)
    if (next[k] != k) out.emplace_back(k, next[k]);
  return out;
}

double exchange_cross_chip_bytes(const OpTraffic& t, double distribute_bytes, uint32_t chips) {
  double bytes = crossing(moves(t.rotation_next), t.rotation_bytes, t.cores, chips) +
                 crossing(moves(t.gather_next), distribute_bytes, t.cores, chips);
  const int steps = t.combine_passes * t.combine_levels();
  const double partials = static_cast<double>(t.combine_passes) *
                          static_cast<double>(t.cores - t.cores / t.combine_parts);
  for (int step = 0; step < steps; ++step) {
    auto between = combine_transfers(t, step);
    bytes += crossing(between, t.combine_bytes * static_cast<double>(between.size()) / partials,
                      t.cores, chips);
  }
  return bytes;
}

}  // namespace

Result<std::optional<OpTraffic>> op_traffic(const partition::OpShape& op, const ExecPlan& exec,
                                            double distribute_bytes, uint32_t chips) {
  if (exec.factors.empty()) return std::optional<OpTraffic>{};
  if (auto bad = check_fields(op, exec); !bad) return bad.error();
  const int main_input = largest_hbm_input(op, exec);
  std::vector<int> order = default_order(op);
  auto best = place(op, exec, order, main_input);
  if (!best) return best.error();
  // The split ranks' orders (the unsplit ones go last: they change no core), least crossing wins.
  std::vector<int> split;
  for (int r : order)
    if (exec.factors[r] > 1) split.push_back(r);
  if (chips > 1 && split.size() > 1 && split.size() <= kMaxPlacementRanks) {
    best->cross_chip_bytes = exchange_cross_chip_bytes(*best, distribute_bytes, chips);
    std::vector<int> rest;
    for (int r : order)
      if (exec.factors[r] == 1) rest.push_back(r);
    std::vector<int> candidate = split;
    std::sort(candidate.begin(), candidate.end());
    do {
      std::vector<int> full = candidate;
      full.insert(full.end(), rest.begin(), rest.end());
      auto placed = place(op, exec, full, main_input);
      if (!placed) continue;  // a rotation this order cannot ring; the default stays
      placed->cross_chip_bytes = exchange_cross_chip_bytes(*placed, distribute_bytes, chips);
      if (placed->cross_chip_bytes < best->cross_chip_bytes) best = std::move(placed);
    } while (std::next_permutation(candidate.begin(), candidate.end()));
  }
  return std::optional<OpTraffic>{std::move(*best)};
}

}  // namespace tessera::planner
