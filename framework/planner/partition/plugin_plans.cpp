// A plugin Partitioner's answer for one op: the op is described to it as a tessera_op_desc (all
// strings owned here, alive during the call), its plans are copied as the sink receives them.
// Each plugin plan is one execution plan with one preload plan: its preload_bytes_per_core is
// the HBM part of the execution state as well as the preload space (the plugin gives no other
// split). A plan without core_digits (ABI < 1.3, or a plugin that does not say) keeps the
// plugin's times: hbm_bytes is what the controllers send and the distribute traffic is not
// reported (0 bytes; the time is the plugin's distribute_s). A plan with core_digits is placed
// where it says (factors, core_digits) and its transfers are the host's own kinds, priced later
// on the routes (price_placed): every copy of its HBM tiles leaves a controller (the preload
// carries them to the cores, so there is no distribute_data), and the partials of a split
// reduction merge up a tree per output tile (combine_bytes). Its activations are taken to be
// where the op needs them, as for the host's own plans.
#include <cstddef>
#include <limits>

#include "framework/planner/partition/plan_space.hpp"

namespace tessera::planner::partition {

namespace {

std::string indexing_of(const ir::Operand& operand) {
  std::string text;
  for (const auto& expr : operand.index) {
    if (!text.empty()) text += ',';
    text += expr.str();
  }
  return text;
}

struct Collected {
  size_t ranks = 0;
  std::vector<std::pair<ExecPlan, PreloadPlan>> plans;
};

// Called from plugin code: nothing may be thrown back across the C ABI, so a failure to copy
// (out of memory) asks the plugin to stop.
int collect(void* context, const tessera_partition_plan* plan) noexcept try {
  auto* out = static_cast<Collected*>(context);
  ExecPlan e;
  e.label = plan->label != nullptr ? plan->label : "plugin plan";
  if (plan->tile_extents != nullptr && plan->num_ranks == out->ranks)
    e.tile.assign(plan->tile_extents, plan->tile_extents + plan->num_ranks);
  e.cores_used = plan->cores_used;
  e.exec_bytes_per_core = static_cast<double>(plan->exec_bytes_per_core);
  e.hbm_operand_bytes_per_core = static_cast<double>(plan->preload_bytes_per_core);
  e.compute_s = plan->compute_s;
  e.shift_s = plan->shift_s;
  e.sync_s = plan->sync_s;
  e.shift_bytes = plan->inter_core_bytes;
  PreloadPlan p;
  p.label = e.label;
  p.preload_bytes_per_core = static_cast<double>(plan->preload_bytes_per_core);
  p.hbm_to_core_bytes = plan->hbm_bytes;
  p.distribute_s = plan->distribute_s;
  constexpr size_t kDigitsEnd = offsetof(tessera_partition_plan, core_digits) + sizeof(void*);
  if (plan->struct_size >= kDigitsEnd && plan->num_core_digits > 0 && plan->core_digits != nullptr)
    for (uint32_t i = 0; i < plan->num_core_digits; ++i) {
      const tessera_core_digit& d = plan->core_digits[i];
      e.core_digits.push_back(
          {static_cast<int>(d.rank), d.count, static_cast<int64_t>(d.core_stride)});
    }
  out->plans.emplace_back(std::move(e), std::move(p));
  return 0;
} catch (...) {
  return 1;
}

// A plan placed by its core_digits in the host's terms: factors per rank, every copy of its HBM
// tiles sent by the controllers, its split reductions' partials merged per output tile. A digit
// of a rank the op does not have counts for none; op_traffic refuses it, naming the digit.
void adopt_placement(const OpShape& shape, ExecPlan& e, PreloadPlan& p) {
  e.factors.assign(shape.extents.size(), 1);
  for (const CoreDigit& d : e.core_digits)
    if (d.rank >= 0 && d.rank < static_cast<int>(e.factors.size())) e.factors[d.rank] *= d.count;
  int64_t parts = 1;
  for (size_t r = 0; r < e.factors.size(); ++r)
    if (shape.combined[r]) parts *= e.factors[r];
  const OperandShape& out = shape.operands.back();
  const double cores = e.cores_used;
  // Softmax and normalisation send the merged result back down: two passes (op_traffic.hpp).
  const bool two_passes =
      shape.kind == ir::OpKind::softmax || shape.kind == ir::OpKind::normalization;
  e.combine_bytes = parts > 1
                        ? (two_passes ? 2 : 1) * (cores - cores / static_cast<double>(parts)) *
                              tile_elements(shape, out, e.tile) * out.element_bytes
                        : 0;
  e.shift_bytes = e.combine_bytes;
  p.hbm_to_core_bytes = cores * p.preload_bytes_per_core;
  p.distribute_s = 0;
}

}  // namespace

Result<PluginAnswer> plugin_plans(const Partitioner& partitioner, const ir::Graph& graph,
                                  const ir::Op& op, const OpShape& shape) {
  std::vector<tessera_rank> ranks;
  for (size_t r = 0; r < shape.extents.size(); ++r)
    ranks.push_back({shape.rank_names[r].c_str(), static_cast<uint64_t>(shape.extents[r])});
  std::vector<const ir::Operand*> operands;
  for (const auto& in : op.einsum.inputs) operands.push_back(&in);
  operands.push_back(&op.einsum.output);
  std::vector<std::string> indexing;
  for (const ir::Operand* operand : operands) indexing.push_back(indexing_of(*operand));
  std::vector<tessera_operand> described;
  for (size_t i = 0; i < operands.size(); ++i) {
    tessera_operand d{};
    d.name = operands[i]->tensor.c_str();
    d.indexing = indexing[i].c_str();
    d.dtype = static_cast<uint32_t>(graph.find_tensor(operands[i]->tensor)->dtype);
    if (Status s = check_abi_dtype(partitioner.library(), d.dtype); !s) return s.error();
    d.is_output = shape.operands[i].is_output ? 1 : 0;
    d.in_hbm = shape.operands[i].in_hbm ? 1 : 0;
    described.push_back(d);
  }
  tessera_op_desc desc{};
  desc.struct_size = sizeof desc;
  desc.name = op.name.c_str();
  desc.op_kind = static_cast<uint32_t>(op.kind);
  desc.num_ranks = static_cast<uint32_t>(ranks.size());
  desc.ranks = ranks.data();
  desc.num_operands = static_cast<uint32_t>(described.size());
  desc.operands = described.data();
  desc.flops = shape.flops;
  Collected collected{ranks.size(), {}};
  tessera_plan_sink sink{&collected, &collect};
  const tessera_partitioner* raw = partitioner.raw();
  Status status = partitioner.library().call("partitioner.plans",
                                             [&]() { return raw->plans(raw, &desc, &sink); });
  if (!status) {
    if (status.error().code == StatusCode::unimplemented) return PluginAnswer{};
    return status.error();
  }
  if (collected.plans.empty()) return PluginAnswer{};
  for (auto& [e, p] : collected.plans) {
    if (e.tile.size() != shape.extents.size()) e.core_digits.clear();  // cannot be placed
    if (!e.core_digits.empty()) adopt_placement(shape, e, p);
  }
  return PluginAnswer{std::move(collected.plans)};
}

}  // namespace tessera::planner::partition
