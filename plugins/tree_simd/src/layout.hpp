// A tree layout resolved on a chip: which block of every level and which address of the memory
// level hold each element of a tensor (JP7770865B2, generalised; docs/tree-layouts.md).
//
// Meaning of a layout text (layout_text.hpp) on a chip:
//  * Each axis group splits its axis top down: the unmarked items' divisions multiply to the
//    axis's padded extent C (>= the extent; the rest is padding), and an item's quotient is
//    (i / E) % d where E is the product of the unmarked divisions after it (the elements per
//    block at that item). The patent's (91, 36) decomposes to ((1,1,16), (0,1,11)).
//  * A level's block id (its index among its parent's children) is Σ quotient x stride over the
//    items that name it, from every axis; the address is base + Σ quotient x stride over the
//    Addr items. `chip*group` names two adjacent levels as one: its id runs over chips x groups
//    and is split back with the fanout of the lower one.
//  * Broadcast items ('*') add copies: every copy quotient 0..d-1 holds the same element.
//  * The memory level is the deepest level any item names (the lowest level when none is
//    named); levels above it that no item names hold the tensor in their block 0.
// Validation: names exist and go top down; each axis ends with its Addr item; per level the ids
// stay below the level's fanout and are all distinct (copies included); addresses are distinct
// and fit the memory level's capacity; every axis is covered.
#pragma once

#include <tessera/plugin_abi.h>

#include <cstdint>
#include <memory>
#include <string>
#include <tessera/sdk/error.hpp>
#include <tessera/sdk/interfaces.hpp>
#include <utility>
#include <vector>

#include "layout_text.hpp"
#include "stride_sum.hpp"
#include "tree_chip.hpp"

namespace tessera::plugins::tree {

class TreeLayout final : public sdk::Layout {
 public:
  static constexpr int32_t kAddressUnit = -1;

  struct Item {
    uint64_t divisions = 1;
    uint64_t stride = 0;
    bool broadcast = false;
    int32_t unit = kAddressUnit;      // index into units(), or kAddressUnit for Addr
    uint64_t elements_per_block = 1;  // unmarked items: the unmarked divisions after it
    uint32_t column = 0;
  };
  struct Axis {
    std::vector<Item> items;
    uint64_t extent = 0;
    uint64_t padded_extent = 1;  // product of the unmarked divisions
  };
  // One or more adjacent levels that items name together (`chip*group`), or one level none names.
  struct Unit {
    uint32_t first_level = 0;
    uint32_t last_level = 0;
    uint64_t blocks = 1;       // product of the fanouts of its levels
    uint64_t core_weight = 1;  // memory-level blocks under one step of its id
  };
  // Where one stored element lives: the flat block index at the memory level (`core`) and the
  // address in that block's memory.
  struct Place {
    uint64_t core = 0;
    uint64_t address = 0;
  };

  // Throws sdk::Error whose message starts with "column N:": INVALID_ARGUMENT for a layout that
  // does not fit the chip or shape, RESOURCE_EXHAUSTED when its addresses exceed the memory.
  TreeLayout(std::shared_ptr<const TreeChip> chip, const LayoutText& text,
             std::vector<uint64_t> shape);

  const TreeChip& chip() const { return *chip_; }
  std::shared_ptr<const TreeChip> chip_ptr() const { return chip_; }
  const std::vector<uint64_t>& shape() const { return shape_; }
  uint32_t rank() const { return static_cast<uint32_t>(shape_.size()); }
  const std::vector<Axis>& axes() const { return axes_; }
  const std::vector<Unit>& units() const { return units_; }
  uint32_t memory_level() const { return memory_level_; }
  uint64_t base_address() const { return base_address_; }
  // Blocks of the memory level in the whole system.
  uint64_t memory_blocks() const { return chip_->level(memory_level_).nodes; }

  // Canonical text (the chip's own level names).
  std::string format() const { return format_layout_text(canonical_); }

  uint64_t elements() const;                   // product of the extents
  uint64_t padded_elements() const;            // product of the padded extents (saturating)
  uint64_t copies() const { return copies_; }  // stored copies of every element (broadcast)
  // Addresses this tensor occupies in each block it uses (its SIMD length).
  uint64_t addresses_per_block() const { return addresses_per_block_; }
  // One past the largest address used.
  uint64_t address_end() const { return address_end_; }

