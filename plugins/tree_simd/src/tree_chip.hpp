// The tree a tree_simd chip is made of, as the layout mapper, cost model, partitioner and codegen
// read it from their chip-file sections (the topology reads the MN-Core 2 levels the same way).
//
// Two ways to describe the levels, top down:
//  * MN-Core 2-like (default): the topology's keys, <level>.fanout / .memory_bytes /
//    .down_bytes_per_cycle / .up_bytes_per_cycle for chip, group, l2b, l1b, mab, pe (defaults and
//    sources in topology.hpp), plus `chip.fanout` = chips side by side (default 1) and
//    `chip.down_bytes_per_cycle` = the chip-to-chip rate through the board (16 [U]). So a chip
//    file may give every section the same tree with a YAML anchor (`layout_mapper: *tree`).
//  * explicit: `levels: [{name: A, fanout: 4}, {name: B, fanout: 4, memory_bytes: 4096}]`
//    (keys levels.N.name, .fanout, .memory_bytes, .down_bytes_per_cycle, .up_bytes_per_cycle),
//    for test chips such as the patent's two-level example. The MN-Core 2 level keys are then
//    unknown.
// Either way <level>.alias (levels.N.alias) gives a level a second name layouts may use, e.g.
// `group.alias: A`. Names and aliases are [A-Za-z][A-Za-z0-9]*, unique ignoring case, not "Addr".
//
// Chip-wide keys (both ways): name, clock_hz (750e6 [U]), link_latency_cycles (4 [U]),
// dram.bytes_per_s (128e9 per group [D]), dram.capacity_bytes (4 GiB per group [D]),
// sram.bytes_per_cycle (32 [S]),
// flops_per_cycle.<dtype> (per lowest-level block; topology.hpp), vector_bytes_per_cycle (8: one
// long word per cycle per PE, SIMD within the word [S]), element_bytes (4: the
// size of one tensor element, so a memory of B bytes holds B / element_bytes addresses).
#pragma once

#include <tessera/plugin_abi.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <tessera/sdk/params.hpp>
#include <vector>

#include "common/topology_builder.hpp"

namespace tessera::plugins::tree {

struct TreeLevel {
  std::string name;             // as layouts and reports spell it, e.g. "L2B"
  std::string alias;            // a second name layouts may use (the patent's "A"); may be empty
  uint32_t fanout = 1;          // children per node of the level above; level 0: nodes at the top
  uint64_t nodes = 1;           // nodes of this level in the whole system
  uint64_t memory_bytes = 0;    // one node's memory; 0 for a level that only groups its children
  double down_bytes_per_s = 0;  // parent -> one child (level 0: between top nodes)
  double up_bytes_per_s = 0;    // one child -> parent
};

inline constexpr uint32_t kMnCore2Levels = 6;  // chip, group, L2B, L1B, MAB, PE
// Peak FLOP per cycle of one PE: fp32, fp16, bf16, fp8, int8, int32, fp64 [D, see topology.hpp].
inline constexpr FlopsPerCycle::Table kMnCore2FlopsPerCycle = {16, 128, 0, 0, 0, 0, 4, 0};
inline constexpr double kMnCore2ClockHz = 750e6;  // [U] no published clock

// Bytes of one element of `dtype` (a tessera_dtype); 0 for an unknown dtype.
inline uint32_t dtype_bytes(uint32_t dtype) {
  // The block types (bfp8, bfp4, bfp2: 1.0625, 0.5625, 0.3125 bytes) have no whole byte count:
  // MN-Core stores none, so the partitioner refuses them as unknown (the host never sends them:
  // the chip has no FLOP/s for them).
  constexpr uint32_t kBytes[TESSERA_DTYPE_COUNT] = {4, 2, 2, 1, 1, 4, 8, 0};
  return dtype < TESSERA_DTYPE_COUNT ? kBytes[dtype] : 0;
}

// The keys the topology and every other tree_simd section share.
struct ChipWide {
  std::string name;
  double clock_hz = kMnCore2ClockHz;
  double link_latency_s = 0;
  double dram_bytes_per_s = 0;       // one group's DRAM
  uint64_t dram_capacity_bytes = 0;  // one group's DRAM
  double sram_bytes_per_cycle = 0;
};
ChipWide read_chip_wide(const sdk::Params& params);

// The six MN-Core 2 levels, read from <key>.* parameters. With `multi_chip` the chip level reads
// `chip.fanout` and its link rates (the topology describes one chip and does not).
std::vector<TreeLevel> read_mncore2_levels(const sdk::Params& params, double clock_hz,
                                           bool multi_chip);

class TreeChip {
 public:
  // Throws sdk::Error naming the parameter that is wrong.
  explicit TreeChip(const sdk::Params& params);
  // Explicit levels without parameters (tests, tools).
  TreeChip(std::vector<TreeLevel> levels, uint32_t element_bytes, double clock_hz);

