// Ops and plans the kit hands to plugins, described as the host describes them
// (framework/planner/partition/plugin_plans.cpp): a tessera_op_desc whose strings this object
// owns, plain rank indexing ("m,k"), fp16 operands; and the plans a Partitioner gives for an op,
// copied out of its sink.
#pragma once

#include <tessera/plugin_abi.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "framework/common/status.hpp"

namespace tessera::conformance {

struct OperandSpec {
  std::string name;
  std::vector<size_t> ranks;  // positions in the op's ranks
  bool in_hbm = false;
  bool is_output = false;
};

class KitOp {
 public:
  KitOp(std::string name, uint32_t kind, std::vector<std::pair<std::string, uint64_t>> ranks,
        std::vector<OperandSpec> operands, double flops_per_point);
  // The descriptor points into this object.
  KitOp(const KitOp&) = delete;
  KitOp& operator=(const KitOp&) = delete;

  const tessera_op_desc& desc() const { return desc_; }
  const std::string& name() const { return name_; }
  const std::vector<OperandSpec>& operands() const { return operands_; }
  uint64_t extent(size_t rank) const { return ranks_[rank].extent; }
  size_t num_ranks() const { return ranks_.size(); }
  // Bytes of operand `i` over the whole op, or over one tile of `tile` extents.
  double operand_bytes(size_t i, const uint64_t* tile = nullptr) const;

 private:
  std::string name_;
  std::vector<std::string> rank_names_, indexing_;
  std::vector<tessera_rank> ranks_;
  std::vector<OperandSpec> operands_;
  std::vector<tessera_operand> described_;
  tessera_op_desc desc_{};
};

using KitOps = std::vector<std::unique_ptr<const KitOp>>;

// An LLM decoder layer's kinds at Llama-2-13B sizes (16 tokens, 40 heads, 2048 positions):
// matmul with HBM weights, batched matmul against an HBM KV cache, elementwise with an HBM bias,
// a row reduction and a softmax.
KitOps representative_ops();
// A matmul no chip's SRAM holds (2^20 cubed, both inputs in HBM).
std::unique_ptr<const KitOp> infeasible_op();
// Three small ops for CodeGen programs: a matmul with HBM weights, a bias add, a softmax.
KitOps program_ops();

// A plan as the sink copied it. `fields` has NULL label, tile_extents and core_digits; the copies
// of those are `label` and `tile` (nullopt where the plugin gave NULL) and `digits` (empty where
// the plugin gave none, or its struct_size ends before them: built for ABI 1.2 or older).
struct PlanCopy {
  tessera_partition_plan fields{};
  std::optional<std::string> label;
  std::optional<std::vector<uint64_t>> tile;
  std::vector<tessera_core_digit> digits;
  // The plan with its pointers into this object's copies, for handing to a plugin.
  tessera_partition_plan view() const;
};
PlanCopy copy_plan(const tessera_partition_plan& plan);

struct PlansAnswer {
  std::optional<Error> error;  // of the call; nullopt when it returned OK
  std::vector<PlanCopy> plans;
};

// partitioner.plans(op); the sink asks the plugin to stop after `stop_after` plans.
PlansAnswer plans_of(const tessera_partitioner* partitioner, const tessera_op_desc& op,
                     size_t stop_after = SIZE_MAX);

// All of `op` on one core: the plan a host without a Partitioner would hand a CodeGen.
PlanCopy single_core_plan(const KitOp& op);

}  // namespace tessera::conformance
