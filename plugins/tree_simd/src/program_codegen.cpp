#include "program_codegen.hpp"

#include <algorithm>
#include <cctype>
#include <numeric>
#include <tessera/sdk/error.hpp>
#include <tessera/sdk/program_rules.hpp>

#include "codegen.hpp"
#include "partitioner.hpp"
#include "text.hpp"

#ifndef TESSERA_PLUGIN_NAME
#error "TESSERA_PLUGIN_NAME and TESSERA_PLUGIN_VERSION must be defined by the build"
#endif

namespace tessera::plugins::tree {

namespace {

using Divisions = std::vector<std::vector<uint64_t>>;

const char* kind_name(uint32_t kind) {
  static const char* const kNames[] = {"matmul", "batched_matmul", "conv",    "elementwise",
                                       "unary",  "reduction",      "softmax", "normalization",
                                       "gather", "data_movement",  "other"};
  return kind <= TESSERA_OP_OTHER ? kNames[kind] : "unknown";
}

const char* instruction_name(uint32_t kind) {
  static const char* const kNames[] = {"preload_async", "execute",       "wait",
                                       "distribute",    "local_execute", "sync"};
  return kind <= TESSERA_INSTR_SYNC ? kNames[kind] : nullptr;
}

std::string file_stem(const char* name) {
  std::string stem = name != nullptr && *name != '\0' ? name : "program";
  for (char& c : stem)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '-' && c != '.') c = '_';
  return stem;
}

// Shares the plan's divisions per rank (extent / tile) among the levels, top down, each level
// taking what divides its fanout. False when the tree cannot split the ranks that way.
bool divisions_for(const TreeChip& chip, const tessera_op_desc& op,
                   const tessera_partition_plan& plan, Divisions& out) {
  std::vector<uint64_t> remaining(op.num_ranks);
  for (uint32_t r = 0; r < op.num_ranks; ++r) {
    uint64_t tile = std::max<uint64_t>(plan.tile_extents[r], 1);
    remaining[r] = (op.ranks[r].extent + tile - 1) / tile;
  }
  out.assign(chip.num_levels(), std::vector<uint64_t>(op.num_ranks, 1));
  for (uint32_t k = 0; k < chip.num_levels(); ++k) {
    uint64_t room = chip.level(k).fanout;
    for (uint32_t r = 0; r < op.num_ranks; ++r) {
      uint64_t g = std::gcd(room, remaining[r]);
      out[k][r] = g;
      remaining[r] /= g;
      room /= g;
    }
  }
  return std::all_of(remaining.begin(), remaining.end(), [](uint64_t x) { return x == 1; });
}

SimdOp function_of(const std::string& name) {
  for (SimdOp op : {SimdOp::add, SimdOp::sub, SimdOp::mul, SimdOp::min, SimdOp::max})
    if (name.find(to_string(op)) != std::string::npos) return op;
  return SimdOp::add;
}

std::string tile_text(const tessera_op_desc& op, const tessera_partition_plan& plan) {
  std::vector<std::string> parts;
  for (uint32_t r = 0; r < op.num_ranks; ++r)
    parts.push_back(std::string(op.ranks[r].name) + std::to_string(plan.tile_extents[r]));
  return join(parts, " ");
}

void check_program(const tessera_program& p) {
  if (p.num_ops > 0 && p.ops == nullptr)
    throw sdk::invalid_argument("program has " + std::to_string(p.num_ops) +
                                " ops but ops is NULL");
  if (p.num_instructions > 0 && p.instructions == nullptr)
    throw sdk::invalid_argument("program has instructions but instructions is NULL");
  for (size_t i = 0; i < p.num_ops; ++i) {
    const tessera_op_desc& op = p.ops[i];
    if (op.num_ranks > TESSERA_MAX_RANKS || (op.num_ranks > 0 && op.ranks == nullptr) ||
        (op.num_operands > 0 && op.operands == nullptr))
      throw sdk::invalid_argument("op " + std::to_string(i) + " is inconsistent (ranks, operands)");
    for (uint32_t r = 0; r < op.num_ranks; ++r)
      if (op.ranks[r].name == nullptr)
        throw sdk::invalid_argument("op " + std::to_string(i) + " rank " + std::to_string(r) +
                                    " has no name");
    const tessera_partition_plan* plan = p.exec_plans ? &p.exec_plans[i] : nullptr;
    if (plan != nullptr && plan->num_ranks != op.num_ranks)
      throw sdk::invalid_argument("the plan of op " + std::to_string(i) + " has " +
                                  std::to_string(plan->num_ranks) + " ranks, the op " +
                                  std::to_string(op.num_ranks));
    if (plan != nullptr && plan->num_ranks > 0 && plan->tile_extents == nullptr)
      throw sdk::invalid_argument("the plan of op " + std::to_string(i) + " has no tile extents");
  }
  for (size_t i = 0; i < p.num_instructions; ++i) {
    const tessera_instruction& in = p.instructions[i];
    if (instruction_name(in.kind) == nullptr || in.op >= p.num_ops)
      throw sdk::invalid_argument("instruction " + std::to_string(i) + " (kind " +
                                  std::to_string(in.kind) + ", op " + std::to_string(in.op) +
                                  ") names no instruction kind or op of the program");
  }
}

}  // namespace