  const std::vector<TreeLevel>& levels() const { return levels_; }
  const TreeLevel& level(uint32_t index) const { return levels_.at(index); }
  uint32_t num_levels() const { return static_cast<uint32_t>(levels_.size()); }
  uint32_t lowest_level() const { return num_levels() - 1; }
  // The level whose name or alias is `name` (case-insensitive).
  std::optional<uint32_t> find_level(std::string_view name) const;
  // "chip, group, L2B, L1B, MAB, PE" (aliases in parentheses), for error messages.
  std::string level_list() const;
  // Every name and alias, for "did you mean".
  std::vector<std::string> all_names() const;
  // Nodes under one node of `ancestor` at `level` (>= ancestor); 1 when equal.
  uint64_t nodes_below(uint32_t ancestor, uint32_t level) const;
  // The path of flat node `node` of `level` as local indices, top down: "A2 B3".
  std::string path_text(uint32_t level, uint64_t node) const;

  // The level whose every node has a DRAM (`dram.level`).
  uint32_t dram_level() const { return dram_level_; }
  // True when the top level stands for chips side by side (the MN-Core 2 description).
  bool top_level_is_chips() const { return top_is_chips_; }

  // Elements one node of `level` holds.
  uint64_t capacity_elements(uint32_t level) const {
    return levels_.at(level).memory_bytes / element_bytes_;
  }
  uint32_t element_bytes() const { return element_bytes_; }
  double clock_hz() const { return wide_.clock_hz; }
  double link_latency_s() const { return wide_.link_latency_s; }
  double dram_bytes_per_s() const { return wide_.dram_bytes_per_s; }
  uint64_t dram_capacity_bytes() const { return wide_.dram_capacity_bytes; }
  double sram_bytes_per_s() const { return wide_.sram_bytes_per_cycle * wide_.clock_hz; }
  double vector_bytes_per_s() const { return vector_bytes_per_cycle_ * wide_.clock_hz; }
  // Peak FLOP/s of one lowest-level block; 0 when it cannot compute in `dtype`.
  double flops_per_s(tessera_dtype dtype) const { return flops_.per_s(dtype, wide_.clock_hz); }
  const std::string& name() const { return wide_.name; }

 private:
  void read_explicit_levels(const sdk::Params& params);
  void finish();  // nodes per level, name checks

  ChipWide wide_;
  double vector_bytes_per_cycle_ = 0;
  uint32_t element_bytes_ = 4;
  uint32_t dram_level_ = 0;
  bool top_is_chips_ = false;
  FlopsPerCycle flops_;
  std::vector<TreeLevel> levels_;
};

// JP7770865B2's example tree (Fig. 4, 6, 7) as the preset patent-2level describes it: 4 level-A
// blocks, 4 level-B blocks under each with 8 KiB of memory, A links 8 B/cycle, B links
// 32 B/cycle, 1 GHz, 4-byte elements. For tests, benchmarks and the fuzz target.
std::shared_ptr<const TreeChip> patent_example_chip();

}  // namespace tessera::plugins::tree
