#include "framework/codegen/program_check.hpp"

#include <tessera/sdk/program_rules.hpp>

namespace tessera::codegen {

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

std::string format_violations(const std::vector<Violation>& violations, const std::string& file) {
  std::string text;
  for (const auto& v : violations) {
    text += file + (v.line > 0 ? ":" + std::to_string(v.line) : std::string()) + ": " + v.message +
            "\n";
  }
  return text;
}

}  // namespace tessera::codegen
