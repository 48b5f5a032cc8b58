// Code for a tree chip, as listings the functional model can run:
//  * re-layout: the data moves (the level where a move turns, source block, destination block,
//    address ranges) that turn a tensor laid out one way into the same tensor laid out another
//    (or into a larger shape, broadcasting), plus the fills of the target's padding;
//  * elementwise ops: the per-block SIMD instructions every block of the memory level runs in
//    lockstep, after re-laying out any operand whose elements do not sit beside the output's.
// A move program runs as one step: every source is read before any destination is written, so a
// tensor may be re-laid out in place.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "functional_model.hpp"
#include "layout.hpp"
#include "layout_cost.hpp"

namespace tessera::plugins::tree {

// `count` consecutive addresses from one block to another.
struct Move {
  int32_t turn_level = 0;  // the lowest common ancestor's level; -1: across the top-level links
  uint32_t src_level = 0;
  uint64_t src_block = 0;  // flat index within src_level
  uint64_t src_address = 0;
  uint32_t dst_level = 0;
  uint64_t dst_block = 0;
  uint64_t dst_address = 0;
  uint64_t count = 0;
};

struct Fill {
  uint32_t level = 0;
  uint64_t block = 0;
  uint64_t address = 0;
  uint64_t count = 0;
  double value = 0;
};

struct MoveProgram {
  std::vector<Move> moves;
  std::vector<Fill> fills;
  Traffic traffic;  // of the moves that leave their block
};

// The moves that put the tensor held in `src` into `dst`. dst's shape must equal src's or
// broadcast from it (axes aligned from the last, source extents 1 repeat); every stored copy of
// dst is written, its padding with `pad_value`. Throws INVALID_ARGUMENT for shapes that do not
// broadcast.
MoveProgram relayout_moves(const TreeLayout& src, const TreeLayout& dst, double pad_value = 0);

// One line per move and fill: "move via A: A0 B1 @0..24 -> A2 B3 @25..49".
std::string format_moves(const TreeChip& chip, const MoveProgram& program);

// Runs `program` on the model's raw memories.
void execute(const MoveProgram& program, FunctionalModel& model);

enum class SimdOp { add, sub, mul, min, max };
SimdOp parse_simd_op(const std::string& name);  // throws INVALID_ARGUMENT listing the ops
const char* to_string(SimdOp op);

// One lockstep instruction: on every block in `blocks` of `level`, for k < length:
// memory[out + k] = memory[a + k] OP memory[b + k].
struct SimdInstruction {
  SimdOp op = SimdOp::add;
  uint32_t level = 0;
  std::vector<std::pair<uint64_t, uint64_t>> blocks;  // flat block ranges [first, last]
  uint64_t out = 0, a = 0, b = 0;
  uint64_t length = 0;
};

struct SimdProgram {
  std::vector<MoveProgram> prologue;  // operands re-laid out beside the output, in order
  std::vector<SimdInstruction> body;
};

// out = a OP b, elementwise, with a and b broadcasting to out's shape. An operand whose element
// for every index of out is not in out's block at out's address offset (relative to the bases) is
// first copied into a scratch layout that is: out's layout at base `scratch_base` (the second
// operand needing one goes just after the first). Throws INVALID_ARGUMENT when out is broadcast
// (it must hold every element once) or shapes do not broadcast, RESOURCE_EXHAUSTED when the
// scratch space does not fit the memory.
SimdProgram elementwise_program(SimdOp op, const TreeLayout& out, const TreeLayout& a,
                                const TreeLayout& b, uint64_t scratch_base);

std::string format_simd(const TreeChip& chip, const SimdProgram& program);
void execute(const SimdProgram& program, FunctionalModel& model);

}  // namespace tessera::plugins::tree
