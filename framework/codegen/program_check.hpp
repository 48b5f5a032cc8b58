// Finds what a program (e.g. a hand-written program.txt) must not do before it is simulated: breaks
// of the program model's rules (program.hpp), and numbers no compile of its graph on its chip could
// produce. A violation is a result, not an error: the caller decides whether to refuse the program
// (tessera simulate --run-program does). The rules are the SDK's
// (<tessera/sdk/program_rules.hpp>), the same ones CodeGen plugins and the conformance kit apply.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "framework/chip/machine.hpp"
#include "framework/codegen/program.hpp"
#include "framework/ir/graph.hpp"

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

// What one op of a graph can move and compute on a machine, as a compile could produce it.
struct OpBounds {
  double tensor_bytes = 0;  // its inputs' and output's footprints
  // Bytes moved or held in all: each of its tensors' bytes on every core at most.
  double moved_bytes = 0;
  double hbm_read_bytes = 0;   // its inputs that live in HBM
  double hbm_write_bytes = 0;  // its output, when that lives in HBM
  double flops = 0;            // its Einsum's
};
OpBounds op_bounds(const ir::Graph& graph, const ir::Op& op, const Machine& machine);

// Numbers of `program` outside its ops' bounds on `machine` (cores beyond the machine's, bytes
// beyond what the op's tensors hold, HBM traffic beyond its HBM data, FLOPs beyond its Einsum's),
// naming the line and key. The program's ops must be the graph's (the caller checks the count).
std::vector<Violation> check_program_bounds(const Program& program, const ir::Graph& graph,
                                            const Machine& machine);

// The first `shown` violations as "FILE:LINE: message" (or "FILE: message" for line 0), then, when
// there are more, one line with how many more: what a user reads first, not hundreds of lines.
std::vector<std::string> violation_lines(const std::vector<Violation>& violations,
                                         const std::string& file, size_t shown = 10);

}  // namespace tessera::codegen
