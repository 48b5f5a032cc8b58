// The plugin's ABI-facing classes: LayoutMapper (with choose(...)), CostModel, Partitioner and
// CodeGen, built from parameters as a chip file gives them.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <set>
#include <sstream>

#include "common/preset_params.hpp"
#include "cost_model.hpp"
#include "layout_chooser.hpp"
#include "layout_mapper.hpp"
#include "partitioner.hpp"
#include "program_codegen.hpp"
#include "support.hpp"

namespace tessera::plugins::tree {
namespace {

using Values = std::map<std::string, std::string>;

// The `section` of a shipped preset, flattened as the host passes it.
Values preset_section(const std::string& preset, const std::string& section) {
  YAML::Node root = YAML::LoadFile(std::string(TESSERA_CHIPS_DIR) + "/" + preset + ".yaml");
  Values values;
  flatten_yaml(root[section], "", values);
  return values;
}

template <class T>
std::unique_ptr<T> make(Values values) {
  sdk::Params params(std::move(values));
  auto object = std::make_unique<T>(params);
  params.reject_unknown("test");
  return object;
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const sdk::Error& e) {
    return e.what();
  }
  return "";
}

constexpr const char* kFig6 = "((2_A:2, 2_B:2, 25_Addr:25), (2_A:1, 2_B:1, 25_Addr:1))";

TEST(Mapper, PatentPresetAnswersTheFig10Example) {
  auto mapper = make<TreeLayoutMapper>(preset_section("patent-2level", "layout_mapper"));
  auto layout = mapper->parse(kFig6, {100, 100});
  EXPECT_EQ(mapper->format(*layout), kFig6);
  EXPECT_EQ(mapper->rank(*layout), 2u);
  const uint64_t index[2] = {91, 36};
  tessera_location where = mapper->locate(*layout, index);
  EXPECT_EQ(where.num_levels, 2u);
  EXPECT_EQ(where.blocks[0], 2u);
  EXPECT_EQ(where.blocks[1], 3u);
  EXPECT_EQ(where.address, 411u);
  uint64_t back[2];
  mapper->inverse(*layout, where, back);
  EXPECT_EQ(back[0], 91u);
  EXPECT_EQ(back[1], 36u);
  auto padded = mapper->parse(kFig6, {99, 97});
  EXPECT_EQ(mapper->format(*padded), std::string(kFig6) + " # padding 397 elements");
}

TEST(Mapper, ChooseRanksCandidatesAndAnnotatesThem) {
  auto mapper = make<TreeLayoutMapper>(preset_section("patent-2level", "layout_mapper"));
  auto best = mapper->parse("choose(stencil3x3)", {100, 100});
  EXPECT_EQ(mapper->format(*best),
            std::string(kFig6) +
                " # choose(stencil3x3) 1 of 9: cost 3.16 us = compute 2.81 us "
                "+ comm 352 ns; crossings A 2376, B 7080");
  auto rows = mapper->parse(" choose( row-reduce , 1 ) # per-row mean", {100, 100});
  EXPECT_EQ(mapper->format(*rows).substr(0, 41), "((4_A:1, 25_Addr:25), (4_B:1, 25_Addr:1))");
  // What format prints parses back to the same layout, and prints the same (the chooser's note
  // is the text's comment now).
  auto again = mapper->parse(mapper->format(*rows), {100, 100});
  EXPECT_EQ(mapper->format(*again), mapper->format(*rows));
  EXPECT_EQ(error_of([&] {
              mapper->parse("choose(stencil3x3, 10)", {100, 100});
            }),
            "column 20: choose(stencil3x3) has 9 candidates for this tensor; ask for 1 to 9");
  EXPECT_EQ(error_of([&] {
              mapper->parse("choose(stencil4x4)", {100, 100});
            }),
            "column 8: unknown access pattern 'stencil4x4'; expected one of stencilKxK (odd K "
            "from 3 to 15, e.g. stencil3x3), row-reduce, col-reduce, matmul-lhs, matmul-rhs, "
            "elementwise");
  EXPECT_EQ(error_of([&] {
              mapper->parse("choose(row-reduce", {100, 100});
            }),
            "column 18: expected ')' to close choose(...), found the end of the text");
  EXPECT_EQ(error_of([&] {
              mapper->parse("choose(row-reduce)", {100000, 100000});
            }),
            "column 8: no layout of this tensor fits the chip's B memories: column 17: addresses "
            "reach 624999999 but one B memory holds 2048 elements (8192 B at 4 B per element); "
            "split the tensor over more blocks or name a level with more memory");
}

// Found by the conformance kit (LayoutMapperContract.CanonicalTextParsesBackToTheSameLayout): the
// canonical text of a chosen layout parsed back without the chooser's note.
TEST(Mapper, CanonicalTextIsAFixedPointOfParseAndFormat) {
  auto mapper = make<TreeLayoutMapper>(preset_section("patent-2level", "layout_mapper"));
  for (auto [text, shape] :
       {std::pair<std::string, std::vector<uint64_t>>{"choose(stencil3x3)", {100, 100}},
        {kFig6, {99, 97}},
        {std::string(kFig6) + "  #  a note of mine  ", {99, 97}},
        {"((4_A:1,25_Addr:25),(4_B:1,25_Addr:1))@7", {100, 100}}}) {
    std::string canonical = mapper->format(*mapper->parse(text, shape));
    EXPECT_EQ(mapper->format(*mapper->parse(canonical, shape)), canonical) << text;
  }
  // A comment is kept as written; without one, a padded layout says how much it pads.
  EXPECT_EQ(mapper->format(*mapper->parse(std::string(kFig6) + "  #  a note of mine  ", {99, 97})),
            std::string(kFig6) + " # a note of mine");
  EXPECT_EQ(mapper->format(*mapper->parse(kFig6, {99, 97})),
            std::string(kFig6) + " # padding 397 elements");
}

TEST(Mapper, DefaultChipIsMnCore2WithSixLevels) {
  auto mapper = make<TreeLayoutMapper>(preset_section("mncore2", "layout_mapper"));
  EXPECT_EQ(mapper->chip().level_list(), "chip, group, L2B, L1B, MAB, PE");
  auto layout =
      mapper->parse("((2_group:2, 2_L2B:1, 16_Addr:32), (2_group:1, 32_Addr:1))", {64, 64});
  const uint64_t index[2] = {63, 63};
  tessera_location where = mapper->locate(*layout, index);
  EXPECT_EQ(where.num_levels, 3u);  // the deepest level named, L2B, holds the data
  EXPECT_EQ(std::vector<uint32_t>(where.blocks, where.blocks + 3),
            (std::vector<uint32_t>{0, 3, 1}));
  EXPECT_EQ(where.core, 3u * 2 + 1);
  EXPECT_EQ(where.address, 15u * 32 + 31);
  // Naming the PE level moves the data into the PEs (block 0 of the levels between).
  auto in_pes =
      mapper->parse("((2_group:2, 2_L2B:1, 1_PE:0, 16_Addr:32), (2_group:1, 32_Addr:1))", {64, 64});
  where = mapper->locate(*in_pes, index);
  EXPECT_EQ(where.num_levels, 6u);
  EXPECT_EQ(where.core, 3u * 2 * 8 * 16 * 4 + 1u * 8 * 16 * 4);
}

TEST(TreeChipParams, ExplicitLevelsAreChecked) {
  auto error = [](Values v) { return error_of([&] { make<TreeChip>(std::move(v)); }); };
  EXPECT_EQ(error({{"levels.0.name", "A"}, {"levels.0.memory_bytes", "64"}}),
            "missing parameter 'levels.0.fanout'");
  EXPECT_EQ(error({{"levels.0.name", "A"}, {"levels.0.fanout", "4"}}),
            "parameter 'levels.0.memory_bytes': the lowest level needs a memory (at least 1)");
  EXPECT_EQ(
      error({{"levels.0.name", "Addr"}, {"levels.0.fanout", "4"}, {"levels.0.memory_bytes", "64"}}),
      "level name 'Addr': use letters and digits, starting with a letter, and not 'Addr' "
      "(the notation's memory address)");
  EXPECT_EQ(error({{"group.alias", "l2b"}}),
            "level name 'L2B' is used twice (names and aliases must differ, ignoring case)");
  EXPECT_EQ(error({{"levels.0.name", "A"},
                   {"levels.0.fanout", "4"},
                   {"group.fanout", "2"},
                   {"levels.0.memory_bytes", "64"}}),
            "unknown test parameter 'group.fanout'");
}

TEST(CostModel, MnCore2Rates) {
  auto cost = make<TreeCostModel>(preset_section("mncore2", "cost_model"));
  constexpr double kClock = 750e6;
  tessera_tile_query mm{};
  mm.op_kind = TESSERA_OP_MATMUL;
  mm.dtype = TESSERA_DTYPE_FP16;
  mm.m = mm.k = mm.n = 64;
  EXPECT_DOUBLE_EQ(cost->tile_seconds(mm), 2.0 * 64 * 64 * 64 / (128 * kClock));
  mm.bytes_in = 1e6;  // now the SRAM port (32 B/cycle) is the bound
  EXPECT_DOUBLE_EQ(cost->tile_seconds(mm), 1e6 / (32 * kClock));
  mm.dtype = TESSERA_DTYPE_BF16;
  EXPECT_TRUE(std::isinf(cost->tile_seconds(mm)));
  tessera_tile_query add{};
  add.op_kind = TESSERA_OP_ELEMENTWISE;
  add.dtype = TESSERA_DTYPE_FP32;
  add.elements = 1000;
  EXPECT_DOUBLE_EQ(cost->tile_seconds(add), 1000 * 4 / (8 * kClock));
  tessera_transfer_query t{};
  t.link_class = TESSERA_LINK_ON_CHIP;
  t.hops = 4;  // up to the L1B and down: PE and MAB edges, the PE edge (8 B/cycle) is slowest
  t.bytes = 8000;
  EXPECT_DOUBLE_EQ(cost->transfer_seconds(t), 4 * 4 / kClock + 8000 / (8 * kClock));
  t.link_class = TESSERA_LINK_MEMORY;
  t.hops = 1;
  EXPECT_DOUBLE_EQ(cost->transfer_seconds(t), 4 / kClock + 8000 / 128e9);
  EXPECT_DOUBLE_EQ(cost->distribute_seconds(3, 1280), 4 / kClock + 1280 / (128 * kClock));
  EXPECT_DOUBLE_EQ(cost->info().sync_s, 2 * 6 * 4 / kClock);
}

// One op described as the host describes it.
struct Op {
  std::vector<tessera_rank> ranks;
  std::vector<tessera_operand> operands;
  tessera_op_desc desc{};
  Op(const char* name, uint32_t kind, std::vector<tessera_rank> r, std::vector<tessera_operand> o)
      : ranks(std::move(r)), operands(std::move(o)) {
    desc.struct_size = sizeof(desc);
    desc.name = name;
    desc.op_kind = kind;
    desc.num_ranks = static_cast<uint32_t>(ranks.size());
    desc.ranks = ranks.data();
    desc.num_operands = static_cast<uint32_t>(operands.size());
    desc.operands = operands.data();
  }
};

Op matmul(uint64_t m, uint64_t k, uint64_t n) {
  return Op("mm", TESSERA_OP_MATMUL, {{"m", m}, {"k", k}, {"n", n}},
            {{"A", "m,k", TESSERA_DTYPE_FP32, 0, 1, 0},
             {"B", "k,n", TESSERA_DTYPE_FP32, 0, 1, 0},
             {"C", "m,n", TESSERA_DTYPE_FP32, 1, 0, 0}});
}

struct Plan {
  std::string label;
  std::vector<uint64_t> tile;
  std::vector<tessera_core_digit> digits;
  tessera_partition_plan plan;  // its pointers die with the emit call: use the copies above
};

std::vector<Plan> plans_of(const TreePartitioner& p, const tessera_op_desc& op) {
  std::vector<Plan> out;
  p.plans(op, [&](const tessera_partition_plan& plan) {
    out.push_back({plan.label,
                   {plan.tile_extents, plan.tile_extents + plan.num_ranks},
                   {plan.core_digits, plan.core_digits + plan.num_core_digits},
                   plan});
    return true;
  });
  return out;
}

TEST(Partitioner, MatmulTilesThroughLayouts) {
  auto part = make<TreePartitioner>(preset_section("mncore2-mini", "partitioner"));
  Op op = matmul(64, 64, 64);
  auto plans = plans_of(*part, op.desc);
  ASSERT_FALSE(plans.empty());
  const Plan* square = nullptr;
  for (const auto& p : plans)
    if (p.tile == std::vector<uint64_t>{8, 64, 8}) square = &p;
  ASSERT_NE(square, nullptr);
  EXPECT_EQ(square->plan.cores_used, 64u);
  EXPECT_EQ(square->plan.exec_bytes_per_core, (8u * 64 + 64 * 8 + 8 * 8) * 4);
  EXPECT_EQ(square->plan.preload_bytes_per_core, (8u * 64 + 64 * 8) * 4);
  EXPECT_DOUBLE_EQ(square->plan.hbm_bytes, 2 * 64 * 64 * 4);
  // A is needed by the 8 column blocks of C, B by the 8 row blocks: 7 extra copies each.
  EXPECT_DOUBLE_EQ(square->plan.inter_core_bytes, 2 * 7 * 64 * 64 * 4);
  EXPECT_EQ(square->plan.shift_s, 0.0);
  EXPECT_EQ(square->label.substr(0, 13), "m/8 k/1 n/8 C");
  // The operand layouts put every tile's A, B and C in one PE.
  auto chip = test::mini_chip();
  std::vector<uint64_t> no_split(3, 1);
  std::vector<std::vector<uint64_t>> d = {{1, 1, 1}, {2, 1, 1}, {1, 1, 2},
                                          {2, 1, 1}, {1, 1, 2}, {2, 1, 2}};
  auto operands = resolve_operands(op.desc);
  TreeLayout a(chip, parse_layout_text(operand_layout_text(*chip, op.desc, operands[0], d, 0)),
               {64, 64});
  TreeLayout c(chip, parse_layout_text(operand_layout_text(*chip, op.desc, operands[2], d, 0)),
               {64, 64});
  EXPECT_EQ(a.copies(), 8u);
  for (uint64_t m = 0; m < 64; m += 5)
    for (uint64_t n = 0; n < 64; n += 3) {
      const uint64_t mn[2] = {m, n}, mk[2] = {m, (m + n) % 64};
      std::set<uint64_t> cores;
      for (const auto& offset : a.copy_offsets()) cores.insert(a.place(mk).core + offset.core);
      ASSERT_EQ(cores.count(c.place(mn).core), 1u) << m << "," << n;
    }
}

TEST(Partitioner, SplitReductionsAreCombinedAndOthersAreLeftToTheFramework) {
  auto part = make<TreePartitioner>(preset_section("mncore2-mini", "partitioner"));
  Op gemv = matmul(1, 4096, 8);
  bool split_k = false;
  for (const auto& p : plans_of(*part, gemv.desc))
    if (p.tile[1] < 4096) {
      split_k = true;
      EXPECT_GT(p.plan.shift_s, 0.0) << p.label;
    }
  EXPECT_TRUE(split_k);
  Op conv("conv", TESSERA_OP_CONV, {{"p", 8}, {"r", 3}},
          {{"I", "p+r", TESSERA_DTYPE_FP32, 0, 0, 0}, {"O", "p", TESSERA_DTYPE_FP32, 1, 0, 0}});
  try {
    plans_of(*part, conv.desc);
    FAIL();
  } catch (const sdk::Error& e) {
    EXPECT_EQ(e.code(), TESSERA_UNIMPLEMENTED);
  }
  Op huge = matmul(1u << 20, 1u << 20, 1u << 20);
  EXPECT_TRUE(plans_of(*part, huge.desc).empty());  // no split fits 32 KiB per PE
}

// A bias [n] of an op over (b, s, n) is replicated over b and s; when one level splits both, the
// copies go on different axes, or (a one-axis tensor) the plan is not offered — never a bad layout.
TEST(Partitioner, ReplicationOverSeveralLackingRanksStaysExpressible) {
  auto part = make<TreePartitioner>(preset_section("mncore2-mini", "partitioner"));
  Op add("bias", TESSERA_OP_ELEMENTWISE, {{"b", 8}, {"s", 8}, {"n", 64}},
         {{"X", "b,s,n", TESSERA_DTYPE_FP32, 0, 0, 0},
          {"W", "n", TESSERA_DTYPE_FP32, 0, 1, 0},
          {"Y", "b,s,n", TESSERA_DTYPE_FP32, 1, 0, 0}});
  auto plans = plans_of(*part, add.desc);
  ASSERT_FALSE(plans.empty());
  bool replicated_over_both = false;
  for (const auto& p : plans) replicated_over_both |= p.tile[0] < 8 && p.tile[1] < 8;
  EXPECT_TRUE(replicated_over_both);
  auto chip = test::mini_chip();
  auto operands = resolve_operands(add.desc);
  std::vector<std::vector<uint64_t>> both_at_one_level = {{1, 1, 1}, {2, 2, 1}, {1, 1, 2},
                                                          {1, 1, 1}, {1, 1, 1}, {1, 1, 1}};
  try {
    FAIL() << operand_layout_text(*chip, add.desc, operands[1], both_at_one_level, 0);
  } catch (const sdk::Error& e) {
    EXPECT_EQ(e.code(), TESSERA_RESOURCE_EXHAUSTED) << e.what();
  }
}

TEST(Partitioner, ConstantAndIndirectIndicesAreLeftToTheFramework) {
  auto part = make<TreePartitioner>(preset_section("mncore2-mini", "partitioner"));
  for (const char* index : {"63,d", "$0,d"}) {
    Op rope("rope", TESSERA_OP_ELEMENTWISE, {{"h", 4}, {"d", 16}},
            {{"X", "h,d", TESSERA_DTYPE_FP32, 0, 0, 0},
             {"T", index, TESSERA_DTYPE_FP32, 0, 1, 0},
             {"Y", "h,d", TESSERA_DTYPE_FP32, 1, 0, 0}});
    try {
      plans_of(*part, rope.desc);
      FAIL() << index;
    } catch (const sdk::Error& e) {
      EXPECT_EQ(e.code(), TESSERA_UNIMPLEMENTED) << index;
    }
  }
}

// ---- Placement (core_digits) -------------------------------------------------------------------

using Divisions = std::vector<std::vector<uint64_t>>;  // [level][rank]

// The divisions behind the plans of `op`, by their split per rank, enumerated as the partitioner
// does (softmax and normalization keep the output's last rank whole).
std::map<std::vector<uint64_t>, Divisions> divisions_by_split(const TreeChip& chip, const Op& op) {
  std::vector<uint64_t> room;
  for (const tessera_rank& r : op.ranks) room.push_back(r.extent);
  if (op.desc.op_kind == TESSERA_OP_SOFTMAX || op.desc.op_kind == TESSERA_OP_NORMALIZATION) {
    for (const EinsumOperand& o : resolve_operands(op.desc))
      if (o.is_output) room[o.ranks.back()] = 1;
  }
  std::map<std::vector<uint64_t>, Divisions> out;
  for (Divisions& d : enumerate_shares(chip, room, chip.lowest_level(), 4096, true)) {
    std::vector<uint64_t> split(room.size(), 1);
    for (const auto& level : d)
      for (size_t r = 0; r < split.size(); ++r) split[r] *= level[r];
    out.emplace(split, std::move(d));
  }
  return out;
}

// The split per rank a plan's label states ("m/8 k/1 n/8 C ...").
std::vector<uint64_t> label_split(const Plan& p) {
  std::istringstream in(p.label);
  std::vector<uint64_t> split;
  std::string part;
  for (size_t r = 0; r < p.tile.size() && in >> part; ++r)
    split.push_back(std::stoull(part.substr(part.find('/') + 1)));
  return split;
}

// The layouts the partitioner gives the operands of `op` under `d` (at base 0: the cores are the
// same at any base).
std::vector<TreeLayout> operand_layouts(const std::shared_ptr<const TreeChip>& chip, const Op& op,
                                        const Divisions& d) {
  std::vector<TreeLayout> layouts;
  for (const EinsumOperand& o : resolve_operands(op.desc)) {
    std::vector<uint64_t> shape;
    for (uint32_t r : o.ranks) shape.push_back(op.ranks[r].extent);
    layouts.emplace_back(chip, parse_layout_text(operand_layout_text(*chip, op.desc, o, d, 0)),
                         shape);
  }
  return layouts;
}

// Checks `p`'s core_digits as the host reads them (plugin_abi.h) against the layouts of `d`: the
// counts make up the split, strides grow along the list (siblings first), every tile has a core
// of its own on the chip, and there each operand of the tile has its first element stored.
void expect_tiles_where_their_operands_are(const std::shared_ptr<const TreeChip>& chip,
                                           const Op& op, const Plan& p, const Divisions& d) {
  SCOPED_TRACE(p.label);
  std::vector<uint64_t> split(p.tile.size(), 1), step;  // step: rank blocks per step of a digit
  uint64_t cores = 1, last_stride = 0;
  for (const tessera_core_digit& digit : p.digits) {
    ASSERT_LT(digit.rank, p.tile.size());
    ASSERT_GT(digit.count, 1u);
    ASSERT_GT(digit.core_stride, last_stride);
    last_stride = digit.core_stride;
    step.push_back(split[digit.rank]);
    split[digit.rank] *= digit.count;
    cores *= digit.count;
  }
  ASSERT_EQ(cores, p.plan.cores_used);
  for (size_t r = 0; r < split.size(); ++r)
    ASSERT_EQ(p.tile[r], (op.ranks[r].extent + split[r] - 1) / split[r]) << "rank " << r;
  std::vector<EinsumOperand> operands = resolve_operands(op.desc);
  std::vector<TreeLayout> layouts = operand_layouts(chip, op, d);
  std::vector<std::set<uint64_t>> copies(layouts.size());  // core offsets of each one's copies
  for (size_t i = 0; i < layouts.size(); ++i)
    for (const auto& offset : layouts[i].copy_offsets()) copies[i].insert(offset.core);
  std::set<uint64_t> used;
  for (uint64_t tile = 0; tile < cores; ++tile) {
    std::vector<uint64_t> block(p.tile.size(), 0);
    uint64_t core = 0, rest = tile;
    for (size_t i = 0; i < p.digits.size(); ++i) {
      uint64_t value = rest % p.digits[i].count;
      rest /= p.digits[i].count;
      core += value * p.digits[i].core_stride;
      block[p.digits[i].rank] += value * step[i];
    }
    ASSERT_LT(core, chip->level(chip->lowest_level()).nodes) << "tile " << tile;
    ASSERT_TRUE(used.insert(core).second) << "tile " << tile << " shares core " << core;
    for (size_t i = 0; i < operands.size(); ++i) {
      std::vector<uint64_t> first;
      for (uint32_t r : operands[i].ranks) first.push_back(block[r] * p.tile[r]);
      uint64_t stored = layouts[i].place(first.data()).core;
      ASSERT_TRUE(core >= stored && copies[i].count(core - stored) == 1)
          << operands[i].name << " of tile " << tile << " has no copy on core " << core;
    }
  }
}

// Every plan says where its tiles run, and that is where the layouts put their operands: on the
// default MN-Core 2 (a top level of one chip, 4096 PEs) and a small tree of uneven fanouts whose
// top level splits too.
TEST(Partitioner, CoreDigitsPutEveryTileWhereItsOperandsAre) {
  const Values small = {{"levels.0.name", "A"},
                        {"levels.0.fanout", "2"},
                        {"levels.1.name", "B"},
                        {"levels.1.fanout", "3"},
                        {"levels.2.name", "C"},
                        {"levels.2.fanout", "4"},
                        {"levels.2.memory_bytes", "16384"}};
  std::vector<Op> ops;
  ops.push_back(matmul(64, 256, 48));
  ops.push_back(matmul(1, 4096, 8));  // splits its reduction
  ops.push_back(Op("bias", TESSERA_OP_ELEMENTWISE, {{"s", 48}, {"n", 96}},
                   {{"X", "s,n", TESSERA_DTYPE_FP32, 0, 0, 0},
                    {"W", "n", TESSERA_DTYPE_FP32, 0, 1, 0},
                    {"Y", "s,n", TESSERA_DTYPE_FP32, 1, 0, 0}}));
  ops.push_back(
      Op("softmax", TESSERA_OP_SOFTMAX, {{"r", 24}, {"c", 64}},
         {{"X", "r,c", TESSERA_DTYPE_FP32, 0, 0, 0}, {"Y", "r,c", TESSERA_DTYPE_FP32, 1, 0, 0}}));
  for (const Values& values : {Values{}, small}) {
    auto part = make<TreePartitioner>(values);
    auto chip = test::chip_from(values);
    bool split_reduction = false, rank_over_levels = false;
    for (const Op& op : ops) {
      auto by_split = divisions_by_split(*chip, op);
      auto plans = plans_of(*part, op.desc);
      ASSERT_FALSE(plans.empty()) << op.desc.name;
      for (const Plan& p : plans) {
        auto d = by_split.find(label_split(p));
        ASSERT_NE(d, by_split.end()) << p.label;
        expect_tiles_where_their_operands_are(chip, op, p, d->second);
        split_reduction |= op.desc.op_kind == TESSERA_OP_MATMUL && p.tile[1] < op.ranks[1].extent;
        std::set<uint32_t> ranks;
        for (const tessera_core_digit& digit : p.digits)
          rank_over_levels |= !ranks.insert(digit.rank).second;
      }
    }
    // The cases where a wrong digit order or stride would show.
    EXPECT_TRUE(split_reduction);
    EXPECT_TRUE(rank_over_levels);
  }
}

TEST(CodeGen, ListsTheScheduleAndTheSimdKernelOfAnElementwiseOp) {
  Values mini = preset_section("mncore2-mini", "codegen");
  auto part = make<TreePartitioner>(mini);
  auto gen = make<TreeCodeGen>(mini);
  Op add("bias_add", TESSERA_OP_ELEMENTWISE, {{"m", 16}, {"n", 32}},
         {{"x", "m,n", TESSERA_DTYPE_FP32, 0, 0, 0},
          {"bias", "n", TESSERA_DTYPE_FP32, 0, 0, 0},
          {"y", "m,n", TESSERA_DTYPE_FP32, 1, 0, 0}});
  auto plans = plans_of(*part, add.desc);
  ASSERT_FALSE(plans.empty());
  tessera_partition_plan exec = plans.front().plan;
  exec.label = plans.front().label.c_str();
  exec.tile_extents = plans.front().tile.data();
  exec.core_digits = plans.front().digits.data();
  tessera_instruction code[2] = {{TESSERA_INSTR_PRELOAD_ASYNC, 0}, {TESSERA_INSTR_EXECUTE, 0}};
  tessera_program program{sizeof(tessera_program), "demo", 1, &add.desc, &exec, &exec, 2, code};
  std::string text = gen->listing(program);
  EXPECT_EQ(text.substr(0, text.find('\n')),
            "# demo for mncore2-mini (chip, group, L2B, L1B, MAB, PE)");
  EXPECT_NE(text.find("# generated by tree_simd 1.0.0\n"), std::string::npos);
  EXPECT_NE(text.find("schedule:\n  preload_async op 0\n  execute op 0\n"), std::string::npos);
  EXPECT_NE(text.find("  simd add on PE[0..63]: "), std::string::npos) << text;
  EXPECT_EQ(gen->listing(program), text);  // byte-identical on rerun
  std::string files;
  gen->emit(program, [&](const std::string& path, const std::string& contents) {
    files += path;
    EXPECT_EQ(contents, text);
    return true;
  });
  EXPECT_EQ(files, "demo.tree_simd.txt");
  tessera_instruction bad{TESSERA_INSTR_EXECUTE, 3};
  program.instructions = &bad;
  program.num_instructions = 1;
  EXPECT_EQ(error_of([&] { gen->listing(program); }),
            "instruction 0 (kind 1, op 3) names no instruction kind or op of the program");
}

// The listing's error for `code` on two matmuls without execution plans, or "" when it lists it.
std::string refusal(TreeCodeGen& gen, std::vector<tessera_instruction> code) {
  static const Op mm = matmul(16, 16, 16);
  const tessera_op_desc ops[2] = {mm.desc, mm.desc};
  tessera_program program{
      sizeof(tessera_program), "rules", 2, ops, nullptr, nullptr, code.size(), code.data()};
  return error_of([&] { gen.listing(program); });
}

TEST(CodeGen, RefusesProgramsThatBreakTheProgrammingModelsRules) {
  auto gen = make<TreeCodeGen>(preset_section("mncore2-mini", "codegen"));
  constexpr uint32_t P = TESSERA_INSTR_PRELOAD_ASYNC, E = TESSERA_INSTR_EXECUTE;
  const std::string rules = "the program breaks the programming model's rules: ";
  EXPECT_EQ(refusal(*gen, {{E, 0}, {P, 0}, {E, 1}}),
            rules +
                "instruction 0: execute(0) comes before preload_async(0) on instruction 1; it "
                "would wait forever for done_preload_op_0 (rules 1 and 3)");
  EXPECT_EQ(
      refusal(*gen, {{E, 1}, {E, 0}}),
      rules + "instruction 0: execute(1) comes before execute(0); ops execute in graph order");
  EXPECT_EQ(refusal(*gen, {{E, 0}, {E, 0}, {E, 1}}),
            rules + "instruction 1: execute(0) is issued twice");
  EXPECT_EQ(refusal(*gen, {{P, 1}, {E, 0}}), rules + "execute(1) is never issued");
  // An execute spelled out (wait, distribute, local_execute, sync) is one execute...
  EXPECT_EQ(refusal(*gen, {{P, 0},
                           {TESSERA_INSTR_WAIT, 0},
                           {TESSERA_INSTR_DISTRIBUTE, 0},
                           {TESSERA_INSTR_LOCAL_EXECUTE, 0},
                           {TESSERA_INSTR_SYNC, 0},
                           {E, 1}}),
            "");
  // ... unless another instruction splits it.
  EXPECT_EQ(
      refusal(*gen, {{TESSERA_INSTR_WAIT, 0}, {P, 1}, {TESSERA_INSTR_LOCAL_EXECUTE, 0}, {E, 1}}),
      rules + "instruction 2: execute(0) is issued twice");
}

}  // namespace
}  // namespace tessera::plugins::tree
