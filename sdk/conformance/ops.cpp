#include "sdk/conformance/ops.hpp"

#include <algorithm>
#include <cstddef>
#include <cstring>

#include "sdk/conformance/plugin_under_test.hpp"

namespace tessera::conformance {

namespace {

constexpr uint32_t kDtype = TESSERA_DTYPE_FP16;

struct Collector {
  std::vector<PlanCopy>* plans;
  size_t stop_after;
};

// Called from plugin code: nothing may be thrown back across the C ABI.
int collect(void* context, const tessera_partition_plan* plan) noexcept try {
  auto* c = static_cast<Collector*>(context);
  c->plans->push_back(copy_plan(*plan));
  return c->plans->size() >= c->stop_after ? 1 : 0;
} catch (...) {
  return 1;
}

}  // namespace

KitOp::KitOp(std::string name, uint32_t kind, std::vector<std::pair<std::string, uint64_t>> ranks,
             std::vector<OperandSpec> operands, double flops_per_point)
    : name_(std::move(name)), operands_(std::move(operands)) {
  double points = 1;
  for (auto& [rank, extent] : ranks) {
    rank_names_.push_back(rank);
    points *= static_cast<double>(extent);
  }
  for (size_t r = 0; r < ranks.size(); ++r)
    ranks_.push_back({rank_names_[r].c_str(), ranks[r].second});
  for (const OperandSpec& o : operands_) {
    std::string indexing;
    for (size_t r : o.ranks) indexing += (indexing.empty() ? "" : ",") + rank_names_[r];
    indexing_.push_back(indexing);
  }
  for (size_t i = 0; i < operands_.size(); ++i)
    described_.push_back({operands_[i].name.c_str(), indexing_[i].c_str(), kDtype,
                          operands_[i].is_output ? 1u : 0u, operands_[i].in_hbm ? 1u : 0u, 0});
  desc_.struct_size = sizeof(desc_);
  desc_.name = name_.c_str();
  desc_.op_kind = kind;
  desc_.num_ranks = static_cast<uint32_t>(ranks_.size());
  desc_.ranks = ranks_.data();
  desc_.num_operands = static_cast<uint32_t>(described_.size());
  desc_.operands = described_.data();
  desc_.flops = flops_per_point * points;
}

double KitOp::operand_bytes(size_t i, const uint64_t* tile) const {
  double elements = 1;
  for (size_t r : operands_[i].ranks)
    elements *= static_cast<double>(tile != nullptr ? tile[r] : ranks_[r].extent);
  return elements * dtype_bytes(kDtype);
}

namespace {

using Ranks = std::vector<std::pair<std::string, uint64_t>>;

std::unique_ptr<const KitOp> op(std::string name, uint32_t kind, Ranks ranks,
                                std::vector<OperandSpec> operands, double flops_per_point) {
  return std::make_unique<KitOp>(std::move(name), kind, std::move(ranks), std::move(operands),
                                 flops_per_point);
}

}  // namespace

// Operands name their ranks by position in the op's ranks.
KitOps representative_ops() {
  KitOps ops;
  ops.push_back(op("q_proj", TESSERA_OP_MATMUL, {{"m", 16}, {"k", 5120}, {"n", 5120}},
                   {{"x", {0, 1}}, {"w", {1, 2}, true}, {"q", {0, 2}, false, true}}, 2));
  ops.push_back(
      op("scores", TESSERA_OP_BATCHED_MATMUL, {{"b", 40}, {"m", 16}, {"k", 128}, {"n", 2048}},
         {{"q", {0, 1, 2}}, {"k_cache", {0, 2, 3}, true}, {"s", {0, 1, 3}, false, true}}, 2));
  ops.push_back(op("bias_add", TESSERA_OP_ELEMENTWISE, {{"m", 16}, {"n", 5120}},
                   {{"x", {0, 1}}, {"bias", {1}, true}, {"y", {0, 1}, false, true}}, 1));
  ops.push_back(op("row_sum", TESSERA_OP_REDUCTION, {{"m", 16}, {"n", 5120}},
                   {{"x", {0, 1}}, {"sum", {0}, false, true}}, 1));
  ops.push_back(op("softmax", TESSERA_OP_SOFTMAX, {{"b", 40}, {"m", 16}, {"n", 2048}},
                   {{"s", {0, 1, 2}}, {"p", {0, 1, 2}, false, true}}, 5));
  return ops;
}

std::unique_ptr<const KitOp> infeasible_op() {
  constexpr uint64_t kHuge = uint64_t{1} << 20;
  return op("too_big", TESSERA_OP_MATMUL, {{"m", kHuge}, {"k", kHuge}, {"n", kHuge}},
            {{"a", {0, 1}, true}, {"b", {1, 2}, true}, {"c", {0, 2}, false, true}}, 2);
}

KitOps program_ops() {
  KitOps ops;
  ops.push_back(op("proj", TESSERA_OP_MATMUL, {{"m", 8}, {"k", 64}, {"n", 64}},
                   {{"x", {0, 1}}, {"w", {1, 2}, true}, {"y", {0, 2}, false, true}}, 2));
  ops.push_back(op("bias_add", TESSERA_OP_ELEMENTWISE, {{"m", 8}, {"n", 64}},
                   {{"y", {0, 1}}, {"bias", {1}, true}, {"z", {0, 1}, false, true}}, 1));
  ops.push_back(op("softmax", TESSERA_OP_SOFTMAX, {{"m", 8}, {"n", 64}},
                   {{"z", {0, 1}}, {"p", {0, 1}, false, true}}, 5));
  return ops;
}

tessera_partition_plan PlanCopy::view() const {
  tessera_partition_plan p = fields;
  p.label = label ? label->c_str() : nullptr;
  p.tile_extents = tile ? tile->data() : nullptr;
  p.core_digits = digits.empty() ? nullptr : digits.data();
  return p;
}

PlanCopy copy_plan(const tessera_partition_plan& plan) {
  PlanCopy c;
  // The 1.0 fields as the host reads them, whatever struct_size says; later ones only as far as
  // struct_size reaches: a plugin built for an older ABI hands over a shorter struct.
  constexpr size_t kSize10 = offsetof(tessera_partition_plan, num_core_digits);
  std::memcpy(&c.fields, &plan, std::clamp(plan.struct_size, kSize10, sizeof plan));
  c.fields.label = nullptr;
  c.fields.tile_extents = nullptr;
  if (c.fields.core_digits != nullptr)
    c.digits.assign(c.fields.core_digits, c.fields.core_digits + c.fields.num_core_digits);
  c.fields.core_digits = nullptr;
  if (plan.label != nullptr) c.label = plan.label;
  // num_ranks beyond the ABI's bound is reported by the checks; only that many are read.
  if (plan.tile_extents != nullptr)
    c.tile.emplace(plan.tile_extents,
                   plan.tile_extents + std::min<uint32_t>(plan.num_ranks, TESSERA_MAX_RANKS));
  return c;
}

PlansAnswer plans_of(const tessera_partitioner* partitioner, const tessera_op_desc& op,
                     size_t stop_after) {
  PlansAnswer answer;
  Collector collector{&answer.plans, stop_after};
  tessera_plan_sink sink{&collector, &collect};
  answer.error = invoke("plans(" + std::string(op.name) + ")",
                        [&] { return partitioner->plans(partitioner, &op, &sink); });
  return answer;
}

PlanCopy single_core_plan(const KitOp& op) {
  PlanCopy c;
  tessera_partition_plan& p = c.fields;
  p.struct_size = sizeof(p);
  p.cores_used = 1;
  p.num_ranks = static_cast<uint32_t>(op.num_ranks());
  c.tile.emplace();
  for (size_t r = 0; r < op.num_ranks(); ++r) c.tile->push_back(op.extent(r));
  for (size_t i = 0; i < op.operands().size(); ++i) {
    p.exec_bytes_per_core += static_cast<uint64_t>(op.operand_bytes(i));
    if (op.operands()[i].in_hbm) {
      p.preload_bytes_per_core += static_cast<uint64_t>(op.operand_bytes(i));
      p.hbm_bytes += op.operand_bytes(i);
    }
  }
  p.compute_s = op.desc().flops / 1e12;  // a nominal 1 TFLOP/s core: any time will do
  c.label = "all of " + op.name() + " on one core";
  return c;
}

}  // namespace tessera::conformance
