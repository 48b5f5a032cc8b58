#include "framework/planner/op_traffic.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>
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

// One digit of the plan's cores' mixed radix: `count` blocks of `rank`, the plan's core index
// moving `stride` per block. A rank's block index counts over its digits, the first fastest.
struct Digit {
  int rank = 0;
  int64_t count = 1;
  int64_t stride = 1;
};

// The digits of a placement given as an order of the ranks (one digit each, fastest first).
std::vector<Digit> digits_of(const std::vector<int>& order, const std::vector<int64_t>& factors) {
  std::vector<Digit> digits;
  int64_t stride = 1;
  for (int r : order) {
    digits.push_back({r, factors[r], stride});
    stride *= factors[r];
  }
  return digits;
}

// The digits of a plugin's core_digits, in their order (the first fastest).
std::vector<Digit> digits_of(const std::vector<CoreDigit>& core_digits) {
  std::vector<Digit> digits;
  int64_t stride = 1;
  for (const CoreDigit& d : core_digits) {
    digits.push_back({d.rank, d.count, stride});
    stride *= d.count;
  }
  return digits;
}

// The cores sharing a tile (differing only on the ranks it ignores), for each of `operands` (a
// tile's uses_rank) over one walk of the plan's cores: groups of equal size (the product of the
// ignored ranks' factors), numbered as they first appear, each in core order, one after another in
// `members`; group[k] and member[k] say where core k is.
struct Sharing {
  uint32_t size = 1;
  std::vector<uint32_t> members, group, member;
};

// The cores count in mixed radix over the digits (the first fastest), so core k's group is the
// mixed-radix number of its digits on the used ranks and its member that of its other digits: a
// group first appears at its core with zeros on the others, and those cores come in the order of
// their used digits.
std::vector<Sharing> sharing(const std::vector<const std::vector<bool>*>& operands,
                             const std::vector<Digit>& digits, uint32_t cores) {
  const size_t n = operands.size();
  std::vector<Sharing> out(n);
  // The digits that count (more than one block), with what one step of each adds, per operand, to
  // the group (a used rank's digit) or to the member (another's).
  struct Counter {
    uint32_t count;
    std::vector<uint32_t> group_step, member_step;
  };
  std::vector<Counter> counters;
  std::vector<uint32_t> groups(n, 1);
  for (const Digit& d : digits) {
    if (d.count <= 1) continue;
    Counter& c = counters.emplace_back(Counter{
        static_cast<uint32_t>(d.count), std::vector<uint32_t>(n, 0), std::vector<uint32_t>(n, 0)});
    for (size_t j = 0; j < n; ++j) {
      if ((*operands[j])[static_cast<size_t>(d.rank)]) {
        c.group_step[j] = groups[j];
        groups[j] *= c.count;
      } else {
        c.member_step[j] = out[j].size;
        out[j].size *= c.count;
      }
    }
  }
  for (Sharing& s : out) {
    s.members.resize(cores);
    s.group.resize(cores);
    s.member.resize(cores);
  }
  std::vector<uint32_t> digit(counters.size(), 0), group(n, 0), member(n, 0);
  for (uint32_t k = 0; k < cores; ++k) {
    for (size_t i = 0; k > 0 && i < counters.size(); ++i) {  // k = k - 1 + 1: carry
      const Counter& c = counters[i];
      if (++digit[i] < c.count) {
        for (size_t j = 0; j < n; ++j) {
          group[j] += c.group_step[j];
          member[j] += c.member_step[j];
        }
        break;
      }
      for (size_t j = 0; j < n; ++j) {
        group[j] -= (c.count - 1) * c.group_step[j];
        member[j] -= (c.count - 1) * c.member_step[j];
      }
      digit[i] = 0;
    }
    for (size_t j = 0; j < n; ++j) {
      Sharing& s = out[j];
      s.group[k] = group[j];
      s.member[k] = member[j];
      s.members[size_t{group[j]} * s.size + member[j]] = k;
    }
  }
  return out;
}