TreeCodeGen::TreeCodeGen(const sdk::Params& params)
    : chip_(std::make_shared<const TreeChip>(params)) {}

std::string TreeCodeGen::kernel(const tessera_op_desc& op,
                                const tessera_partition_plan* plan) const {
  if (plan == nullptr) return "  (no execution plan)\n";
  std::string where = " on each of " + std::to_string(plan->cores_used) + " " +
                      chip_->level(chip_->lowest_level()).name + "s: tile " + tile_text(op, *plan) +
                      "\n";
  if (op.op_kind == TESSERA_OP_MATMUL || op.op_kind == TESSERA_OP_BATCHED_MATMUL ||
      op.op_kind == TESSERA_OP_CONV)
    return "  mau." + std::string(kind_name(op.op_kind)) + where;
  if (op.op_kind != TESSERA_OP_ELEMENTWISE || op.num_operands != 3)
    return "  vector." + std::string(kind_name(op.op_kind)) + where;
  try {
    std::vector<EinsumOperand> operands = resolve_operands(op);
    std::stable_partition(operands.begin(), operands.end(),
                          [](const EinsumOperand& o) { return !o.is_output; });
    Divisions d;
    if (!divisions_for(*chip_, op, *plan, d))
      return "  (no SIMD listing: the plan's tiles do not split over this tree's levels)\n";
    std::vector<TreeLayout> layouts;
    uint64_t base = 0;
    for (const EinsumOperand& o : operands) {
      std::vector<uint64_t> shape;
      for (uint32_t r : o.ranks) shape.push_back(op.ranks[r].extent);
      layouts.emplace_back(chip_, parse_layout_text(operand_layout_text(*chip_, op, o, d, base)),
                           shape);
      base = layouts.back().address_end();
    }
    std::string text;
    for (size_t i = 0; i < operands.size(); ++i)
      text += "  layout " + operands[i].name + " " + layouts[i].format() + "\n";
    SimdProgram simd = elementwise_program(function_of(op.name ? op.name : ""), layouts[2],
                                           layouts[0], layouts[1], base);
    std::string body = format_simd(*chip_, simd);
    for (size_t start = 0; start < body.size();) {
      size_t end = body.find('\n', start);
      text += "  " + body.substr(start, end - start + 1);
      start = end + 1;
    }
    return text;
  } catch (const sdk::Error& e) {
    return std::string("  (no SIMD listing: ") + e.what() + ")\n";
  }
}

std::string TreeCodeGen::listing(const tessera_program& p) const {
  check_program(p);
  // A program the hardware would deadlock on or run wrong is refused, not listed.
  sdk::require_program_rules(p);
  std::string text = "# " + file_stem(p.name) + " for " + chip_->name() + " (" +
                     chip_->level_list() +
                     ")\n# generated by " TESSERA_PLUGIN_NAME " " TESSERA_PLUGIN_VERSION "\nops:\n";
  for (size_t i = 0; i < p.num_ops; ++i) {
    const tessera_op_desc& op = p.ops[i];
    const tessera_partition_plan* plan = p.exec_plans ? &p.exec_plans[i] : nullptr;
    text += "  " + std::to_string(i) + " " + kind_name(op.op_kind) + " '" +
            (op.name ? op.name : "") + "'";
    if (plan != nullptr)
      text += ": " + std::to_string(plan->cores_used) + " PEs, tile " + tile_text(op, *plan) +
              (plan->label ? std::string(", plan ") + plan->label : "");
    text += "\n";
  }
  text += "schedule:\n";
  for (size_t i = 0; i < p.num_instructions; ++i)
    text += "  " + std::string(instruction_name(p.instructions[i].kind)) + " op " +
            std::to_string(p.instructions[i].op) + "\n";
  text += "kernels:\n";
  for (size_t i = 0; i < p.num_ops; ++i) {
    text += "op " + std::to_string(i) + ":\n";
    text += kernel(p.ops[i], p.exec_plans ? &p.exec_plans[i] : nullptr);
  }
  return text;
}

void TreeCodeGen::emit(const tessera_program& program,
                       const std::function<bool(const std::string&, const std::string&)>& write) {
  write(file_stem(program.name) + ".tree_simd.txt", listing(program));
}

}  // namespace tessera::plugins::tree
