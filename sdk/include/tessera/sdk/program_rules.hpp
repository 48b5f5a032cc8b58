// The rules of the programming model, checked on a program's instruction sequence. The hardware
// runs a program under three rules: (1) an execute blocks every later preload_async and execute
// until it completes; (2) preload_async instructions are served one at a time in program order;
// (3) preload_async(i) blocks only execute(i). So a program must not
//  - issue execute(i) before the preload_async(i) that follows it (it would wait forever),
//  - execute ops out of graph order, or one op twice, or leave an op unexecuted,
//  - issue preloads out of the plan's preload order, when that order is known.
//
// One check for everyone: the host refuses hand-written programs with it (tessera simulate
// --run-program), the conformance kit builds its CodeGen programs with it, and a CodeGen plugin
// refuses a program that breaks a rule with require_program_rules (INVALID_ARGUMENT).
// Header-only, C++17, no dependencies beyond the ABI.
#pragma once

#include <tessera/plugin_abi.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <tessera/sdk/error.hpp>
#include <vector>

namespace tessera::sdk {

// One instruction as the rules see it: a preload_async(op), or an execute(op).
struct ProgramStep {
  bool preload = false;
  int64_t op = 0;
  std::string where;  // how messages name its position: "line 12", "instruction 3"
};

struct RuleViolation {
  static constexpr size_t kMissing = static_cast<size_t>(-1);
  size_t step = kMissing;  // index of the step at fault; kMissing when something is missing
  std::string message;
};

namespace detail {

inline std::string call(const char* what, int64_t op) {
  return std::string(what) + "(" + std::to_string(op) + ")";
}

// Checks one preload_async against the plan's order: one moved preload is one violation.
inline void check_preload_order(const ProgramStep& step, size_t index,
                                const std::vector<int64_t>& order,
                                const std::map<int64_t, bool>& preloaded,
                                std::vector<RuleViolation>& out) {
  auto at = std::find(order.begin(), order.end(), step.op);
  if (at == order.end()) {
    out.push_back({index, call("preload_async", step.op) + " is not in the plan's preload order"});
  } else if (at != order.begin() && !preloaded.count(*(at - 1))) {
    out.push_back({index, call("preload_async", step.op) + " is issued before " +
                              call("preload_async", *(at - 1)) +
                              ", which the plan preloads first (rule 2)"});
  }
}

}  // namespace detail

// The violations of `steps`, a program of `num_ops` ops, in instruction order, then what is
// missing (ops never executed; preloads of `preload_order` never issued). `preload_order` is the
// plan's, or NULL when unknown.
inline std::vector<RuleViolation> rule_violations(const std::vector<ProgramStep>& steps,
                                                  size_t num_ops,
                                                  const std::vector<int64_t>* preload_order) {
  std::vector<RuleViolation> out;
  std::map<int64_t, const ProgramStep*> first_preload;
  for (const ProgramStep& s : steps)
    if (s.preload) first_preload.emplace(s.op, &s);
  std::map<int64_t, bool> preloaded, executed;
  int64_t next_execute = 0;
  for (size_t i = 0; i < steps.size(); ++i) {
    const ProgramStep& s = steps[i];
    if (s.preload) {
      preloaded[s.op] = true;
      if (preload_order != nullptr)
        detail::check_preload_order(s, i, *preload_order, preloaded, out);
      continue;
    }
    auto later = first_preload.find(s.op);
    if (later != first_preload.end() && !preloaded.count(s.op))
      out.push_back({i, detail::call("execute", s.op) + " comes before " +
                            detail::call("preload_async", s.op) + " on " + later->second->where +
                            "; it would wait forever for done_preload_op_" + std::to_string(s.op) +
                            " (rules 1 and 3)"});
    if (executed.count(s.op))
      out.push_back({i, detail::call("execute", s.op) + " is issued twice"});
    else if (s.op != next_execute)
      out.push_back({i, detail::call("execute", s.op) + " comes before " +
                            detail::call("execute", next_execute) +
                            "; ops execute in graph order"});
    executed[s.op] = true;
    while (executed.count(next_execute)) ++next_execute;
  }
  for (size_t op = 0; op < num_ops; ++op)
    if (!executed.count(static_cast<int64_t>(op)))
      out.push_back({RuleViolation::kMissing,
                     detail::call("execute", static_cast<int64_t>(op)) + " is never issued"});
  if (preload_order != nullptr)
    for (int64_t op : *preload_order)
      if (!preloaded.count(op))
        out.push_back({RuleViolation::kMissing, detail::call("preload_async", op) +
                                                    " is never issued but the plan preloads op " +
                                                    std::to_string(op)});
  return out;
}

// The steps of an ABI program. TESSERA_INSTR_EXECUTE is one execute; a run of consecutive
// WAIT/DISTRIBUTE/LOCAL_EXECUTE/SYNC instructions of one op is that op's execute spelled out, so
// it is one execute too. Positions are "instruction N" (0-based).
inline std::vector<ProgramStep> program_steps(const tessera_program& program) {
  std::vector<ProgramStep> steps;
  bool in_spelled_out = false;
  for (size_t i = 0; i < program.num_instructions; ++i) {
    const tessera_instruction& in = program.instructions[i];
    bool spelled_out = in.kind != TESSERA_INSTR_PRELOAD_ASYNC && in.kind != TESSERA_INSTR_EXECUTE;
    if (spelled_out && in_spelled_out && steps.back().op == in.op) continue;
    in_spelled_out = spelled_out;
    steps.push_back({in.kind == TESSERA_INSTR_PRELOAD_ASYNC, static_cast<int64_t>(in.op),
                     "instruction " + std::to_string(i)});
  }
  return steps;
}

// Throws INVALID_ARGUMENT naming the first violation (and how many more) when `program` breaks a
// rule: what a CodeGen does instead of emitting it. `program.instructions` must be readable.
inline void require_program_rules(const tessera_program& program) {
  std::vector<ProgramStep> steps = program_steps(program);
  std::vector<RuleViolation> violations = rule_violations(steps, program.num_ops, nullptr);
  if (violations.empty()) return;
  const RuleViolation& first = violations.front();
  std::string where = first.step == RuleViolation::kMissing ? "" : steps[first.step].where + ": ";
  std::string more =
      violations.size() == 1 ? "" : " (and " + std::to_string(violations.size() - 1) + " more)";
  throw invalid_argument("the program breaks the programming model's rules: " + where +
                         first.message + more);
}

}  // namespace tessera::sdk
