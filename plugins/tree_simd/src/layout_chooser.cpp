#include "layout_chooser.hpp"

#include <algorithm>
#include <functional>
#include <set>
#include <tessera/sdk/error.hpp>

#include "text.hpp"

namespace tessera::plugins::tree {

namespace {

// Evaluating a candidate visits every element; more candidates than this take too long.
constexpr size_t kMaxCandidates = 4096;

using Divisions = std::vector<std::vector<uint64_t>>;  // [level][axis]

// Every tuple d (one per axis) with product `target` and d[a] <= room[a].
void tuples_with_product(uint64_t target, const std::vector<uint64_t>& room, size_t axis,
                         std::vector<uint64_t>& d,
                         const std::function<void(const std::vector<uint64_t>&)>& emit) {
  if (axis + 1 == room.size()) {
    if (target <= room[axis]) {
      d[axis] = target;
      emit(d);
    }
    return;
  }
  for (uint64_t x = 1; x <= std::min(target, room[axis]); ++x) {
    if (target % x != 0) continue;
    d[axis] = x;
    tuples_with_product(target / x, room, axis + 1, d, emit);
  }
}

// The shares of one level: all tuples using its whole fanout, or if the extents leave no room
// for that, those with the largest product that fits.
std::vector<std::vector<uint64_t>> level_shares(uint32_t fanout,
                                                const std::vector<uint64_t>& room) {
  std::vector<std::vector<uint64_t>> shares;
  std::vector<uint64_t> d(room.size(), 1);
  for (uint64_t product = fanout; product >= 1 && shares.empty(); --product) {
    if (fanout % product != 0) continue;
    tuples_with_product(product, room, 0, d,
                        [&](const std::vector<uint64_t>& t) { shares.push_back(t); });
  }
  return shares;
}

struct Enumeration {
  const TreeChip& chip;
  const std::vector<uint64_t>& extents;
  uint32_t memory_level;
  size_t limit;
  bool distinct_totals;
  std::set<std::pair<uint32_t, std::vector<uint64_t>>> visited;  // (level, split so far)
  std::vector<Divisions> out;
};

void enumerate(Enumeration& e, uint32_t level, std::vector<uint64_t>& split, Divisions& current) {
  if (e.distinct_totals && !e.visited.insert({level, split}).second) return;
  if (level > e.memory_level) {
    e.out.push_back(current);
    if (e.out.size() > e.limit)
      throw sdk::Error(TESSERA_RESOURCE_EXHAUSTED,
                       "more than " + std::to_string(e.limit) +
                           " ways to share the blocks; use a tensor with fewer axes");
    return;
  }
  std::vector<uint64_t> room(e.extents.size());
  for (size_t a = 0; a < e.extents.size(); ++a) room[a] = e.extents[a] / split[a];
  for (const auto& share : level_shares(e.chip.level(level).fanout, room)) {
    for (size_t a = 0; a < e.extents.size(); ++a) split[a] *= share[a];
    current.push_back(share);
    enumerate(e, level + 1, split, current);
    current.pop_back();
    for (size_t a = 0; a < e.extents.size(); ++a) split[a] /= share[a];
  }
}

// Row-major strides over `d`: the last axis steps by 1.
std::vector<uint64_t> row_major(const std::vector<uint64_t>& d) {
  std::vector<uint64_t> strides(d.size(), 1);
  for (size_t a = d.size(); a-- > 1;) strides[a - 1] = strides[a] * d[a];
  return strides;
}

}  // namespace

std::vector<Divisions> enumerate_shares(const TreeChip& chip, const std::vector<uint64_t>& extents,
                                        uint32_t memory_level, size_t limit, bool distinct_totals) {
  Enumeration e{chip, extents, memory_level, limit, distinct_totals, {}, {}};
  std::vector<uint64_t> split(extents.size(), 1);
  Divisions current;
  enumerate(e, 0, split, current);
  return std::move(e.out);
}

std::string blocked_layout_text(const TreeChip& chip, const std::vector<uint64_t>& extents,
                                const std::vector<uint32_t>& axes, const Divisions& divisions,
                                uint32_t memory_level, uint64_t base) {
  std::vector<uint64_t> split(extents.size(), 1);
  for (uint32_t k = 0; k <= memory_level; ++k)
    for (size_t r = 0; r < extents.size(); ++r) split[r] *= divisions[k][r];
  std::vector<std::vector<std::string>> items(axes.size());
  for (uint32_t k = 0; k <= memory_level; ++k) {
    const std::string& name = chip.level(k).name;
    std::vector<uint64_t> strides = row_major(divisions[k]);
    bool named = false;
    size_t copy_axis = 0;  // the next axis without a copy item of this level
    for (uint32_t r = 0; r < extents.size(); ++r) {
      if (divisions[k][r] == 1) continue;
      std::string item =
          std::to_string(divisions[k][r]) + "_" + name + ":" + std::to_string(strides[r]);
      // A rank the tensor lacks replicates it over that rank's blocks.
      auto axis = std::find(axes.begin(), axes.end(), r);
      if (axis == axes.end()) {
        if (copy_axis == axes.size())
          throw sdk::Error(TESSERA_RESOURCE_EXHAUSTED,
                           "level " + name + " replicates a " + std::to_string(axes.size()) +
                               "-axis tensor over more ranks than it has axes");
        items[copy_axis++].push_back("*" + item);
      } else
        items[static_cast<size_t>(axis - axes.begin())].push_back(item);
      named = true;
    }
    // The deepest level named holds the data, so the memory level is always named.
    if (k == memory_level && !named) items[0].push_back("1_" + name + ":0");
  }
  std::vector<uint64_t> tile;
  for (uint32_t r : axes) tile.push_back((extents[r] + split[r] - 1) / split[r]);
  std::vector<uint64_t> strides = row_major(tile);
  std::vector<std::string> groups;
  for (size_t a = 0; a < axes.size(); ++a) {
    items[a].push_back(std::to_string(tile[a]) + "_Addr:" + std::to_string(strides[a]));
    groups.push_back("(" + join(items[a], ", ") + ")");
  }
  return "(" + join(groups, ", ") + ")" + (base != 0 ? "@" + std::to_string(base) : "");
}

std::string LayoutCandidate::summary() const {
  std::vector<std::string> crossings;
  const auto& levels = traffic.per_level();
  for (uint32_t k = 0; k < levels.size(); ++k)
    if (levels[k].crossings > 0)
      crossings.push_back(layout->chip().level(k).name + " " + std::to_string(levels[k].crossings));
  std::string text = "cost " + seconds_text(seconds()) + " = compute " +
                     seconds_text(compute_seconds) + " + comm " + seconds_text(comm_seconds);
  text += crossings.empty() ? "; no crossings" : "; crossings " + join(crossings, ", ");
  uint64_t padded = layout->padded_elements() - layout->elements();
  if (padded > 0) text += "; padding " + std::to_string(padded);
  return text;
}

std::vector<LayoutCandidate> choose_layouts(std::shared_ptr<const TreeChip> chip,
                                            const std::vector<uint64_t>& shape,
                                            const AccessPattern& pattern,
                                            std::optional<uint32_t> memory_level) {
  uint32_t m = memory_level.value_or(chip->lowest_level());
  if (shape.empty() || std::find(shape.begin(), shape.end(), 0u) != shape.end())
    throw sdk::invalid_argument("a tensor to lay out needs at least one axis and no empty axis");
  std::vector<Divisions> assignments = enumerate_shares(*chip, shape, m, kMaxCandidates);
  std::vector<uint32_t> every_axis(shape.size());
  for (uint32_t a = 0; a < every_axis.size(); ++a) every_axis[a] = a;
  std::vector<LayoutCandidate> candidates;
  std::string last_problem;
  double element_seconds = chip->element_bytes() / chip->vector_bytes_per_s();
  for (const Divisions& d : assignments) {
    std::shared_ptr<const TreeLayout> layout;
    try {
      layout = std::make_shared<const TreeLayout>(
          chip, parse_layout_text(blocked_layout_text(*chip, shape, every_axis, d, m)), shape);
    } catch (const sdk::Error& e) {
      last_problem = e.what();
      continue;
    }
    LayoutCandidate c{layout, pattern_traffic(*layout, pattern), 0, 0};
    c.compute_seconds = static_cast<double>(layout->addresses_per_block()) *
                        pattern.ops_per_element * element_seconds;
    c.comm_seconds = c.traffic.spread_seconds();
    candidates.push_back(std::move(c));
  }
  if (candidates.empty())
    throw sdk::Error(TESSERA_RESOURCE_EXHAUSTED, "no layout of this tensor fits the chip's " +
                                                     chip->level(m).name +
                                                     " memories: " + last_problem);
  std::stable_sort(
      candidates.begin(), candidates.end(),
      [](const LayoutCandidate& a, const LayoutCandidate& b) { return a.seconds() < b.seconds(); });
  return candidates;
}

}  // namespace tessera::plugins::tree