  // Contributions of coordinate i (< padded extent) of `axis` to the core and the address of its
  // first copy; the place of an element is the sum over axes (plus the base address).
  uint64_t core_term(uint32_t axis, uint64_t i) const;
  uint64_t address_term(uint32_t axis, uint64_t i) const;
  // Offsets of every copy from the first, first = (0, 0).
  const std::vector<Place>& copy_offsets() const { return copy_offsets_; }
  // The first copy of the element at `index` (rank values, each < its padded extent).
  Place place(const uint64_t* index) const;

  // The patent's "decomposed index": per axis, the quotient of every unmarked item in order
  // ((91, 36) -> ((1, 1, 16), (0, 1, 11)) for its first layout).
  std::vector<std::vector<uint64_t>> decompose(const uint64_t* index) const;
  // Throws INVALID_ARGUMENT for an index outside the shape.
  tessera_location locate(const uint64_t* index) const;
  tessera_location location_of(const Place& place) const;
  uint64_t core_of(const tessera_location& location) const;
  // The index stored at `location` (any copy). Reads num_levels, blocks and address; `core` is
  // ignored. Throws INVALID_ARGUMENT naming the problem: wrong level count, block out of range,
  // no element of this layout there, or padding.
  void inverse(const tessera_location& location, uint64_t* index) const;
  // The same without throwing: false, with the reason in *why, when nothing is stored there.
  bool try_inverse(const tessera_location& location, uint64_t* index, std::string* why) const;

 private:
  using NamedLevels = std::vector<std::vector<std::vector<uint32_t>>>;  // [axis][item] -> levels
  NamedLevels resolve_names();
  void resolve();
  void build_units(const NamedLevels& levels);
  void check_order();
  void check_coverage();
  void check_unit(uint32_t unit);
  void check_addresses();
  void check_distinct(int32_t unit, const StrideSum& sum, const std::string& what,
                      const std::string& collides) const;
  uint32_t farthest_column(int32_t unit) const;
  void build_copies();
  std::string unit_name(uint32_t unit) const;
  // The items of a unit (kAddressUnit: the Addr items) as (axis, item), and their stride sum.
  const std::vector<std::pair<uint32_t, uint32_t>>& items_of(int32_t unit) const;
  StrideSum sum_of(int32_t unit) const;
  const StrideSum& solver(int32_t unit) const;

  std::shared_ptr<const TreeChip> chip_;
  std::vector<uint64_t> shape_;
  LayoutText canonical_;
  std::vector<Axis> axes_;
  std::vector<Unit> units_;
  std::vector<std::vector<std::pair<uint32_t, uint32_t>>> unit_items_;  // units, then Addr
  uint32_t memory_level_ = 0;
  uint64_t base_address_ = 0;
  uint64_t copies_ = 1;
  uint64_t addresses_per_block_ = 1;
  uint64_t address_end_ = 0;
  std::vector<Place> copy_offsets_;
  std::vector<StrideSum> unit_sums_;  // per unit, then the address sum last
};

// Calls f(index, real, place) for every position of the layout's padded index space (row-major)
// and every copy of it; `real` is false for padding. Throws RESOURCE_EXHAUSTED past `max_places`.
template <class F>
void for_each_place(const TreeLayout& layout, F&& f, uint64_t max_places = 1u << 26) {
  uint64_t places = saturating_mul(layout.padded_elements(), layout.copies());
  if (places > max_places)
    throw sdk::Error(TESSERA_RESOURCE_EXHAUSTED,
                     "the layout stores " + std::to_string(places) + " values; at most " +
                         std::to_string(max_places) + " can be visited one by one");
  const uint32_t rank = layout.rank();
  std::vector<std::vector<TreeLayout::Place>> terms(rank);
  for (uint32_t a = 0; a < rank; ++a)
    for (uint64_t i = 0; i < layout.axes()[a].padded_extent; ++i)
      terms[a].push_back({layout.core_term(a, i), layout.address_term(a, i)});
  std::vector<uint64_t> index(rank, 0);
  while (true) {
    TreeLayout::Place first{0, layout.base_address()};
    bool real = true;
    for (uint32_t a = 0; a < rank; ++a) {
      first.core += terms[a][index[a]].core;
      first.address += terms[a][index[a]].address;
      real = real && index[a] < layout.shape()[a];
    }
    for (const TreeLayout::Place& offset : layout.copy_offsets())
      f(index.data(), real,
        TreeLayout::Place{first.core + offset.core, first.address + offset.address});
    uint32_t a = rank;
    while (a > 0 && ++index[a - 1] == layout.axes()[a - 1].padded_extent) index[--a] = 0;
    if (a == 0) return;
  }
}

}  // namespace tessera::plugins::tree
