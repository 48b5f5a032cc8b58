#include "framework/codegen/program.hpp"

#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <utility>

#include "framework/ir/repeats.hpp"

namespace tessera::codegen {

namespace {

// Times the planner computed from the same arithmetic may differ in the last bits.
constexpr double kTimeSlack_s = 1e-12;

ProgramOp program_op(const planner::OpSchedule& s, const Machine& machine) {
  ProgramOp p;
  p.op = s.op;
  p.name = s.name;
  p.exec_label = s.exec.label;
  p.preload_label = s.preload.label;
  p.preload_bytes = s.preload_position >= 0 ? s.preload.hbm_to_core_bytes : 0;
  p.hbm_read_bytes = s.preload_position >= 0 ? s.hbm_read_bytes : 0;
  // A resident op's operands move from their home as a preload's would from its layout.
  p.distribute_bytes = s.preload.distribute_bytes + s.exec.home_distribute_bytes;
  p.distribute_sync_s = p.distribute_bytes > 0 ? machine.sync_s : 0;
  p.compute_s = s.exec.compute_s;
  p.shift_bytes = s.exec.shift_bytes;
  p.sync_s = s.exec.sync_s;
  // Partial results merged between chips (the cost model prices their time within shift_s).
  p.reduce_bytes = s.exec.cross_chip_bytes;
  p.hbm_write_bytes = s.hbm_write_bytes;
  p.flops = s.flops;
  p.cores_used = s.exec.cores_used;
  p.estimated_start_s = s.execute_start_s;
  p.estimated_end_s = s.execute_end_s;
  p.streamed = s.streamed;
  for (const planner::CollectiveOp& c : s.collectives) p.collective_s += c.simulated_s;
  return p;
}

Status check_plan_shape(const planner::Plan& plan, const ir::Graph& graph) {
  const auto& ops = plan.result.ops;
  if (ops.size() != graph.ops().size())
    return input_error("plan: " + std::to_string(ops.size()) + " ops but the graph '" +
                       graph.name() + "' has " + std::to_string(graph.ops().size()));
  for (size_t i = 0; i < ops.size(); ++i) {
    if (ops[i].op != static_cast<int>(i))
      return input_error("plan: ops[" + std::to_string(i) + "] is op " + std::to_string(ops[i].op) +
                         "; ops must be in execution order");
  }
  std::vector<bool> seen(ops.size(), false);
  for (int op : plan.result.preload_order) {
    if (op < 0 || op >= static_cast<int>(ops.size()) || seen[op])
      return input_error("plan: preload_order names op " + std::to_string(op) +
                         ", which is out of range or listed twice");
    seen[op] = true;
  }
  return ok_status();
}

// Index of the execute instruction before which each preload (in preload order) is issued.
std::vector<size_t> preload_slots(const planner::Plan& plan) {
  const auto& ops = plan.result.ops;
  const auto& order = plan.result.preload_order;
  std::vector<size_t> slot(order.size());
  for (size_t j = 0; j < order.size(); ++j) {
    const auto& p = ops[order[j]];
    size_t e = 0;
    while (e < ops.size() && ops[e].execute_end_s <= p.preload_start_s + kTimeSlack_s) ++e;
    slot[j] = std::min(e, static_cast<size_t>(order[j]));
  }
  // Preloads are issued in order (rule 2): a later preload is never issued before an earlier one,
  // and an earlier one must move forward when a later one must be issued sooner.
  for (size_t j = order.size(); j-- > 1;) slot[j - 1] = std::min(slot[j - 1], slot[j]);
  return slot;
}

// Each op's hand-off from the plan's execution plans and the ops' traffic (planner/handoff.hpp),
// but an op whose cores differ from the plan's.
void attach_handoffs(Program& program, const planner::Plan& plan, const ir::Graph& graph,
                     const std::vector<std::optional<planner::partition::OpShape>>& shapes) {
  std::vector<planner::PlacedOp> placed(program.ops.size());
  for (size_t i = 0; i < placed.size(); ++i)
    if (shapes[i])
      placed[i] = {&*shapes[i], &plan.result.ops[i].exec, program.ops[i].traffic.get()};
  const auto sources = planner::activation_sources(graph);
  // A model's layers hand off alike: one description each, so the simulator lays each set once.
  std::vector<std::shared_ptr<const planner::HandOff>> made;
  // And each input alike once: what input_handoff reads of the two ops (their shapes and indexing
  // follow from their classes, ir/repeats.hpp; their tiles, factors and traffic) and the tensor's
  // storage shape.
  const std::vector<int> class_of = ir::identical_ops(graph).class_of;
  std::map<std::tuple<int, int, int, const planner::OpTraffic*, const planner::OpTraffic*,
                      std::vector<std::vector<int64_t>>, uint32_t, uint32_t>,
           planner::HandOff>
      inputs;
  for (size_t i = 0; i < program.ops.size(); ++i) {
    if (program.ops[i].cores_used != plan.result.ops[i].exec.cores_used) continue;
    std::vector<planner::HandOff> parts;
    for (const planner::Source& source : sources[i]) {
      const auto& c = plan.result.ops[i];
      const auto& p = plan.result.ops[source.producer];
      const ir::Operand& read = graph.ops()[i].einsum.inputs[source.operand];
      auto [it, fresh] =
          inputs.try_emplace({source.operand,
                              c.op_class,
                              p.op_class,
                              placed[i].traffic,
                              placed[source.producer].traffic,
                              {c.exec.tile, c.exec.factors, p.exec.tile, p.exec.factors,
                               graph.storage_tensor(read.tensor).shape},
                              c.exec.cores_used,
                              p.exec.cores_used});
      if (fresh)
        it->second =
            planner::input_handoff(graph, static_cast<int>(i), source, placed, plan.machine.chips);
      parts.push_back(it->second);
    }
    planner::HandOff handoff = planner::merged(parts);
    if (!(handoff.bytes() > 0)) continue;
    auto same =
        std::find_if(made.begin(), made.end(), [&](const auto& h) { return *h == handoff; });
    if (same == made.end())
      same = made.insert(made.end(), std::make_shared<planner::HandOff>(std::move(handoff)));
    program.ops[i].handoff = *same;
  }
}

// attach_traffic once the plan is known to match the graph.
Status attach_checked(Program& program, const planner::Plan& plan, const ir::Graph& graph) {
  // Identical ops with the same plan move the same bytes the same way: one description each.
  std::map<std::tuple<int, std::string, std::string>, std::shared_ptr<const planner::OpTraffic>>
      made;
  const bool hands_off =
      planner::hands_off(plan.machine) && program.ops.size() == plan.result.ops.size();
  std::vector<std::optional<planner::partition::OpShape>> shapes(program.ops.size());
  for (size_t i = 0; i < program.ops.size() && i < plan.result.ops.size(); ++i) {
    const planner::OpSchedule& s = plan.result.ops[i];
    ProgramOp& op = program.ops[i];
    const bool own = op.cores_used == s.exec.cores_used;
    const std::tuple<int, std::string, std::string> key{s.op_class, s.exec.label, s.preload.label};
    if (hands_off || (own && !made.contains(key))) {
      auto shape = planner::partition::describe_op(graph, graph.ops()[i]);
      if (!shape) return shape.error();
      shapes[i] = std::move(*shape);
    }
    if (!own) continue;
    auto [it, fresh] = made.try_emplace(key);
    if (fresh) {
      auto traffic =
          planner::op_traffic(*shapes[i], s.exec, s.preload.distribute_bytes, plan.machine.chips);
      if (!traffic)
        return input_error("ops[" + std::to_string(i) + "] (" + s.name +
                           "): " + traffic.error().message);
      if (*traffic) it->second = std::make_shared<planner::OpTraffic>(std::move(**traffic));
    }
    op.traffic = it->second;
  }
  if (hands_off) attach_handoffs(program, plan, graph, shapes);
  return ok_status();
}

// Every field but the traffic, which same_op compares by content.
auto fields(const ProgramOp& p) {
  return std::tie(p.op, p.name, p.exec_label, p.preload_label, p.preload_bytes, p.hbm_read_bytes,
                  p.distribute_bytes, p.distribute_sync_s, p.compute_s, p.shift_bytes, p.sync_s,
                  p.reduce_bytes, p.hbm_write_bytes, p.flops, p.cores_used, p.estimated_start_s,
                  p.estimated_end_s, p.streamed, p.collective_s);
}

// Equal by content (both null, or both set and equal).
template <class T>
bool same(const std::shared_ptr<const T>& a, const std::shared_ptr<const T>& b) {
  return a == b || (a && b && *a == *b);
}

bool same_op(const ProgramOp& a, const ProgramOp& b) {
  return fields(a) == fields(b) && same(a.traffic, b.traffic) && same(a.handoff, b.handoff);
}

}  // namespace

bool same_run(const Program& a, const Program& b) {
  return a.estimated_latency_s == b.estimated_latency_s && a.dispatch == b.dispatch &&
         a.stream_bytes_per_s == b.stream_bytes_per_s && a.instructions == b.instructions &&
         std::equal(a.ops.begin(), a.ops.end(), b.ops.begin(), b.ops.end(), same_op);
}

const char* to_string(InstructionKind kind) {
  return kind == InstructionKind::preload_async ? "preload_async" : "execute";
}

Result<Program> lower_plan(const planner::Plan& plan, const ir::Graph& graph) {
  if (auto status = check_plan_shape(plan, graph); !status) return status.error();
  Program program;
  program.name = plan.source.graph_name + " on " + plan.machine.chip + ", " +
                 planner::to_string(plan.result.design);
  program.estimated_latency_s = plan.result.latency_s;
  program.dispatch = plan.result.dispatch;
  program.stream_bytes_per_s = plan.result.stream_bytes_per_s;
  for (const auto& s : plan.result.ops) program.ops.push_back(program_op(s, plan.machine));
  std::vector<size_t> slot = preload_slots(plan);
  size_t next_preload = 0;
  const auto& order = plan.result.preload_order;
  for (size_t e = 0; e < program.ops.size(); ++e) {
    for (; next_preload < order.size() && slot[next_preload] <= e; ++next_preload) {
      if (program.ops[order[next_preload]].has_preload())
        program.instructions.push_back({InstructionKind::preload_async, order[next_preload], 0});
    }
    program.instructions.push_back({InstructionKind::execute, static_cast<int>(e), 0});
  }
  if (auto status = attach_checked(program, plan, graph); !status) return status.error();
  return program;
}

Status attach_traffic(Program& program, const planner::Plan& plan, const ir::Graph& graph) {
  if (auto status = check_plan_shape(plan, graph); !status) return status.error();
  return attach_checked(program, plan, graph);
}

}  // namespace tessera::codegen
