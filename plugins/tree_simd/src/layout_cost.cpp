#include "layout_cost.hpp"

#include <algorithm>
#include <cstdio>
#include <tessera/sdk/error.hpp>

namespace tessera::plugins::tree {

namespace {

constexpr uint64_t kMaxPatternElements = 1u << 24;
constexpr uint32_t kMaxWindow = 15;

}  // namespace

// ---- Traffic -----------------------------------------------------------------------------------

Traffic::Traffic(const TreeChip& chip) : chip_(&chip), levels_(chip.num_levels()) {}

int32_t common_level(const TreeChip& chip, uint32_t level_a, uint64_t a, uint32_t level_b,
                     uint64_t b) {
  int32_t common = -1;
  for (uint32_t k = 0; k <= std::min(level_a, level_b); ++k) {
    if (a / chip.nodes_below(k, level_a) != b / chip.nodes_below(k, level_b)) break;
    common = static_cast<int32_t>(k);
  }
  return common;
}

void Traffic::add_move(uint32_t from_level, uint64_t from, uint32_t to_level, uint64_t to,
                       uint64_t elements) {
  if (from_level == to_level && from == to) return;
  int32_t common = common_level(*chip_, from_level, from, to_level, to);
  double bytes = static_cast<double>(elements) * chip_->element_bytes();
  auto cross = [&](uint32_t level, bool up) {
    const TreeLevel& l = chip_->level(level);
    LevelTraffic& t = levels_[level];
    t.crossings += elements;
    t.bytes += bytes;
    (up ? t.up_bytes : t.down_bytes) += bytes;
    t.link_seconds += bytes / (up ? l.up_bytes_per_s : l.down_bytes_per_s);
  };
  for (auto j = static_cast<int32_t>(from_level); j > common; --j)
    cross(static_cast<uint32_t>(j), true);
  for (auto j = common + 1; j <= static_cast<int32_t>(to_level); ++j)
    cross(static_cast<uint32_t>(j), false);
  moves_ += elements;
}

void Traffic::add(const Traffic& other) {
  for (size_t l = 0; l < levels_.size(); ++l) {
    const LevelTraffic& o = other.levels_[l];
    LevelTraffic& t = levels_[l];
    t.crossings += o.crossings;
    t.bytes += o.bytes;
    t.link_seconds += o.link_seconds;
    t.up_bytes += o.up_bytes;
    t.down_bytes += o.down_bytes;
  }
  moves_ += other.moves_;
}

uint64_t Traffic::crossings() const {
  uint64_t n = 0;
  for (const auto& t : levels_) n += t.crossings;
  return n;
}

double Traffic::link_seconds() const {
  double s = 0;
  for (const auto& t : levels_) s += t.link_seconds;
  return s;
}

double Traffic::spread_seconds() const {
  double s = 0;
  for (size_t l = 0; l < levels_.size(); ++l) {
    const TreeLevel& level = chip_->level(static_cast<uint32_t>(l));
    auto nodes = static_cast<double>(level.nodes);
    if (levels_[l].up_bytes > 0) s += levels_[l].up_bytes / (nodes * level.up_bytes_per_s);
    if (levels_[l].down_bytes > 0) s += levels_[l].down_bytes / (nodes * level.down_bytes_per_s);
  }
  return s;
}

// ---- Access patterns ---------------------------------------------------------------------------

std::string access_pattern_names() {
  return "stencilKxK (odd K from 3 to 15, e.g. stencil3x3), row-reduce, col-reduce, matmul-lhs, "
         "matmul-rhs, elementwise";
}

AccessPattern parse_access_pattern(const std::string& text, uint32_t rank) {
  AccessPattern p;
  p.name = text;
  auto reduce = [&](uint32_t axis, double ops) {
    p.kind = AccessPattern::Kind::reduce;
    p.reduce_axis = axis;
    p.ops_per_element = ops;
    return p;
  };
  uint32_t last = rank == 0 ? 0 : rank - 1;
  if (text == "elementwise") return p;
  if (text == "row-reduce") return reduce(last, 1);
  if (text == "col-reduce") return reduce(0, 1);
  if (text == "matmul-lhs") return reduce(last, 2);
  if (text == "matmul-rhs") return reduce(0, 2);
  unsigned k = 0, k2 = 0;
  char tail = 0;
  if (std::sscanf(text.c_str(), "stencil%ux%u%c", &k, &k2, &tail) == 2 && k == k2 && k % 2 == 1 &&
      k >= 3 && k <= kMaxWindow) {
    p.kind = AccessPattern::Kind::stencil;
    p.window = k;
    p.ops_per_element = static_cast<double>(k) * k;
    return p;
  }
  throw sdk::invalid_argument("unknown access pattern '" + text + "'; expected one of " +
                              access_pattern_names());
}

namespace {

// The core (memory-level block) of every element, row-major.
std::vector<uint32_t> element_cores(const TreeLayout& layout) {
  std::vector<std::vector<uint64_t>> terms(layout.rank());
  for (uint32_t a = 0; a < layout.rank(); ++a)
    for (uint64_t i = 0; i < layout.shape()[a]; ++i) terms[a].push_back(layout.core_term(a, i));
  std::vector<uint32_t> cores(layout.elements(), 0);
  std::vector<uint64_t> index(layout.rank(), 0);
  for (uint32_t& core : cores) {
    uint64_t c = 0;
    for (uint32_t a = 0; a < layout.rank(); ++a) c += terms[a][index[a]];
    core = static_cast<uint32_t>(c);
    for (uint32_t a = layout.rank(); a-- > 0;) {
      if (++index[a] < layout.shape()[a]) break;
      index[a] = 0;
    }
  }
  return cores;
}

void stencil_traffic(const TreeLayout& layout, const std::vector<uint32_t>& cores, uint32_t window,
                     Traffic& traffic) {
  const auto& shape = layout.shape();
  uint64_t cols = shape.back();
  uint64_t rows = shape.size() >= 2 ? shape[shape.size() - 2] : 1;
  uint64_t planes = cores.size() / (rows * cols);
  auto r = static_cast<int64_t>(window / 2);
  int64_t row_reach = shape.size() >= 2 ? r : 0;
  uint32_t m = layout.memory_level();
  for (uint64_t p = 0; p < planes; ++p)
    for (uint64_t y = 0; y < rows; ++y)
      for (uint64_t x = 0; x < cols; ++x) {
        uint32_t here = cores[(p * rows + y) * cols + x];
        for (int64_t dy = -row_reach; dy <= row_reach; ++dy)
          for (int64_t dx = -r; dx <= r; ++dx) {
            auto yy = static_cast<int64_t>(y) + dy, xx = static_cast<int64_t>(x) + dx;
            if (yy < 0 || xx < 0 || yy >= static_cast<int64_t>(rows) ||
                xx >= static_cast<int64_t>(cols))
              continue;
            uint32_t there =
                cores[(p * rows + static_cast<uint64_t>(yy)) * cols + static_cast<uint64_t>(xx)];
            if (there != here) traffic.add_move(m, there, m, here);
          }
      }
}

void reduce_traffic(const TreeLayout& layout, const std::vector<uint32_t>& cores, uint32_t axis,
                    Traffic& traffic) {
  const auto& shape = layout.shape();
  uint64_t inner = 1;
  for (size_t a = axis + 1; a < shape.size(); ++a) inner *= shape[a];
  uint64_t extent = shape[axis];
  uint64_t outer = cores.size() / (inner * extent);
  uint32_t m = layout.memory_level();
  std::vector<uint32_t> blocks;
  for (uint64_t o = 0; o < outer; ++o)
    for (uint64_t i = 0; i < inner; ++i) {
      blocks.clear();
      for (uint64_t j = 0; j < extent; ++j) blocks.push_back(cores[(o * extent + j) * inner + i]);
      uint32_t owner = blocks.front();
      std::sort(blocks.begin(), blocks.end());
      blocks.erase(std::unique(blocks.begin(), blocks.end()), blocks.end());
      for (uint32_t b : blocks)
        if (b != owner) traffic.add_move(m, b, m, owner);
    }
}

}  // namespace

Traffic pattern_traffic(const TreeLayout& layout, const AccessPattern& pattern) {
  Traffic traffic(layout.chip());
  if (pattern.kind == AccessPattern::Kind::elementwise) return traffic;
  if (layout.elements() > kMaxPatternElements)
    throw sdk::Error(TESSERA_RESOURCE_EXHAUSTED,
                     "the cost of an access pattern visits every element; " +
                         std::to_string(layout.elements()) + " are more than " +
                         std::to_string(kMaxPatternElements));
  if (pattern.kind == AccessPattern::Kind::reduce && pattern.reduce_axis >= layout.rank())
    throw sdk::invalid_argument("pattern " + pattern.name + " reduces axis " +
                                std::to_string(pattern.reduce_axis) + " but the tensor has " +
                                std::to_string(layout.rank()) + " axes");
  std::vector<uint32_t> cores = element_cores(layout);
  if (pattern.kind == AccessPattern::Kind::stencil)
    stencil_traffic(layout, cores, pattern.window, traffic);
  else
    reduce_traffic(layout, cores, pattern.reduce_axis, traffic);
  return traffic;
}

}  // namespace tessera::plugins::tree
