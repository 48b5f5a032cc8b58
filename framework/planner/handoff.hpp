// The activations that cross chips between ops: the one description of the hand-off that the
// planner's timeline prices, the code generator emits (codegen/program.hpp, ProgramOp::handoff)
// and the simulator runs on the chip links (sim/engine.cpp, before distribute_data).
//
// Under the flat strategy every op spreads its tiles over every chip (op_traffic.hpp: the plan's
// cores in consecutive blocks per chip, the tiles in mixed radix over the factors in the
// placement's order). An op input that an earlier op produced on chip (an activation, not an
// off-chip tensor) sits where that producer's tiles left it; each chip needs the part of it that
// its own tiles read. The hand-off of an input is, per chip, the bytes its tiles read that no tile
// of the producer on that chip holds, each sent by the nearest chip (by chip index) that holds it.
//
// Exact rule: when the producer's output and the consumer's operand index the tensor's storage
// alike — every dimension by one rank at stride 1 over the whole dimension, no offset, no view of
// another shape, no indirect index — the tensor is cut per dimension at both ops' tile bounds and
// each cell is checked (the holders of a merged output are the roots of its combine tree, or every
// partial's core when the merge is sent back down: softmax, normalisation). Otherwise (a view, a
// slice, a window, a plan that does not record its factors) the placements are taken as
// unrelated: chip c needs the share of the tensor its tiles read (at most all of it), of which
// each other chip holds the share of the producer's tiles on it.
//
// One chip, or a machine without chip links (Machine::chip_link_bytes_per_s 0: the per-core-rate
// accounting, whose cost model prices chips itself): no hand-off.
#pragma once

#include <cstdint>
#include <vector>

#include "framework/chip/machine.hpp"
#include "framework/ir/graph.hpp"
#include "framework/planner/op_plans.hpp"
#include "framework/planner/op_traffic.hpp"
#include "framework/planner/partition/plan_space.hpp"

namespace tessera::planner {

struct ChipMove {
  uint32_t from_chip = 0, to_chip = 0;
  double bytes = 0;
  bool operator==(const ChipMove&) const = default;
};

// An op's hand-off: each (from, to) pair of chips once, in (from, to) order, bytes > 0.
struct HandOff {
  std::vector<ChipMove> moves;
  double bytes() const;
  bool operator==(const HandOff&) const = default;
};

// Whether `machine` hands activations between chips (more than one chip, with chip links).
bool hands_off(const Machine& machine);

// One op as the hand-off reads it: its shape, its chosen execution plan and where its tiles sit
// (null: the plan does not record its factors).
struct PlacedOp {
  const partition::OpShape* shape = nullptr;
  const ExecPlan* exec = nullptr;
  const OpTraffic* traffic = nullptr;
};

// Per op of `graph`, its inputs that an earlier op wrote on chip: (input operand, the last op
// before it writing that tensor's storage).
struct Source {
  int operand = 0;
  int producer = 0;
};
std::vector<std::vector<Source>> activation_sources(const ir::Graph& graph);

// The bytes input `source.operand` of op `consumer` needs from the chips where its producer left
// it, on a machine of `chips` chips (ops from `graph`, placed as `placed` says).
HandOff input_handoff(const ir::Graph& graph, int consumer, const Source& source,
                      const std::vector<PlacedOp>& placed, uint32_t chips);

// Merges hand-offs (the inputs of one op) into one.
HandOff merged(const std::vector<HandOff>& parts);

}  // namespace tessera::planner
