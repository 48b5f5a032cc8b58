// What `tessera layout` (and tessera.layout in Python) asks a target's LayoutMapper about a tree
// layout description (docs/tree-layouts.md): where elements live, which element a place holds,
// which block holds which index range; or, for an access pattern, the candidate layouts and
// their costs, cheapest first. Answers are values; report/layout_report renders them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "framework/common/status.hpp"
#include "framework/driver/choices.hpp"
#include "framework/plugin/plugin_set.hpp"

namespace tessera::driver {

struct LayoutRequest {
  ChipChoice chip;
  std::string layout;           // a layout description; or
  std::string choose;           // an access pattern (stencil3x3, row-reduce, matmul-lhs, ...)
  std::vector<uint64_t> shape;  // the tensor's extents
  std::vector<std::vector<uint64_t>> locate;  // indices to locate
  std::vector<std::string> inverse;           // places, LEVEL<block>,...,ADDRESS: e.g. A2,B3,411
  bool map = false;                           // which block holds which index range
  size_t candidates = 10;                     // choose: how many to list
};

// A place in the chip: the block at each of the layout's levels (top down), the address in the
// memory block, and that block's number among its level's.
struct LayoutPlace {
  std::vector<std::pair<std::string, uint32_t>> blocks;  // (level name, block)
  uint64_t address = 0;
  std::string memory_level;  // the last of `blocks`
  // As the mapper numbers it; none for a place the user gave (inverse): the mapper numbers
  // only the places it locates.
  std::optional<uint32_t> memory_block;
  uint32_t memory_blocks = 0;  // blocks of that level on the chip
};

struct LocatedIndex {
  std::vector<uint64_t> index;
  LayoutPlace place;
};

// Inclusive index ranges of the last two axes (the others at 0) over which the block path stays
// the same, and the place of each range's first element: at most 32 row × 16 column ranges.
struct BlockMap {
  using Range = std::pair<uint64_t, uint64_t>;
  bool has_rows = false;                        // the tensor has two axes or more
  std::vector<Range> rows, columns;             // every range
  std::vector<std::vector<LayoutPlace>> cells;  // [row][column] of the ranges shown
  size_t shown_rows() const { return cells.size(); }
  size_t shown_columns() const { return cells.empty() ? 0 : cells.front().size(); }
};

struct LayoutDescription {
  std::string layout;  // as the mapper formats it, with its notes (" # padding ...")
  std::vector<uint64_t> shape;
  std::vector<LocatedIndex> located;  // as asked
  std::vector<LocatedIndex> inverted;
  std::optional<BlockMap> map;
};

struct LayoutCandidate {
  size_t rank = 0;  // 1: cheapest
  std::string layout;
  std::string estimate;  // the mapper's cost note
};

struct LayoutChoice {
  std::string pattern;
  std::vector<uint64_t> shape;
  std::optional<uint64_t> considered;  // candidates the mapper weighed (when it says)
  std::vector<LayoutCandidate> candidates;
  std::string chosen;  // the first candidate's layout
};

struct LayoutAnswer {
  std::optional<LayoutDescription> description;  // for a layout
  std::optional<LayoutChoice> choice;            // for an access pattern
};

// Usage errors: neither or both of layout and choose, an index of the wrong rank, a malformed
// place, a map of an axis longer than 2^20. The chip's and the plugin's errors as they come
// (an unknown level, a layout over capacity, a place in padding).
Result<LayoutAnswer> query_layout(PluginSet& plugins, const LayoutRequest& request);

// "(91, 36)" and "100x100": how the answers write an index and a shape.
std::string index_text(const std::vector<uint64_t>& index);
std::string shape_text(const std::vector<uint64_t>& shape);

}  // namespace tessera::driver
