#include "framework/codegen/program_check.hpp"

#include <algorithm>
#include <map>

namespace tessera::codegen {

namespace {

std::string call(const char* what, int op) {
  return std::string(what) + "(" + std::to_string(op) + ")";
}

// Line of each op's preload_async; the first one when an op is preloaded twice.
std::map<int, int> preload_lines(const Program& program) {
  std::map<int, int> lines;
  for (const auto& in : program.instructions) {
    if (in.kind == InstructionKind::preload_async) lines.emplace(in.op, in.line);
  }
  return lines;
}

}  // namespace

std::vector<Violation> check_program(const Program& program,
                                     const std::vector<int>* preload_order) {
  std::vector<Violation> out;
  std::map<int, int> preload_line = preload_lines(program);
  std::map<int, bool> preloaded, executed;
  int next_execute = 0;
  for (const auto& in : program.instructions) {
    if (in.kind == InstructionKind::preload_async) {
      preloaded[in.op] = true;
      if (preload_order == nullptr) continue;
      // Against the op just before it in the plan's order: one moved preload is one violation.
      auto at = std::find(preload_order->begin(), preload_order->end(), in.op);
      if (at == preload_order->end()) {
        out.push_back(
            {in.line, call("preload_async", in.op) + " is not in the plan's preload order"});
      } else if (at != preload_order->begin() && !preloaded[*(at - 1)]) {
        out.push_back({in.line, call("preload_async", in.op) + " is issued before " +
                                    call("preload_async", *(at - 1)) +
                                    ", which the plan preloads first (rule 2)"});
      }
      continue;
    }
    auto later = preload_line.find(in.op);
    if (later != preload_line.end() && !preloaded[in.op])
      out.push_back({in.line, call("execute", in.op) + " comes before " +
                                  call("preload_async", in.op) + " on line " +
                                  std::to_string(later->second) + "; it would wait forever for " +
                                  "done_preload_op_" + std::to_string(in.op) + " (rules 1 and 3)"});
    if (executed[in.op])
      out.push_back({in.line, call("execute", in.op) + " is issued twice"});
    else if (in.op != next_execute)
      out.push_back({in.line, call("execute", in.op) + " comes before " +
                                  call("execute", next_execute) + "; ops execute in graph order"});
    executed[in.op] = true;
    while (executed[next_execute]) ++next_execute;
  }
  for (size_t op = 0; op < program.ops.size(); ++op) {
    if (!executed[static_cast<int>(op)])
      out.push_back({0, call("execute", static_cast<int>(op)) + " is never issued"});
  }
  if (preload_order != nullptr) {
    for (int op : *preload_order) {
      if (!preloaded[op])
        out.push_back({0, call("preload_async", op) + " is never issued but the plan preloads op " +
                              std::to_string(op)});
    }
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
