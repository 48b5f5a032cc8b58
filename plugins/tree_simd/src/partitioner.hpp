// The Partitioner of tree_simd: maps an Einsum's tiles onto the tree through layouts.
//
// A plan shares the blocks of every level, top down to the lowest, among the op's rank variables
// (enumerate_shares: each level's whole fanout when the extents allow). Each operand then gets the
// layout that plan implies: a level's block id is row-major over the quotients of ALL ranks, an
// operand's own ranks split it (plain items) and the ranks it lacks replicate it (broadcast '*'
// items), so every operand of one tile sits in that tile's PE; operands are stacked in the PE
// memory in operand order. The layouts are validated like any other (a plan whose operands do not
// fit the memory is not offered) and the output's layout is part of the plan's label.
//
// Figures per plan: exec/preload bytes = the operands' addresses per PE; distribute time = each
// input sent down the tree level by level (every child at once, at the level's down rate);
// inter-core bytes = the replicated copies plus, when a summed rank is split, the partial outputs
// combined up the tree (shift_s). Compute from the cost model on one tile.
//
// Placement (core_digits, ABI 1.3): a tile runs on the PE its operands' layouts put it in. One
// digit per level and rank the level splits, lowest level first and within a level the last rank
// first; a digit's core stride is the shares of the later ranks at its level (a level's block id
// is row-major over the ranks) times the PEs under one block of the level. With them the host
// prices the plan's transfers on the Topology's routes instead of taking distribute_s and shift_s.
//
// Handles matmul, batched matmul, elementwise, unary, reduction, softmax and normalization ops
// whose operands index plain rank variables ("m,k"); softmax and normalization keep their last
// rank whole. Anything else is UNIMPLEMENTED, left to the framework's default partitioner.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <tessera/sdk/interfaces.hpp>
#include <tessera/sdk/params.hpp>
#include <vector>

#include "cost_model.hpp"
#include "layout.hpp"

namespace tessera::plugins::tree {

// An operand of an op, its indexing resolved to rank positions.
struct EinsumOperand {
  std::string name;
  std::vector<uint32_t> ranks;
  uint32_t dtype = TESSERA_DTYPE_FP32;
  bool is_output = false;
  bool in_hbm = false;
};

// The op's operands; throws UNIMPLEMENTED for indexing this partitioner does not map.
std::vector<EinsumOperand> resolve_operands(const tessera_op_desc& op);

// The layout of `operand` when level k gives divisions[k][r] blocks to rank r, placed at `base`.
std::string operand_layout_text(const TreeChip& chip, const tessera_op_desc& op,
                                const EinsumOperand& operand,
                                const std::vector<std::vector<uint64_t>>& divisions, uint64_t base);

class TreePartitioner final : public sdk::Partitioner {
 public:
  explicit TreePartitioner(const sdk::Params& params);

  void plans(const tessera_op_desc& op,
             const std::function<bool(const tessera_partition_plan&)>& emit) const override;

 private:
  TreeCostModel cost_;
};

}  // namespace tessera::plugins::tree
