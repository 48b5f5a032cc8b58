// The abstract program of a Plan (Elk §4.5): per op `preload_async(op)` — the HBM controllers
// send op's preload-state data to every core, then set done_preload_op_<op> — and `execute(op)` —
// wait for that tag, distribute_data between cores, local_execute each core's tile, rotate shared
// operands (shifts), reduce across chips, write back to HBM, sync. The hardware runs it under
// three rules: (1) an execute blocks every later preload_async and execute until it completes;
// (2) preload_async instructions are served one at a time in program order; (3) preload_async(i)
// blocks only execute(i). And for a streamed op (the vendor design's streamed stack): (4) its
// execute does not wait for its tag; its preload starts only once the execute has its command and
// has launched (its kernels read it), distribute_data and local_execute run while the bytes land,
// and the shifts wait for the tag. The simulator (framework/sim)
// executes a Program; program_text.hpp writes and reads it as program.txt; program_check.hpp finds
// rule violations.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "framework/ir/graph.hpp"
#include "framework/planner/handoff.hpp"
#include "framework/planner/op_traffic.hpp"
#include "framework/planner/plan.hpp"

namespace tessera::codegen {

// What one op moves and computes, copied from the Plan's OpSchedule (bytes are machine totals,
// times seconds). A hand-written program carries the same fields on its instruction lines.
// A field added here is one same_run (program.cpp) must compare.
struct ProgramOp {
  int op = -1;  // graph op index
  std::string name;
  std::string exec_label, preload_label;
  double preload_bytes = 0;  // HBM -> cores (copies counted); 0: no preload_async
  // Bytes read from HBM for the preload: copies of one byte are read once and replicated on the
  // way (0: as preload_bytes).
  double hbm_read_bytes = 0;
  double distribute_bytes = 0;   // core -> core before local_execute
  double distribute_sync_s = 0;  // barrier ending distribute_data
  double compute_s = 0;          // local_execute of the slowest core, uncontended
  double shift_bytes = 0;        // core -> core rotations while executing
  double sync_s = 0;             // barriers between steps and at the end
  double reduce_bytes = 0;       // partial results exchanged between chips (multi-chip ops)
  double hbm_write_bytes = 0;    // cores -> HBM (KV-cache update)
  double flops = 0;
  uint32_t cores_used = 0;
  // The planner's estimate of this op's execute interval, for the report (seconds).
  double estimated_start_s = 0, estimated_end_s = 0;
  // Which cores exchange what (planner/op_traffic.hpp), shared by the ops of one class with one
  // plan; null: the plan does not say (the simulator's even patterns, docs/simulator.md).
  std::shared_ptr<const planner::OpTraffic> traffic;
  // The activations it takes from other chips before distribute_data (planner/handoff.hpp), from
  // its plan as the planner timed them; null: none (one chip, or a program without its plan).
  std::shared_ptr<const planner::HandOff> handoff;
  bool streamed = false;  // rule 4: its execute runs while its preload streams
  // The chip-to-chip collectives after its work (planner/collective_op.hpp): the last part of its
  // execute, their simulated seconds (every replica's copy moved at once). Its consumers wait for
  // them; preload_asyncs go on. 0: none.
  double collective_s = 0;
  bool has_preload() const { return preload_bytes > 0; }
};

enum class InstructionKind { preload_async, execute };
const char* to_string(InstructionKind kind);

struct Instruction {
  InstructionKind kind = InstructionKind::execute;
  int op = -1;   // index into Program::ops (equal to the graph op index for lowered plans)
  int line = 0;  // program.txt line it was read from; 0 when lowered
  bool operator==(const Instruction&) const = default;
};

struct Program {
  std::string name;            // "llama2-13b decode b16 s2048 on ipu-pod4-hbm3e, elk-full"
  std::vector<ProgramOp> ops;  // indexed by op
  std::vector<Instruction> instructions;
  double estimated_latency_s = 0;  // the planner's latency of the step
  // What each execute pays before its work (planner/schedule.hpp, "Fixed costs"): the plan's,
  // which program.txt does not carry (a hand-written program runs with its plan's).
  planner::DispatchCosts dispatch;
  // A streamed op's preload reads off-chip memory no faster than this, all chips together: the
  // plan's (DesignResult::stream_bytes_per_s), which program.txt does not carry either; 0: at the
  // memory's own rate.
  double stream_bytes_per_s = 0;
};

// Whether the simulator runs `a` and `b` alike: every field it reads is equal (the traffic by
// content, not by pointer); their names, which only label reports, may differ. Designs whose
// plans lower to such programs are simulated once (driver::compile).
bool same_run(const Program& a, const Program& b);

// Lowers a Plan: one execute per op in execution order, and each preload_async in the plan's
// preload order, placed before the first execute whose estimated end is after the preload's
// estimated start (so the preload can start while that op executes, rules 1–2), and never after
// its own op's execute. reduce_bytes is the plan's cross_chip_bytes: the partial results its
// execution plan merges between chips. Errors (input): the plan's ops do not match `graph` (count,
// order) or its preload order names an op twice or out of range.
Result<Program> lower_plan(const planner::Plan& plan, const ir::Graph& graph);

// Gives every op of `program` the traffic of the plan's op (lower_plan does; a hand-written
// program gets it from its plan here), except an op whose cores differ from the plan's, and on a
// machine that hands activations between chips (planner/handoff.hpp) each op its hand-off, from
// the plan's execution plans as the planner timed it. Errors (input): a plan whose factors or
// rotation do not fit its op, naming the op and the field.
Status attach_traffic(Program& program, const planner::Plan& plan, const ir::Graph& graph);

}  // namespace tessera::codegen
