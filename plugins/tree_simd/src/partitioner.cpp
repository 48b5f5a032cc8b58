#include "partitioner.hpp"

#include <algorithm>
#include <tessera/sdk/error.hpp>

#include "layout_chooser.hpp"
#include "text.hpp"

namespace tessera::plugins::tree {

namespace {

// Distinct tile shapes explored per op.
constexpr size_t kMaxPlans = 4096;

using Divisions = std::vector<std::vector<uint64_t>>;  // [level][rank]

bool supported(uint32_t kind) {
  switch (kind) {
    case TESSERA_OP_MATMUL:
    case TESSERA_OP_BATCHED_MATMUL:
    case TESSERA_OP_ELEMENTWISE:
    case TESSERA_OP_UNARY:
    case TESSERA_OP_REDUCTION:
    case TESSERA_OP_SOFTMAX:
    case TESSERA_OP_NORMALIZATION:
      return true;
    default:
      return false;
  }
}

std::string trim(const std::string& s) {
  size_t a = s.find_first_not_of(" \t"), b = s.find_last_not_of(" \t");
  return a == std::string::npos ? "" : s.substr(a, b - a + 1);
}

// One operand's layout on the chip, with its figures.
struct Placed {
  const EinsumOperand* operand;
  TreeLayout layout;
  double tile_bytes;  // one tile (one PE's share)
  double bytes;       // the whole tensor
};

// Where the tiles of divisions `d` sit (plugin_abi.h, core_digits). A tile's core is the flat
// index of its memory-level block, Σ_k id_k x nodes_below(k, m), and level k's block id is
// row-major over the ranks' shares of the level (last rank fastest), as blocked_layout_text
// numbers it. A rank's items go top down, so its block index has the lowest level's digit
// fastest: digits are listed lowest level first, and within a level last rank first, so that the
// host's numbering of the plan's cores keeps siblings adjacent.
std::vector<tessera_core_digit> core_digits(const TreeChip& chip, const Divisions& d, uint32_t m) {
  std::vector<tessera_core_digit> digits;
  for (uint32_t k = m + 1; k-- > 0;) {
    uint64_t core_stride = chip.nodes_below(k, m);
    for (auto r = static_cast<uint32_t>(d[k].size()); r-- > 0;) {
      if (d[k][r] > 1) digits.push_back({r, static_cast<uint32_t>(d[k][r]), core_stride});
      core_stride *= d[k][r];
    }
  }
  return digits;
}

}  // namespace

std::vector<EinsumOperand> resolve_operands(const tessera_op_desc& op) {
  if (!supported(op.op_kind))
    throw sdk::unimplemented("op kind " + std::to_string(op.op_kind) +
                             " is left to the framework's default partitioner");
  std::vector<EinsumOperand> out;
  size_t outputs = 0;
  for (uint32_t i = 0; i < op.num_operands; ++i) {
    const tessera_operand& o = op.operands[i];
    if (o.name == nullptr || o.indexing == nullptr)
      throw sdk::invalid_argument("operand " + std::to_string(i) + " has a NULL name or indexing");
    EinsumOperand e{o.name, {}, o.dtype, o.is_output != 0, o.in_hbm != 0};
    if (dtype_bytes(o.dtype) == 0)
      throw sdk::invalid_argument("operand '" + e.name + "': unknown dtype " +
                                  std::to_string(o.dtype));
    std::string indexing = o.indexing;
    if (trim(indexing).empty())
      throw sdk::unimplemented("operand '" + e.name +
                               "' is a scalar; scalars are left to the framework's default "
                               "partitioner");
    for (size_t start = 0; start <= indexing.size();) {
      size_t comma = std::min(indexing.find(',', start), indexing.size());
      std::string name = trim(indexing.substr(start, comma - start));
      start = comma + 1;
      auto it = std::find_if(op.ranks, op.ranks + op.num_ranks, [&](const tessera_rank& r) {
        return r.name != nullptr && name == r.name;
      });
      if (it == op.ranks + op.num_ranks) {
        // Affine (`p+r`), constant (`2047`, one KV slot) and indirect (`$0`, a gather) indices
        // are valid Einsums this partitioner does not place.
        bool constant = !name.empty() && name.find_first_not_of("0123456789") == std::string::npos;
        if (constant || name.starts_with('$') || name.find_first_of("+-*") != std::string::npos)
          throw sdk::unimplemented("operand '" + e.name + "' indexes '" + name +
                                   "': affine, constant and indirect indexing are left to the "
                                   "framework's default partitioner");
        throw sdk::invalid_argument("operand '" + e.name + "' indexes '" + name +
                                    "', which is not a rank of op '" + (op.name ? op.name : "") +
                                    "'");
      }
      e.ranks.push_back(static_cast<uint32_t>(it - op.ranks));
    }
    outputs += e.is_output ? 1 : 0;
    out.push_back(std::move(e));
  }
  if (outputs != 1)
    throw sdk::invalid_argument("op '" + std::string(op.name ? op.name : "") + "' has " +
                                std::to_string(outputs) + " outputs; exactly one is needed");
  return out;
}

std::string operand_layout_text(const TreeChip& chip, const tessera_op_desc& op,
                                const EinsumOperand& operand, const Divisions& divisions,
                                uint64_t base) {
  std::vector<uint64_t> extents;
  for (uint32_t r = 0; r < op.num_ranks; ++r) extents.push_back(op.ranks[r].extent);
  return blocked_layout_text(chip, extents, operand.ranks, divisions, chip.lowest_level(), base);
}

TreePartitioner::TreePartitioner(const sdk::Params& params) : cost_(params) {}

void TreePartitioner::plans(const tessera_op_desc& op,
                            const std::function<bool(const tessera_partition_plan&)>& emit) const {
  std::vector<EinsumOperand> operands = resolve_operands(op);
  const TreeChip& chip = cost_.chip();
  const auto& chip_ptr = cost_.chip_ptr();
  const EinsumOperand& output =
      *std::find_if(operands.begin(), operands.end(), [](const auto& o) { return o.is_output; });
  std::vector<uint64_t> extents(op.num_ranks), room(op.num_ranks);
  for (uint32_t r = 0; r < op.num_ranks; ++r) {
    extents[r] = op.ranks[r].extent;
    if (extents[r] == 0 || op.ranks[r].name == nullptr)
      throw sdk::invalid_argument("rank " + std::to_string(r) + " has no name or extent 0");
    room[r] = extents[r];
  }
  // Softmax and normalization reduce along their last rank inside one PE.
  if ((op.op_kind == TESSERA_OP_SOFTMAX || op.op_kind == TESSERA_OP_NORMALIZATION) &&
      !output.ranks.empty())
    room[output.ranks.back()] = 1;
  uint32_t m = chip.lowest_level();
  uint32_t first_level = chip.level(0).fanout > 1 ? 0 : 1;
  double total_volume = 1;
  for (uint64_t e : extents) total_volume *= static_cast<double>(e);
  for (const Divisions& d : enumerate_shares(chip, room, m, kMaxPlans, true)) {
    std::vector<uint64_t> split(op.num_ranks, 1), tile(op.num_ranks);
    for (const auto& level : d)
      for (uint32_t r = 0; r < op.num_ranks; ++r) split[r] *= level[r];
    double tile_volume = 1;
    for (uint32_t r = 0; r < op.num_ranks; ++r) {
      tile[r] = (extents[r] + split[r] - 1) / split[r];
      tile_volume *= static_cast<double>(tile[r]);
    }
    std::vector<Placed> placed;
    uint64_t base = 0;
    try {
      for (const EinsumOperand& o : operands) {
        std::vector<uint64_t> shape;
        for (uint32_t r : o.ranks) shape.push_back(extents[r]);
        TreeLayout l(chip_ptr, parse_layout_text(operand_layout_text(chip, op, o, d, base)), shape);
        base = l.address_end();
        double bytes = dtype_bytes(o.dtype);
        placed.push_back({&o, l, static_cast<double>(l.addresses_per_block()) * bytes,
                          static_cast<double>(l.elements()) * bytes});
      }
    } catch (const sdk::Error& e) {
      if (e.code() == TESSERA_RESOURCE_EXHAUSTED) continue;  // does not fit: no plan
      throw;
    }
    tessera_partition_plan plan{};
    uint64_t cores = 1, reduced = 1;
    for (uint32_t r = 0; r < op.num_ranks; ++r) {
      cores *= split[r];
      if (std::find(output.ranks.begin(), output.ranks.end(), r) == output.ranks.end())
        reduced *= split[r];
    }
    tessera_tile_query q{};
    q.op_kind = op.op_kind;
    q.dtype = output.dtype;
    q.batch = 1;
    q.m = tile[output.ranks.front()];
    q.n = tile[output.ranks.back()];
    q.k = static_cast<uint64_t>(tile_volume) / std::max<uint64_t>(q.m * q.n, 1);
    q.flops = op.flops > 0 ? op.flops * tile_volume / total_volume : 0;
    const Placed* out_placed = nullptr;
    for (const Placed& p : placed) {
      plan.exec_bytes_per_core += static_cast<uint64_t>(p.tile_bytes);
      if (p.operand->in_hbm) {
        plan.preload_bytes_per_core += static_cast<uint64_t>(p.tile_bytes);
        plan.hbm_bytes += p.bytes;
      }
      if (p.operand->is_output) {
        out_placed = &p;
        q.bytes_out = p.tile_bytes;
        q.elements = p.layout.addresses_per_block();
        continue;
      }
      q.bytes_in += p.tile_bytes;
      plan.inter_core_bytes += static_cast<double>(p.layout.copies() - 1) * p.bytes;
      // Down the tree: a node of level k receives the tiles of its whole subtree; siblings that
      // need the same tiles (the level splits none of the operand's ranks) get one multicast.
      for (uint32_t k = first_level; k <= m; ++k) {
        double below = 1;
        for (uint32_t j = k + 1; j <= m; ++j)
          for (uint32_t r : p.operand->ranks) below *= static_cast<double>(d[j][r]);
        bool same = std::all_of(p.operand->ranks.begin(), p.operand->ranks.end(),
                                [&](uint32_t r) { return d[k][r] == 1; });
        plan.distribute_s += same ? cost_.multicast_seconds(k, p.tile_bytes * below)
                                  : cost_.distribute_seconds(k, p.tile_bytes * below);
      }
    }
    if (reduced > 1) {
      plan.inter_core_bytes += static_cast<double>(reduced - 1) * out_placed->bytes;
      for (uint32_t k = first_level; k <= m; ++k) {
        bool sums_here = false;
        for (uint32_t r = 0; r < op.num_ranks; ++r)
          sums_here =
              sums_here || (d[k][r] > 1 && std::find(output.ranks.begin(), output.ranks.end(), r) ==
                                               output.ranks.end());
        if (sums_here) plan.shift_s += cost_.combine_seconds(k, out_placed->tile_bytes);
      }
    }
    std::vector<std::string> parts;
    for (uint32_t r = 0; r < op.num_ranks; ++r)
      parts.push_back(std::string(op.ranks[r].name) + "/" + std::to_string(split[r]));
    std::string label = join(parts, " ") + " " + output.name + " " + out_placed->layout.format();
    // Every operand layout keeps its data at level m (blocked_layout_text names it), so the
    // tiles' cores are blocks of m.
    std::vector<tessera_core_digit> digits = core_digits(chip, d, m);
    plan.label = label.c_str();
    plan.cores_used = static_cast<uint32_t>(cores);
    plan.num_ranks = op.num_ranks;
    plan.tile_extents = tile.data();
    plan.num_core_digits = static_cast<uint32_t>(digits.size());
    plan.core_digits = digits.data();
    plan.compute_s = cost_.tile_seconds(q);
    plan.sync_s = cost_.info().sync_s;
    if (!emit(plan)) return;
  }
}

}  // namespace tessera::plugins::tree