// Every member of a group passes to the next of its ring of `ring` consecutive members.
std::vector<uint32_t> rings(const Sharing& s, uint32_t cores, int64_t ring) {
  std::vector<uint32_t> next(cores);
  auto size = static_cast<uint32_t>(std::min<int64_t>(ring, s.size));
  // The member after each member index, the same in every group (two divisions per member, not
  // per core).
  std::vector<uint32_t> after(s.size);
  for (uint32_t m = 0; m < s.size; ++m) {
    uint32_t first = m / size * size;
    after[m] = first + (m - first + 1) % size;
  }
  for (uint32_t k = 0; k < cores; ++k)
    next[k] = s.members[size_t{s.group[k]} * s.size + after[s.member[k]]];
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

namespace {

// The distance between the partners of the combine tree's transfers at `step`, and whether they
// go down the tree (the second pass).
std::pair<uint32_t, bool> combine_half(const OpTraffic& t, int step) {
  const int levels = t.combine_levels();
  const bool down = step >= levels;
  return {1u << (down ? 2 * levels - 1 - step : step), down};
}

}  // namespace

std::vector<std::pair<uint32_t, uint32_t>> combine_transfers(const OpTraffic& t, int step) {
  const auto [half, down] = combine_half(t, step);
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

double combine_step_bytes(const OpTraffic& t, int step) {
  // combine_transfers' count without listing them: per run of combine_parts (the last may be cut
  // short), the i = half, 3 half, 5 half, ... below its end.
  const uint32_t half = combine_half(t, step).first;
  size_t count = 0;
  for (uint32_t base = 0; base < t.cores; base += t.combine_parts) {
    const uint32_t end = std::min(t.combine_parts, t.cores - base);
    if (end > half) count += (end - half + 2 * half - 1) / (2 * half);
  }
  const double transfers = static_cast<double>(t.combine_passes) *
                           static_cast<double>(t.cores - t.cores / t.combine_parts);
  return t.combine_bytes * static_cast<double>(count) / transfers;
}

namespace {

// Per rank: whether the output's tile varies over it (the combined ranks: no).
std::vector<bool> output_tile_ranks(const partition::OpShape& op) {
  std::vector<bool> uses;
  for (bool combined : op.combined) uses.push_back(!combined);
  return uses;
}

// The brief of the op's exchanges with the plan's cores counting in mixed radix over `digits`.
Result<PlacementBrief> brief(const partition::OpShape& op, const ExecPlan& exec,
                             const std::vector<Digit>& digits, int main_input) {
  PlacementBrief b;
  OpTraffic& t = b.sizes;
  t.cores = exec.cores_used;
  for (size_t r = 0; r < exec.factors.size(); ++r)
    if (op.combined[r]) t.combine_parts *= static_cast<uint32_t>(exec.factors[r]);
  t.rotation_bytes = std::max(0.0, exec.shift_bytes - exec.combine_bytes);
  t.combine_passes = op.kind == ir::OpKind::softmax || op.kind == ir::OpKind::normalization ? 2 : 1;
  t.combine_bytes = exec.combine_bytes;
  b.rotates = exec.rotated_operand >= 0;
  b.rotation_shape = {t.cores, b.rotates ? static_cast<uint32_t>(exec.rotation_steps) : 0};
  b.combine_shape = {t.cores};
  b.gather_shape = {t.cores};
  // A digit of an exchange's shape: consecutive digits alike (the exchange's operand varies over
  // both or neither) are one digit of their counts' product, as the cores count over them.
  auto extend = [](std::vector<uint32_t>& shape, size_t header, uint32_t count, bool varies) {
    if (shape.size() > header && shape.back() == (varies ? 1u : 0u))
      shape[shape.size() - 2] *= count;
    else
      shape.insert(shape.end(), {count, varies ? 1u : 0u});
  };
  int64_t rotated_sharing = 1, main_sharing = 1;  // the cores sharing each tile
  for (const Digit& d : digits) {
    if (d.count <= 1) continue;
    const auto r = static_cast<size_t>(d.rank);
    const auto count = static_cast<uint32_t>(d.count);
    const bool rotated = b.rotates && op.operands[exec.rotated_operand].uses_rank[r];
    const bool main = main_input >= 0 && op.operands[main_input].uses_rank[r];
    if (!rotated) rotated_sharing *= d.count;
    if (!main) main_sharing *= d.count;
    extend(b.rotation_shape, 2, count, rotated);
    extend(b.combine_shape, 1, count, !op.combined[r]);
    extend(b.gather_shape, 1, count, main);
  }
  if (b.rotates && rotated_sharing % exec.rotation_steps != 0)
    return input_error("exec.rotation_steps: " + std::to_string(exec.rotation_steps) +
                       " does not divide the " + std::to_string(rotated_sharing) +
                       " cores sharing the rotated operand; re-run tessera compile");
  b.gathers = main_input >= 0 && main_sharing > 1;
  return b;
}

// The op's exchanges with the plan's cores counting in mixed radix over `digits`.
Result<OpTraffic> place(const partition::OpShape& op, const ExecPlan& exec,
                        const std::vector<Digit>& digits, int main_input) {
  auto b = brief(op, exec, digits, main_input);
  if (!b) return b.error();
  OpTraffic t = std::move(b->sizes);
  // The rotated operand's, the output's and the main input's sharing, in one walk.
  const std::vector<bool> tile_of_output = output_tile_ranks(op);
  std::vector<const std::vector<bool>*> operands;
  if (b->rotates) operands.push_back(&op.operands[exec.rotated_operand].uses_rank);
  if (t.combine_parts > 1) operands.push_back(&tile_of_output);
  if (b->gathers) operands.push_back(&op.operands[main_input].uses_rank);
  std::vector<Sharing> shared = sharing(operands, digits, t.cores);
  auto next = shared.begin();
  if (b->rotates) t.rotation_next = rings(*next++, t.cores, exec.rotation_steps);
  if (t.combine_parts > 1) t.combine_order = std::move(next++->members);
  if (b->gathers) t.gather_next = rings(*next, t.cores, t.cores);
  return t;
}

Result<OpTraffic> place(const partition::OpShape& op, const ExecPlan& exec,
                        const std::vector<int>& order, int main_input) {
  auto t = place(op, exec, digits_of(order, exec.factors), main_input);
  if (t) t->order = order;
  return t;
}

// Each plan core's Topology core under the plugin's core_digits; errors name the field.
Result<std::vector<uint32_t>> cores_of(const partition::OpShape& op, const ExecPlan& exec) {
  std::vector<int64_t> product(op.extents.size(), 1);
  for (const CoreDigit& d : exec.core_digits) {
    if (d.rank < 0 || d.rank >= static_cast<int>(op.extents.size()) || d.count < 1 ||
        d.core_stride < 0 || d.core_stride > int64_t{UINT32_MAX})
      return input_error(fmt::format(
          "exec.core_digits: [{}, {}, {}] is not a digit [rank < {}, count >= 1, core stride >= 0]",
          d.rank, d.count, d.core_stride, op.extents.size()));
    product[d.rank] *= d.count;
  }
  if (product != exec.factors)
    return input_error(
        "exec.core_digits: each rank's counts must multiply to its exec.factors; "
        "re-run tessera compile");
  std::vector<uint32_t> physical(exec.cores_used, 0);
  std::vector<int64_t> digit(exec.core_digits.size(), 0);
  int64_t core = 0;
  for (uint32_t k = 0; k < exec.cores_used; ++k) {
    for (size_t i = 0; k > 0 && i < digit.size(); ++i) {  // k = k - 1 + 1, as sharing() counts
      const CoreDigit& d = exec.core_digits[i];
      if (++digit[i] < d.count) {
        core += d.core_stride;
        break;
      }
      core -= (d.count - 1) * d.core_stride;
      digit[i] = 0;
    }
    if (core > int64_t{UINT32_MAX})
      return input_error(
          "exec.core_digits: a tile's core is beyond any chip's; re-run tessera compile");
    physical[k] = static_cast<uint32_t>(core);
  }
  std::vector<uint32_t> sorted = physical;
  std::sort(sorted.begin(), sorted.end());
  if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end())
    return input_error(
        fmt::format("exec.core_digits: two tiles on core {}; every tile needs its own core",
                    *std::adjacent_find(sorted.begin(), sorted.end())));
  return physical;
}

// Bytes of one exchange's transfers between chips (chip[k]: core k's): `bytes` over all of them.
double crossing(const std::vector<std::pair<uint32_t, uint32_t>>& between, double bytes,
                const std::vector<uint32_t>& chip) {
  if (between.empty()) return 0;
  size_t crossing = 0;
  for (auto [a, b] : between) crossing += chip[a] != chip[b];
  return bytes * static_cast<double>(crossing) / static_cast<double>(between.size());
}

std::vector<std::pair<uint32_t, uint32_t>> moves(const std::vector<uint32_t>& next) {
  std::vector<std::pair<uint32_t, uint32_t>> out;
  for (uint32_t k = 0; k < next.size(); ++k)
    if (next[k] != k) out.emplace_back(k, next[k]);
  return out;
}

double exchange_cross_chip_bytes(const OpTraffic& t, double distribute_bytes,
                                 const std::vector<uint32_t>& chip) {
  double bytes = crossing(moves(t.rotation_next), t.rotation_bytes, chip) +
                 crossing(moves(t.gather_next), distribute_bytes, chip);
  const int steps = t.combine_passes * t.combine_levels();
  const double partials = static_cast<double>(t.combine_passes) *
                          static_cast<double>(t.cores - t.cores / t.combine_parts);
  for (int step = 0; step < steps; ++step) {
    auto between = combine_transfers(t, step);
    bytes +=
        crossing(between, t.combine_bytes * static_cast<double>(between.size()) / partials, chip);
  }
  return bytes;
}

}  // namespace

std::vector<std::vector<int>> placement_orders(const partition::OpShape& op, const ExecPlan& exec) {
  std::vector<int> order = default_order(op);
  std::vector<std::vector<int>> orders{order};
  // The split ranks' orders (the unsplit ones go last: they change no core).
  std::vector<int> split, rest;
  for (int r : order) (exec.factors[r] > 1 ? split : rest).push_back(r);
  if (split.size() < 2 || split.size() > kMaxPlacementRanks) return orders;
  std::vector<int> candidate = split;
  std::sort(candidate.begin(), candidate.end());
  do {
    std::vector<int> full = candidate;
    full.insert(full.end(), rest.begin(), rest.end());
    if (full != order) orders.push_back(std::move(full));
  } while (std::next_permutation(candidate.begin(), candidate.end()));
  return orders;
}

namespace {

// The rectangle of `columns` columns, when the order's digits can be cut there and it has rows
// enough and not too many.
std::optional<GridPlacement> rectangle(const ExecPlan& exec, const std::vector<int>& order,
                                       const CoreGrid& grid, int64_t columns) {
  std::vector<CoreDigit> digits;
  int64_t count = 1;  // along the row, then down the rows
  bool down = false;
  for (int r : order) {
    int64_t n = exec.factors[static_cast<size_t>(r)];
    if (n <= 1) continue;
    if (!down && count * n >= columns) {  // the row ends inside this rank's factor, or after it
      const int64_t along = columns / count;
      if (columns % count != 0 || n % along != 0) return std::nullopt;
      if (along > 1) digits.push_back({r, along, count});
      down = true;
      count = 1;
      n /= along;
      if (n == 1) continue;
    }
    digits.push_back({r, n, down ? count * grid.columns : count});
    count *= n;
  }
  if (!down || count < 2 || count > grid.rows) return std::nullopt;
  return GridPlacement{std::move(digits), static_cast<uint32_t>(columns)};
}

}  // namespace

std::vector<GridPlacement> grid_placements(const ExecPlan& exec, const std::vector<int>& order,
                                           const CoreGrid& grid) {
  std::vector<GridPlacement> out;
  if (exec.cores_used <= grid.columns) return out;
  std::optional<GridPlacement> widest, widest_power_of_two;
  for (int64_t columns = grid.columns; columns >= 1 && !widest_power_of_two; --columns) {
    const bool power_of_two = (columns & (columns - 1)) == 0;
    if (widest && !power_of_two) continue;
    auto placed = rectangle(exec, order, grid, columns);
    if (!placed) continue;
    if (!widest) widest = placed;
    if (power_of_two) widest_power_of_two = placed;
  }
  for (auto* p : {&widest, &widest_power_of_two})
    if (*p && (*p)->columns != grid.columns && (out.empty() || out[0].columns != (*p)->columns))
      out.push_back(std::move(**p));
  return out;
}

std::vector<int> local_order(const partition::OpShape& op, const ExecPlan& exec,
                             double distribute_bytes) {
  std::vector<double> weight(op.extents.size(), 0);
  const int main_input = largest_hbm_input(op, exec);
  for (size_t r = 0; r < weight.size(); ++r) {
    if (exec.rotated_operand >= 0 && !op.operands[exec.rotated_operand].uses_rank[r])
      weight[r] += std::max(0.0, exec.shift_bytes - exec.combine_bytes);
    if (op.combined[r]) weight[r] += exec.combine_bytes;
    if (main_input >= 0 && !op.operands[main_input].uses_rank[r]) weight[r] += distribute_bytes;
  }
  std::vector<int> order = default_order(op);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
    bool split_a = exec.factors[a] > 1, split_b = exec.factors[b] > 1;
    return split_a != split_b ? split_a : weight[a] > weight[b];
  });
  return order;
}

