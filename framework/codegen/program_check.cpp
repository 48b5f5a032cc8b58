#include "framework/codegen/program_check.hpp"

#include <fmt/format.h>

#include <tessera/sdk/program_rules.hpp>

#include "framework/common/user_text.hpp"
#include "framework/ir/analysis.hpp"

namespace tessera::codegen {

namespace {

// The planner's own arithmetic may round the last bits of a figure it derives from the graph.
constexpr double kSlack = 1 + 1e-9;

// The line of each op's instruction of `kind` (0 when it has none).
std::vector<int> lines_of(const Program& program, InstructionKind kind) {
  std::vector<int> lines(program.ops.size(), 0);
  for (const auto& in : program.instructions)
    if (in.kind == kind && in.op >= 0 && static_cast<size_t>(in.op) < lines.size())
      lines[in.op] = in.line;
  return lines;
}

struct Limit {
  const char* key;
  double value, bound;
  const char* what;  // what bounds it, for the message
};

void check_op(const ProgramOp& op, const OpBounds& b, const Machine& machine, int exec_line,
              int preload_line, std::vector<Violation>& out) {
  std::string name = "op " + std::to_string(op.op) + " " + in_quotes(op.name);
  if (op.cores_used > machine.cores)
    out.push_back({exec_line, fmt::format("cores={}: {} has {} cores", op.cores_used, machine.chip,
                                          machine.cores)});
  std::string moved =
      fmt::format("its tensors' {:g} bytes on each of the {} cores", b.tensor_bytes, machine.cores);
  const Limit exec_limits[] = {
      {"distribute_bytes", op.distribute_bytes, b.moved_bytes, moved.c_str()},
      {"shift_bytes", op.shift_bytes, b.moved_bytes, moved.c_str()},
      {"reduce_bytes", op.reduce_bytes, b.moved_bytes, moved.c_str()},
      {"hbm_write_bytes", op.hbm_write_bytes, b.hbm_write_bytes, "the bytes of its output in HBM"},
      {"flops", op.flops, b.flops, "its Einsum's FLOPs"}};
  const Limit preload_limits[] = {
      {"bytes", op.preload_bytes, b.moved_bytes, moved.c_str()},
      {"hbm_bytes", op.hbm_read_bytes, b.hbm_read_bytes, "the bytes of its inputs in HBM"}};
  auto check = [&](const Limit& l, int line) {
    if (l.value > l.bound * kSlack)
      out.push_back({line, fmt::format("{}={:g}: {} can move at most {:g} ({})", l.key, l.value,
                                       name, l.bound, l.what)});
  };
  for (const auto& l : exec_limits) check(l, exec_line);
  for (const auto& l : preload_limits) check(l, preload_line);
}

}  // namespace

// The rules themselves live in the SDK (<tessera/sdk/program_rules.hpp>), shared with the
// conformance kit and CodeGen plugins; here a program.txt's instructions become its steps.
std::vector<Violation> check_program(const Program& program,
                                     const std::vector<int>* preload_order) {
  std::vector<sdk::ProgramStep> steps;
  for (const auto& in : program.instructions)
    steps.push_back(
        {in.kind == InstructionKind::preload_async, in.op, "line " + std::to_string(in.line)});
  std::vector<int64_t> order;
  if (preload_order != nullptr) order.assign(preload_order->begin(), preload_order->end());
  std::vector<Violation> out;
  for (auto& v : sdk::rule_violations(steps, program.ops.size(),
                                      preload_order != nullptr ? &order : nullptr)) {
    int line = v.step == sdk::RuleViolation::kMissing ? 0 : program.instructions[v.step].line;
    out.push_back({line, std::move(v.message)});
  }
  return out;
}

OpBounds op_bounds(const ir::Graph& graph, const ir::Op& op, const Machine& machine) {
  ir::OpCost cost = ir::op_cost(graph, op);
  OpBounds b;
  b.tensor_bytes = cost.hbm_bytes_in + cost.on_chip_bytes_in + cost.bytes_out;
  b.moved_bytes = b.tensor_bytes * machine.cores;
  b.hbm_read_bytes = cost.hbm_bytes_in;
  b.hbm_write_bytes = cost.writes_hbm ? cost.bytes_out : 0;
  b.flops = cost.flops;
  return b;
}

std::vector<Violation> check_program_bounds(const Program& program, const ir::Graph& graph,
                                            const Machine& machine) {
  std::vector<int> exec_lines = lines_of(program, InstructionKind::execute);
  std::vector<int> preload_lines = lines_of(program, InstructionKind::preload_async);
  std::vector<Violation> out;
  for (size_t i = 0; i < program.ops.size() && i < graph.ops().size(); ++i)
    check_op(program.ops[i], op_bounds(graph, graph.ops()[i], machine), machine, exec_lines[i],
             preload_lines[i], out);
  return out;
}

std::vector<std::string> violation_lines(const std::vector<Violation>& violations,
                                         const std::string& file, size_t shown) {
  std::vector<std::string> lines;
  for (size_t i = 0; i < violations.size() && i < shown; ++i) {
    const Violation& v = violations[i];
    lines.push_back(file + (v.line > 0 ? ":" + std::to_string(v.line) : std::string()) + ": " +
                    v.message);
  }
  if (violations.size() > shown)
    lines.push_back(fmt::format("{}: {} more violations ({} in all); fix the ones above first",
                                file, violations.size() - shown, violations.size()));
  return lines;
}

}  // namespace tessera::codegen
