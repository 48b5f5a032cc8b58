// The CostModel of tree_simd: MN-Core 2-like SIMD rates on the tree its chip-file section
// describes (tree_chip.hpp; sources tagged as topology.hpp explains).
//
//  * Matrix unit: one MAU per MAB, shared by its 4 PEs; per PE per cycle fp16 128, fp32 16,
//    fp64 4 FLOP (HP 16x16, SP 8x4, DP 2x4 matrix-vector MACs per MAB [S: manual §1.4]), from
//    flops_per_cycle.<dtype>. Matmul-like tiles (matmul, batched matmul, conv) take
//    max(FLOP / rate, bytes / SRAM port).
//  * Vector unit: one long word (8 B) per cycle per PE, SIMD within the word (4 half, 2 single,
//    1 double [S]) from vector_bytes_per_cycle; other op kinds take
//    max(elements x ops per element x dtype bytes / vector rate, bytes / SRAM port), with ops per
//    element: elementwise, reduction, gather, data movement, other 1; unary 4, normalization 4,
//    softmax 5 [U: guesses for exp/rsqrt sequences, no published figures].
//  * Transfers: on chip a transfer of h hops climbs h/2 levels of the tree and descends again; it
//    takes h x link latency + bytes / the slowest rate on the way (the level rates of the tree:
//    l1bmd 1 long word/cycle into each PE, l2bmi 16 long words/cycle, 8 long words/cycle from
//    DRAM/PDM to L2BM [S]); memory transfers use the group's DRAM rate (128 GB/s [D]),
//    chip-to-chip ones the chip level's rate. Packets pay an 8 B header [U].
//  * Per level: distribute (a parent sends each child its own data, all children at once),
//    multicast (the same data to every child) and combine (every child sends a partial result up,
//    reduced on the way: MN-Core's float-add on PE->L1BM transfers [S]) at the level's rates.
// A tile the core cannot run (a dtype without FLOP/s) costs +infinity.
//  * Fixed costs per op (ABI 1.5 dispatch_host_s, dispatch_traced_s, launch_s): 0 [U]. MN-Core's
//    public material gives no per-op host dispatch or launch figure; its compiler emits one
//    instruction stream per step, so 0 (no fixed cost) rather than a guess.
// A query's math_fidelity (ABI 1.5) is ignored: the MAU computes each precision at one rate.
#pragma once

#include <memory>
#include <tessera/sdk/interfaces.hpp>
#include <tessera/sdk/params.hpp>

#include "tree_chip.hpp"

namespace tessera::plugins::tree {

class TreeCostModel final : public sdk::CostModel {
 public:
  explicit TreeCostModel(const sdk::Params& params);
  explicit TreeCostModel(std::shared_ptr<const TreeChip> chip) : chip_(std::move(chip)) {}

  tessera_cost_model_info info() const override;
  double tile_seconds(const tessera_tile_query& query) const override;
  double transfer_seconds(const tessera_transfer_query& query) const override;

  // Seconds for every child of a node of the level above `level` to receive `bytes_per_child`.
  double distribute_seconds(uint32_t level, double bytes_per_child) const;
  double multicast_seconds(uint32_t level, double bytes) const;
  // Seconds for every child at `level` to send `bytes_per_child` up to its parent.
  double combine_seconds(uint32_t level, double bytes_per_child) const;

  const TreeChip& chip() const { return *chip_; }
  const std::shared_ptr<const TreeChip>& chip_ptr() const { return chip_; }

 private:
  std::shared_ptr<const TreeChip> chip_;
};

}  // namespace tessera::plugins::tree