namespace {

// op_traffic_at's checks of the plan and the order.
Status check_order(const partition::OpShape& op, const ExecPlan& exec,
                   const std::vector<int>& order) {
  if (auto bad = check_fields(op, exec); !bad) return bad;
  std::vector<int> sorted = order, ranks(op.extents.size());
  std::sort(sorted.begin(), sorted.end());
  std::iota(ranks.begin(), ranks.end(), 0);
  if (sorted != ranks)
    return input_error("exec.placement: not every one of the op's " +
                       std::to_string(op.extents.size()) + " ranks once; re-run tessera compile");
  return ok_status();
}

}  // namespace

Result<OpTraffic> op_traffic_at(const partition::OpShape& op, const ExecPlan& exec,
                                const std::vector<int>& order) {
  if (auto bad = check_order(op, exec, order); !bad) return bad.error();
  return place(op, exec, order, largest_hbm_input(op, exec));
}

Result<PlacementBrief> placement_brief(const partition::OpShape& op, const ExecPlan& exec,
                                       const std::vector<int>& order) {
  if (auto bad = check_order(op, exec, order); !bad) return bad.error();
  auto b = brief(op, exec, digits_of(order, exec.factors), largest_hbm_input(op, exec));
  if (b) b->sizes.order = order;
  return b;
}

