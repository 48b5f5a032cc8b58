// Meshes found in a group's links, and the order of a group's chips around a ring.
#include <algorithm>
#include <deque>
#include <numeric>

#include "framework/collective/chip_graph.hpp"

namespace tessera::collective {
namespace {

// Per position in the group: the positions joined to it by links both ways, by ascending chip.
std::vector<std::vector<uint32_t>> duplex_neighbours(const ChipGraph& graph,
                                                     std::span<const uint32_t> group) {
  std::vector<uint32_t> by_chip(group.size());
  std::iota(by_chip.begin(), by_chip.end(), 0u);
  std::sort(by_chip.begin(), by_chip.end(),
            [&](uint32_t a, uint32_t b) { return group[a] < group[b]; });
  std::vector<std::vector<uint32_t>> out(group.size());
  for (uint32_t a = 0; a < group.size(); ++a)
    for (uint32_t b : by_chip)
      if (graph.link_between(group[a], group[b]) && graph.link_between(group[b], group[a]))
        out[a].push_back(b);
  return out;
}

// Hops from position `from` to every position, over the duplex neighbours only.
std::vector<uint32_t> hops_within(const std::vector<std::vector<uint32_t>>& neighbours,
                                  uint32_t from) {
  std::vector<uint32_t> hops(neighbours.size(), kNone);
  std::deque<uint32_t> queue{from};
  hops[from] = 0;
  while (!queue.empty()) {
    uint32_t at = queue.front();
    queue.pop_front();
    for (uint32_t next : neighbours[at])
      if (hops[next] == kNone) {
        hops[next] = hops[at] + 1;
        queue.push_back(next);
      }
  }
  return hops;
}

// The position of the corner with the smallest chip (two neighbours), or kNone.
uint32_t first_corner(const std::vector<std::vector<uint32_t>>& neighbours,
                      std::span<const uint32_t> group) {
  uint32_t corner = kNone;
  for (uint32_t at = 0; at < group.size(); ++at)
    if (neighbours[at].size() == 2 && (corner == kNone || group[at] < group[corner])) corner = at;
  return corner;
}

bool is_mesh(const ChipGraph& graph, const ChipMesh& mesh) {
  auto joined = [&](uint32_t a, uint32_t b) {
    return graph.link_between(a, b) && graph.link_between(b, a);
  };
  for (uint32_t row = 0; row < mesh.y; ++row)
    for (uint32_t col = 0; col < mesh.x; ++col) {
      uint32_t chip = mesh.chips[row * mesh.x + col];
      if (chip == kNone) return false;
      if (col + 1 < mesh.x && !joined(chip, mesh.chips[row * mesh.x + col + 1])) return false;
      if (row + 1 < mesh.y && !joined(chip, mesh.chips[(row + 1) * mesh.x + col])) return false;
    }
  return true;
}

}  // namespace

// Coordinates from hop counts: from the corner (0, 0) a chip is row + column hops away, from the
// far end of row 0 row + (x - 1 - column); row 0 is where the corner's second neighbour (0, 1) is
// one hop further than the corner. The layout is then checked link by link.
std::optional<ChipMesh> mesh_of(const ChipGraph& graph, std::span<const uint32_t> group) {
  if (group.size() < 4) return std::nullopt;
  auto neighbours = duplex_neighbours(graph, group);
  uint32_t corner = first_corner(neighbours, group);
  if (corner == kNone) return std::nullopt;
  auto from_corner = hops_within(neighbours, corner);
  auto from_below = hops_within(neighbours, neighbours[corner][1]);
  uint32_t x = 0, row_end = corner;
  for (uint32_t at = 0; at < group.size(); ++at)
    if (from_corner[at] != kNone && from_below[at] == from_corner[at] + 1) {
      ++x;
      if (from_corner[at] > from_corner[row_end]) row_end = at;
    }
  if (x < 2 || group.size() % x != 0 || group.size() / x < 2) return std::nullopt;
  ChipMesh mesh{x, static_cast<uint32_t>(group.size() / x),
                std::vector<uint32_t>(group.size(), kNone)};
  auto from_end = hops_within(neighbours, row_end);
  for (uint32_t at = 0; at < group.size(); ++at) {
    if (from_corner[at] == kNone) return std::nullopt;
    int64_t twice_col = int64_t{from_corner[at]} - from_end[at] + x - 1;
    if (twice_col < 0 || twice_col % 2 != 0) return std::nullopt;
    uint32_t col = static_cast<uint32_t>(twice_col / 2), row = from_corner[at] - col;
    if (col >= mesh.x || row >= mesh.y || mesh.chips[row * x + col] != kNone) return std::nullopt;
    mesh.chips[row * x + col] = group[at];
  }
  if (!is_mesh(graph, mesh)) return std::nullopt;
  return mesh;
}

namespace {

// A Hamiltonian cycle of a mesh with an even number of rows (or, transposed, columns): row 0
// left to right from column 1, back along row 1, ..., and home up column 0.
std::vector<uint32_t> snake(const ChipMesh& mesh) {
  bool rows_even = mesh.y % 2 == 0;
  uint32_t lines = rows_even ? mesh.y : mesh.x, length = rows_even ? mesh.x : mesh.y;
  auto at = [&](uint32_t line, uint32_t step) {
    return rows_even ? mesh.chips[line * mesh.x + step] : mesh.chips[step * mesh.x + line];
  };
  std::vector<uint32_t> order{at(0, 0)};
  for (uint32_t line = 0; line < lines; ++line)
    for (uint32_t i = 1; i < length; ++i) order.push_back(at(line, line % 2 == 0 ? i : length - i));
  for (uint32_t line = lines - 1; line > 0; --line) order.push_back(at(line, 0));
  return order;
}

// Both sides odd: no cycle exists (the mesh is bipartite with an odd number of chips), and this
// tour has the fewest hops, one step of two: the snake above over all rows but the last two,
// which go column by column, and one diagonal step to the last row's column 0.
std::vector<uint32_t> odd_snake(const ChipMesh& mesh) {
  auto at = [&](uint32_t row, uint32_t col) { return mesh.chips[row * mesh.x + col]; };
  std::vector<uint32_t> order{at(0, 0)};
  for (uint32_t row = 0; row + 2 < mesh.y; ++row)
    for (uint32_t i = 1; i < mesh.x; ++i) order.push_back(at(row, row % 2 == 0 ? i : mesh.x - i));
  for (uint32_t col = mesh.x - 1; col > 0; --col) {
    bool down = (mesh.x - 1 - col) % 2 == 0;
    order.push_back(at(down ? mesh.y - 2 : mesh.y - 1, col));
    order.push_back(at(down ? mesh.y - 1 : mesh.y - 2, col));
  }
  order.push_back(at(mesh.y - 1, 0));
  for (uint32_t row = mesh.y - 1; row-- > 1;) order.push_back(at(row, 0));
  return order;
}

// Depth-first search for a cycle of direct links through the group, trying the chips with the
// fewest unvisited neighbours first (Warnsdorff's rule), given up after `budget` steps.
class CycleSearch {
 public:
  CycleSearch(const ChipGraph& graph, std::span<const uint32_t> group)
      : group_(group), size_(group.size()), linked_(size_ * size_, 0), used_(size_, 0) {
    for (size_t a = 0; a < size_; ++a)
      for (size_t b = 0; b < size_; ++b)
        linked_[a * size_ + b] = graph.link_between(group[a], group[b]).has_value();
  }

