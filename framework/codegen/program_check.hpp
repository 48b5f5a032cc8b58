// Finds violations of the program model's rules (program.hpp) in a program, e.g. a hand-written
// program.txt, before it is simulated. A violation is a result, not an error: the caller decides
// whether to refuse the program (tessera simulate --run-program does). The rules are the SDK's
// (<tessera/sdk/program_rules.hpp>), the same ones CodeGen plugins and the conformance kit apply.
#pragma once

#include <string>
#include <vector>

#include "framework/codegen/program.hpp"

namespace tessera::codegen {

struct Violation {
  int line = 0;  // program.txt line at fault; 0 when the fault is something missing
  std::string message;
};

// Checks, in this order of reporting (instruction order, then what is missing):
//  - execute(i) before the preload_async(i) that follows it: execute(i) would wait for its tag
//    forever, since rule 1 stops every later instruction until it completes;
//  - executes not in graph order, or an op executed twice;
//  - a preload_async issued before the one `preload_order` puts just before it, or one not in
//    that order at all (rule 2), when the order is given (the plan's);
//  - ops never executed, and preloads of `preload_order` never issued.
std::vector<Violation> check_program(const Program& program,
                                     const std::vector<int>* preload_order = nullptr);

// "FILE:LINE: message" (or "FILE: message" for line 0), one per line.
std::string format_violations(const std::vector<Violation>& violations, const std::string& file);

}  // namespace tessera::codegen
