// Preferred Networks MN-Core 2-like tree chips: chip -> groups -> L2B -> L1B -> MAB -> PE (or any
// tree the section describes, tree_chip.hpp: explicit `levels`, several chips), every
// inner node with (or without) a memory of its own, data moving only along tree edges (broadcast
// down, reduce up). Sources, tagged per value: [V] vendor (dev.mn-core.com's MN-Core 2 hardware
// specification), [S] secondary (MN-Core 2 developer-manual excerpts at scrapbox.io/mncore), [D]
// derived, [U] no source: a guess to replace. One long word (長語) = 8 B.
//
// Endpoints, in order: PEs (the cores, numbered depth-first, so one MAB's PEs are consecutive),
// then the inner nodes level by level from the root (chip, groups, L2Bs, L1Bs, MABs), then one
// DRAM MEMORY_CONTROLLER per node of the DRAM level (`dram.level`: the groups, level 1; the top
// level for explicit levels). Tree endpoints carry `level` (chip = 0, PE = 5), `parent`,
// memory_bytes, and x = their index within their level. A DRAM endpoint has level 0, no parent,
// and x = the node it hangs off. Every tree edge is a link down and a link up; each DRAM is
// linked both ways to its node (class MEMORY). The top level's nodes (chips side by side, or the
// level-A blocks of JP7770865B2) are linked to each other pairwise, at the top level's rate (class
// CHIP_TO_CHIP between chips). A route climbs to the lowest common ancestor and descends (or
// crosses between top nodes), so two PEs in different groups are 2 x 5 links apart.
//
// Parameters (topology section of a chip file; defaults build an MN-Core 2, 4096 PEs). <level> is
// one of group, l2b, l1b, mab, pe (and chip for memory_bytes only):
//   name                          chip name for reports; default "mncore2"
//   clock_hz                      750e6 [U]: no published clock, a placeholder
//   <level>.fanout                children per parent: 4, 2, 8, 16, 4 [V]
//   <level>.memory_bytes          one node's memory: chip 0, group 4 MiB (PDM) [S], l2b 256 KiB,
//                                 l1b 64 KiB [D], mab 0, pe 32 KiB (LM0 + LM1) [D]
//   <level>.down_bytes_per_cycle  parent -> one child of this level:
//       group  64: no published chip -> group rate; mvb4's cross-group DRAM -> L2BM broadcast
//                  moves 8 long words/cycle [S], used here [U]
//       l2b    64: DRAM/PDM -> L2BM, 8 long words/cycle [S]
//       l1b   128: L2BM -> L1BM multicast (l2bmi), 16 long words/cycle [S]
//       mab    32: L1BM -> the 4 PEs of a MAB at 1 long word/cycle each [D]
//       pe      8: L1BM -> PE, 1 long word/cycle (l1bmd) [S]
//   <level>.up_bytes_per_cycle    one child -> its parent; default = down [U]
//   link_latency_cycles           every tree edge and DRAM link; 4 [U guess]
//   dram.bytes_per_s              one group's DRAM <-> group node; 128e9 [D]
//   dram.level                    the level whose nodes each have a DRAM: 1 (0 for explicit levels)
//   dram.capacity_bytes           one DRAM's capacity (its endpoint's memory_bytes): 4 GiB per
//                                 group, 16 GiB per chip [D]
//   sram.bytes_per_cycle          one PE's LM0 + LM1, 2 long words/cycle each; 32 [S]
//   flops_per_cycle.<dtype>       per PE = MAU per MAB / 4 PEs [D]: fp16 (HP) 512/4 = 128,
//                                 fp32 (SP) 64/4 = 16, fp64 (DP) 16/4 = 4, others 0
//                                 (pseudo-SP, 128 per MAB, has no dtype here)
#pragma once

#include <string>
#include <tessera/sdk/interfaces.hpp>
#include <tessera/sdk/params.hpp>
#include <vector>

#include "common/topology_builder.hpp"
#include "tree_chip.hpp"

namespace tessera::plugins::tree {

inline constexpr uint32_t kLevels = kMnCore2Levels;  // chip, group, L2B, L1B, MAB, PE

class TreeTopology final : public TableTopology {
 public:
  explicit TreeTopology(const sdk::Params& params);

  tessera_topology_info info() const override;
  void route(uint32_t src, uint32_t dst, std::vector<uint32_t>& links) const override;
  tessera_level level(uint32_t index) const override;

  // Endpoint of the `index`-th node of `level` (the lowest level: the cores).
  uint32_t node(uint32_t level, uint32_t index) const { return first_[level] + index; }
  uint32_t dram(uint32_t index) const { return first_dram_ + index; }
  const TreeChip& chip() const { return chip_; }

 private:
  // A tree position: level and index within it.
  struct Position {
    uint32_t level = 0;
    uint32_t index = 0;
  };

  void build();
  void add_nodes(uint32_t level);
  Position position(uint32_t endpoint) const;
  uint32_t lowest() const { return chip_.lowest_level(); }

  TreeChip chip_;
  std::vector<uint32_t> first_;  // first endpoint of each level
  uint32_t first_dram_ = 0;
  // Per endpoint below the top level (a DRAM: below its node), its link up and the link down to
  // it.
  std::vector<uint32_t> up_, down_;
};

}  // namespace tessera::plugins::tree