  std::optional<std::vector<uint32_t>> find() {
    path_ = {0};
    used_[0] = 1;
    if (!extend()) return std::nullopt;
    std::vector<uint32_t> chips;
    for (uint32_t at : path_) chips.push_back(group_[at]);
    return chips;
  }

 private:
  // Enough for the rule to find the cycles of meshes, tori and full graphs of up to 64 chips at
  // once; a group without a cycle fails within it (a few milliseconds).
  static constexpr uint32_t kBudget = 4096;

  bool linked(uint32_t a, uint32_t b) const { return linked_[a * size_ + b] != 0; }
  // Unvisited neighbours of `at`, fewest onward choices first (ties: the smaller chip).
  std::vector<uint32_t> candidates(uint32_t at) const {
    std::vector<std::pair<uint32_t, uint32_t>> ranked;  // (onward choices, chip) per position
    std::vector<uint32_t> out;
    for (uint32_t b = 0; b < size_; ++b) {
      if (used_[b] || !linked(at, b)) continue;
      uint32_t onward = 0;
      for (uint32_t c = 0; c < size_; ++c) onward += !used_[c] && linked(b, c);
      ranked.emplace_back(onward, group_[b]);
      out.push_back(b);
    }
    std::vector<uint32_t> order(out.size());
    std::iota(order.begin(), order.end(), 0u);
    std::sort(order.begin(), order.end(),
              [&](uint32_t i, uint32_t j) { return ranked[i] < ranked[j]; });
    for (uint32_t& i : order) i = out[i];
    return order;
  }
  bool extend() {
    if (path_.size() == size_) return linked(path_.back(), path_.front());
    for (uint32_t next : candidates(path_.back())) {
      if (++steps_ > kBudget) return false;
      path_.push_back(next);
      used_[next] = 1;
      if (extend()) return true;
      used_[next] = 0;
      path_.pop_back();
    }
    return false;
  }