Result<std::optional<OpTraffic>> op_traffic(const partition::OpShape& op, const ExecPlan& exec,
                                            double distribute_bytes, uint32_t chips) {
  if (exec.factors.empty()) return std::optional<OpTraffic>{};
  if (!exec.core_digits.empty()) {  // the digits first: they make the factors
    auto physical = cores_of(op, exec);
    if (!physical) return physical.error();
    if (auto bad = check_fields(op, exec); !bad) return bad.error();
    auto placed = place(op, exec, digits_of(exec.core_digits), largest_hbm_input(op, exec));
    if (!placed) return placed.error();
    placed->physical = std::move(*physical);
    return std::optional<OpTraffic>{std::move(*placed)};
  }
  if (!exec.placement.empty()) {
    auto placed = op_traffic_at(op, exec, exec.placement);
    if (!placed) return placed.error();
    return std::optional<OpTraffic>{std::move(*placed)};
  }
  if (auto bad = check_fields(op, exec); !bad) return bad.error();
  const int main_input = largest_hbm_input(op, exec);
  std::vector<std::vector<int>> orders = placement_orders(op, exec);
  auto best = place(op, exec, orders.front(), main_input);
  if (!best) return best.error();
  if (chips > 1 && orders.size() > 1) {
    std::vector<uint32_t> chip(exec.cores_used);
    for (uint32_t c = 0; c < chips; ++c)  // chip_of's blocks
      std::fill(chip.begin() + uint64_t{exec.cores_used} * c / chips,
                chip.begin() + uint64_t{exec.cores_used} * (c + 1) / chips, c);
    best->cross_chip_bytes = exchange_cross_chip_bytes(*best, distribute_bytes, chip);
    for (size_t o = 1; o < orders.size(); ++o) {
      auto placed = place(op, exec, orders[o], main_input);
      if (!placed) continue;  // a rotation this order cannot ring; the default stays
      placed->cross_chip_bytes = exchange_cross_chip_bytes(*placed, distribute_bytes, chip);
      if (placed->cross_chip_bytes < best->cross_chip_bytes) best = std::move(placed);
    }
  }
  return std::optional<OpTraffic>{std::move(*best)};
}

}  // namespace tessera::planner
