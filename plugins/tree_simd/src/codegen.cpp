#include "codegen.hpp"

#include <algorithm>
#include <set>
#include <tessera/sdk/error.hpp>

#include "broadcast.hpp"
#include "text.hpp"

namespace tessera::plugins::tree {

namespace {

std::string range_text(uint64_t first, uint64_t count) {
  return "@" + std::to_string(first) + (count > 1 ? ".." + std::to_string(first + count - 1) : "");
}

void append_move(std::vector<Move>& moves, const Move& m) {
  if (!moves.empty()) {
    Move& last = moves.back();
    if (last.src_level == m.src_level && last.src_block == m.src_block &&
        last.dst_level == m.dst_level && last.dst_block == m.dst_block &&
        last.src_address + last.count == m.src_address &&
        last.dst_address + last.count == m.dst_address) {
      ++last.count;
      return;
    }
  }
  moves.push_back(m);
}

void append_fill(std::vector<Fill>& fills, const Fill& f) {
  if (!fills.empty()) {
    Fill& last = fills.back();
    if (last.level == f.level && last.block == f.block && last.value == f.value &&
        last.address + last.count == f.address) {
      ++last.count;
      return;
    }
  }
  fills.push_back(f);
}

// True when every element out needs from `x` (broadcasting) has a copy in out's block at out's
// address offset from x's base.
bool aligned(const TreeLayout& out, const TreeLayout& x) {
  bool ok = true;
  uint64_t found[TESSERA_MAX_RANKS];
  std::string why;
  for_each_place(out, [&](const uint64_t* index, bool real, const TreeLayout::Place& p) {
    if (!ok || !real) return;
    uint64_t offset = p.address - out.base_address();
    tessera_location where = x.location_of({p.core, x.base_address() + offset});
    if (x.memory_level() != out.memory_level() || !x.try_inverse(where, found, &why)) {
      ok = false;
      return;
    }
    std::vector<uint64_t> want = broadcast_index(x.shape(), out.shape(), index);
    ok = std::equal(want.begin(), want.end(), found);
  });
  return ok;
}

// Sorted flat ranges [first, last] of the blocks out uses, and the runs of address offsets.
void footprint(const TreeLayout& out, std::vector<std::pair<uint64_t, uint64_t>>& blocks,
               std::vector<std::pair<uint64_t, uint64_t>>& runs) {
  std::set<uint64_t> cores, offsets;
  for_each_place(out, [&](const uint64_t*, bool, const TreeLayout::Place& p) {
    cores.insert(p.core);
    offsets.insert(p.address - out.base_address());
  });
  auto to_ranges = [](const std::set<uint64_t>& values,
                      std::vector<std::pair<uint64_t, uint64_t>>& ranges) {
    for (uint64_t v : values) {
      if (!ranges.empty() && ranges.back().second + 1 == v)
        ranges.back().second = v;
      else
        ranges.push_back({v, v});
    }
  };
  to_ranges(cores, blocks);
  to_ranges(offsets, runs);
}

double apply(SimdOp op, double a, double b) {
  switch (op) {
    case SimdOp::add:
      return a + b;
    case SimdOp::sub:
      return a - b;
    case SimdOp::mul:
      return a * b;
    case SimdOp::min:
      return std::min(a, b);
    case SimdOp::max:
      return std::max(a, b);
  }
  return 0;
}

}  // namespace

MoveProgram relayout_moves(const TreeLayout& src, const TreeLayout& dst, double pad_value) {
  check_broadcast(src.shape(), dst.shape(), "the source tensor");
  MoveProgram program{{}, {}, Traffic(src.chip())};
  uint32_t from = src.memory_level(), to = dst.memory_level();
  for_each_place(dst, [&](const uint64_t* index, bool real, const TreeLayout::Place& p) {
    if (!real) {
      append_fill(program.fills, Fill{to, p.core, p.address, 1, pad_value});
      return;
    }
    std::vector<uint64_t> si = broadcast_index(src.shape(), dst.shape(), index);
    TreeLayout::Place s = src.place(si.data());
    append_move(program.moves, Move{common_level(src.chip(), from, s.core, to, p.core), from,
                                    s.core, s.address, to, p.core, p.address, 1});
    program.traffic.add_move(from, s.core, to, p.core);
  });
  return program;
}

std::string format_moves(const TreeChip& chip, const MoveProgram& program) {
  std::string text;
  for (const Move& m : program.moves) {
    std::string src = chip.path_text(m.src_level, m.src_block);
    std::string dst = chip.path_text(m.dst_level, m.dst_block);
    if (m.src_level == m.dst_level && m.src_block == m.dst_block)
      text += "copy in " + src + ": " + range_text(m.src_address, m.count) + " -> " +
              range_text(m.dst_address, m.count) + "\n";
    else
      text += "move via " +
              (m.turn_level < 0 ? std::string("top")
                                : chip.level(static_cast<uint32_t>(m.turn_level)).name) +
              ": " + src + " " + range_text(m.src_address, m.count) + " -> " + dst + " " +
              range_text(m.dst_address, m.count) + "\n";
  }
  for (const Fill& f : program.fills)
    text += "fill " + chip.path_text(f.level, f.block) + " " + range_text(f.address, f.count) +
            " = " + std::to_string(f.value) + "\n";
  return text;
}

void execute(const MoveProgram& program, FunctionalModel& model) {
  std::vector<double> in_flight;
  for (const Move& m : program.moves)
    for (uint64_t k = 0; k < m.count; ++k)
      in_flight.push_back(model.load(m.src_level, m.src_block, m.src_address + k));
  size_t next = 0;
  for (const Move& m : program.moves)
    for (uint64_t k = 0; k < m.count; ++k)
      model.store(m.dst_level, m.dst_block, m.dst_address + k, in_flight[next++]);
  for (const Fill& f : program.fills)
    for (uint64_t k = 0; k < f.count; ++k) model.store(f.level, f.block, f.address + k, f.value);
}

SimdOp parse_simd_op(const std::string& name) {
  for (SimdOp op : {SimdOp::add, SimdOp::sub, SimdOp::mul, SimdOp::min, SimdOp::max})
    if (name == to_string(op)) return op;
  throw sdk::invalid_argument("unknown elementwise op '" + name +
                              "'; expected add, sub, mul, min or max");
}

const char* to_string(SimdOp op) {
  switch (op) {
    case SimdOp::add:
      return "add";
    case SimdOp::sub:
      return "sub";
    case SimdOp::mul:
      return "mul";
    case SimdOp::min:
      return "min";
    case SimdOp::max:
      return "max";
  }
  return "?";
}

SimdProgram elementwise_program(SimdOp op, const TreeLayout& out, const TreeLayout& a,
                                const TreeLayout& b, uint64_t scratch_base) {
  if (out.copies() != 1)
    throw sdk::invalid_argument(
        "the output of an elementwise op must hold every element once "
        "(no '*' items in its layout)");
  check_broadcast(a.shape(), out.shape(), "the first operand");
  check_broadcast(b.shape(), out.shape(), "the second operand");
  SimdProgram program;
  std::vector<uint64_t> bases;
  for (const TreeLayout* x : {&a, &b}) {
    if (aligned(out, *x)) {
      bases.push_back(x->base_address());
      continue;
    }
    LayoutText text = parse_layout_text(out.format());
    text.base_address = scratch_base;
    text.base_column = 0;
    TreeLayout scratch(out.chip_ptr(), text, out.shape());
    program.prologue.push_back(relayout_moves(*x, scratch));
    bases.push_back(scratch_base);
    scratch_base = scratch.address_end();
  }
  std::vector<std::pair<uint64_t, uint64_t>> blocks, runs;
  footprint(out, blocks, runs);
  for (auto [first, last] : runs)
    program.body.push_back(SimdInstruction{op, out.memory_level(), blocks,
                                           out.base_address() + first, bases[0] + first,
                                           bases[1] + first, last - first + 1});
  return program;
}

std::string format_simd(const TreeChip& chip, const SimdProgram& program) {
  std::string text;
  for (size_t i = 0; i < program.prologue.size(); ++i)
    text += "# re-layout operand beside the output (" +
            std::to_string(program.prologue[i].moves.size()) + " moves)\n" +
            format_moves(chip, program.prologue[i]);
  for (const SimdInstruction& s : program.body) {
    std::vector<std::string> ranges;
    for (auto [first, last] : s.blocks)
      ranges.push_back(first == last ? std::to_string(first)
                                     : std::to_string(first) + ".." + std::to_string(last));
    text += std::string("simd ") + to_string(s.op) + " on " + chip.level(s.level).name + "[" +
            join(ranges, ",") + "]: " + range_text(s.out, s.length) + " = " +
            range_text(s.a, s.length) + ", " + range_text(s.b, s.length) + "\n";
  }
  return text;
}

void execute(const SimdProgram& program, FunctionalModel& model) {
  for (const MoveProgram& moves : program.prologue) execute(moves, model);
  for (const SimdInstruction& s : program.body)
    for (auto [first, last] : s.blocks)
      for (uint64_t block = first; block <= last; ++block)
        for (uint64_t k = 0; k < s.length; ++k)
          model.store(s.level, block, s.out + k,
                      apply(s.op, model.load(s.level, block, s.a + k),
                            model.load(s.level, block, s.b + k)));
}

}  // namespace tessera::plugins::tree