  std::span<const uint32_t> group_;
  size_t size_;
  std::vector<uint8_t> linked_;  // size_ x size_: a link from position a to position b
  std::vector<uint8_t> used_;
  std::vector<uint32_t> path_;
  uint32_t steps_ = 0;
};

// Hops between every two positions of the group; unreachable pairs cost more than any path.
std::vector<std::vector<uint32_t>> hop_table(const ChipGraph& graph,
                                             std::span<const uint32_t> group) {
  std::vector<std::vector<uint32_t>> table(group.size(), std::vector<uint32_t>(group.size()));
  for (uint32_t a = 0; a < group.size(); ++a) {
    auto hops = graph.hops_from(group[a]);
    for (uint32_t b = 0; b < group.size(); ++b) table[a][b] = hops[group[b]].value_or(graph.chips);
  }
  return table;
}

uint64_t tour_hops(const std::vector<std::vector<uint32_t>>& hops,
                   const std::vector<uint32_t>& tour) {
  uint64_t total = 0;
  for (size_t i = 0; i < tour.size(); ++i) total += hops[tour[i]][tour[(i + 1) % tour.size()]];
  return total;
}

// Nearest neighbour from position 0 (ties: the earlier position), then 2-opt while it helps.
std::vector<uint32_t> fewest_hops_tour(const ChipGraph& graph, std::span<const uint32_t> group) {
  auto hops = hop_table(graph, group);
  std::vector<uint32_t> tour{0};
  std::vector<uint8_t> used(group.size(), 0);
  used[0] = 1;
  while (tour.size() < group.size()) {
    uint32_t best = kNone;
    for (uint32_t b = 0; b < group.size(); ++b)
      if (!used[b] && (best == kNone || hops[tour.back()][b] < hops[tour.back()][best])) best = b;
    used[best] = 1;
    tour.push_back(best);
  }
  for (bool better = true; better;) {
    better = false;
    for (size_t i = 1; i + 1 < tour.size(); ++i)
      for (size_t j = i + 1; j < tour.size(); ++j) {
        std::vector<uint32_t> trial = tour;
        std::reverse(trial.begin() + static_cast<ptrdiff_t>(i),
                     trial.begin() + static_cast<ptrdiff_t>(j) + 1);
        if (tour_hops(hops, trial) < tour_hops(hops, tour)) tour = std::move(trial), better = true;
      }
  }
  std::vector<uint32_t> chips;
  for (uint32_t at : tour) chips.push_back(group[at]);
  return chips;
}

// `order` rotated so that it starts at `first`.
std::vector<uint32_t> starting_at(std::vector<uint32_t> order, uint32_t first) {
  auto it = std::find(order.begin(), order.end(), first);
  std::rotate(order.begin(), it, order.end());
  return order;
}

}  // namespace

std::vector<uint32_t> ring_order(const ChipGraph& graph, std::span<const uint32_t> group) {
  if (group.size() <= 2) return {group.begin(), group.end()};
  auto mesh = mesh_of(graph, group);
  if (mesh)
    return starting_at(mesh->x % 2 == 0 || mesh->y % 2 == 0 ? snake(*mesh) : odd_snake(*mesh),
                       group[0]);
  if (auto cycle = CycleSearch(graph, group).find()) return *cycle;
  return fewest_hops_tour(graph, group);
}

}  // namespace tessera::collective
