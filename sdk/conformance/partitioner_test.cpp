// Partitioner contracts: what the planner takes from a plugin's plans. For a decoder layer's kinds
// of op (ops.hpp) every plan covers the op exactly once — one tile per used core, each rank split
// into parts whose tiles cover it, the parts multiplying to cores_used — on no more cores than the
// chip has; its bytes are at least what its tiles and HBM operands hold; its times are finite; a
// plan that says where its tiles sit (core_digits, ABI 1.3) puts each on a core of its own.
// UNIMPLEMENTED leaves an op to the framework's default partitioner; an op that fits no chip gets
// no plans, never an error.
#include <algorithm>
#include <cmath>
#include <tuple>
#include <utility>

#include "sdk/conformance/ops.hpp"
#include "sdk/conformance/plugin_under_test.hpp"
#include "sdk/conformance/suites.hpp"

namespace tessera::conformance {

void link_partitioner_suite() {}

namespace {

std::string plan_name(const KitOp& op, const PlanCopy& plan, size_t index) {
  return op.name() + " plan " + std::to_string(index) + " '" +
         (plan.label ? *plan.label : std::string("(no label)")) + "': ";
}

// The splits s of an extent e whose tiles are t = ceil(e / s), as a host splits a rank (s <= e).
std::pair<uint64_t, uint64_t> splits_giving(uint64_t e, uint64_t t) {
  uint64_t most = t == 1 ? e : (e + t - 2) / (t - 1) - 1;  // the largest s with e / s > t - 1
  return {(e + t - 1) / t, std::min(most, e)};
}

// True when one split per rank, each in its range, multiplies to `cores`.
bool some_split_uses(const std::vector<std::pair<uint64_t, uint64_t>>& ranges, size_t rank,
                     uint64_t cores) {
  if (rank == ranges.size()) return cores == 1;
  for (uint64_t s = ranges[rank].first; s <= std::min(ranges[rank].second, cores); ++s)
    if (cores % s == 0 && some_split_uses(ranges, rank + 1, cores / s)) return true;
  return false;
}

// Why `plan` does not cover `op` exactly once on at most `cores` cores (0: unknown), or "". Each
// used core works on one tile: the op's ranks are split, each rank's tile is its extent over its
// split (rounded up), and the splits multiply to cores_used.
std::string coverage_problem(const KitOp& op, const PlanCopy& plan, uint32_t cores) {
  const tessera_partition_plan& p = plan.fields;
  if (p.num_ranks != op.num_ranks() || !plan.tile)
    return "num_ranks " + std::to_string(p.num_ranks) + (plan.tile ? "" : " and no tile_extents") +
           "; the op has " + std::to_string(op.num_ranks()) + " ranks";
  std::vector<std::pair<uint64_t, uint64_t>> ranges;
  std::string splits;
  for (size_t r = 0; r < op.num_ranks(); ++r) {
    uint64_t t = (*plan.tile)[r], e = op.extent(r);
    std::string rank = op.desc().ranks[r].name;
    if (t == 0 || t > e)
      return "rank " + rank + ": tile " + std::to_string(t) + " of an extent " + std::to_string(e) +
             "; a tile spans 1 to the whole extent";
    ranges.push_back(splits_giving(e, t));
    auto [lo, hi] = ranges.back();
    splits += (splits.empty() ? "" : ", ") + rank + " " + std::to_string(lo) +
              (hi > lo ? ".." + std::to_string(hi) : "");
  }
  if (p.cores_used == 0 || !some_split_uses(ranges, 0, p.cores_used))
    return "its tiles split the ranks into " + splits + " parts, and no such split makes " +
           std::to_string(p.cores_used) +
           " tiles (cores_used): each used core works on one tile, once";
  if (cores > 0 && p.cores_used > cores)
    return "cores_used " + std::to_string(p.cores_used) + " but the chip has " +
           std::to_string(cores) + " cores";
  return "";
}

// A plan of more tiles than this is not placed tile by tile: no chip has that many cores (and
// coverage_problem bounds cores_used by the chip's when the plugin is the topology too).
constexpr uint64_t kMaxPlacedTiles = uint64_t{1} << 22;

// Tile `tile` of a plan with core digits `digits`, by its block along each rank: "(m 0, n 3)".
// Each rank's block counts in mixed radix over its digits, the first listed fastest.
std::string tile_text(const KitOp& op, const std::vector<tessera_core_digit>& digits,
                      uint64_t tile) {
  std::vector<uint64_t> block(op.num_ranks(), 0), scale(op.num_ranks(), 1);
  for (const tessera_core_digit& d : digits) {
    block[d.rank] += tile % d.count * scale[d.rank];
    scale[d.rank] *= d.count;
    tile /= d.count;
  }
  std::string text;
  for (size_t r = 0; r < op.num_ranks(); ++r)
    text += (text.empty() ? "(" : ", ") + std::string(op.desc().ranks[r].name) + " " +
            std::to_string(block[r]);
  return text + ")";
}

// Why `plan`'s core digits (which its tiles must cover soundly) are not the ranks' splits or do
// not give each tile a core of its own among `cores` (0: unknown), or "". As the host reads them
// (plugin_abi.h): a digit counts blocks of one rank, a rank's counts multiply to its split, all
// counts to cores_used, and a tile's core is the sum of its digits times their core_stride.
std::string placement_problem(const KitOp& op, const PlanCopy& plan, uint32_t cores) {
  const uint32_t used = plan.fields.cores_used;
  std::vector<uint64_t> split(op.num_ranks(), 1);
  uint64_t tiles = 1;
  for (size_t i = 0; i < plan.digits.size() && tiles <= used; ++i) {
    const tessera_core_digit& d = plan.digits[i];
    if (d.rank >= op.num_ranks() || d.count == 0)
      return "core digit " + std::to_string(i) + " counts " + std::to_string(d.count) +
             " blocks of rank " + std::to_string(d.rank) + "; a digit counts at least 1 block " +
             "of one of the op's " + std::to_string(op.num_ranks()) + " ranks";
    split[d.rank] *= d.count;
    tiles *= d.count;
  }
  if (tiles != used)
    return "its core digits count " +
           (tiles > used ? "more than " + std::to_string(used) : std::to_string(tiles)) +
           " tiles, but cores_used is " + std::to_string(used);
  for (size_t r = 0; r < op.num_ranks(); ++r)
    if (uint64_t e = op.extent(r); (e + split[r] - 1) / split[r] != (*plan.tile)[r])
      return "rank " + std::string(op.desc().ranks[r].name) + ": its core digits split it into " +
             std::to_string(split[r]) + " parts, but its tile " + std::to_string((*plan.tile)[r]) +
             " is not its extent " + std::to_string(e) + " over that, rounded up";
  if (used > kMaxPlacedTiles) return "";
  std::vector<std::pair<uint64_t, uint64_t>> placed;  // (core, tile)
  for (uint64_t tile = 0; tile < used; ++tile) {
    uint64_t core = 0, rest = tile;
    for (const tessera_core_digit& d : plan.digits) {
      core += rest % d.count * d.core_stride;
      rest /= d.count;
    }
    if (cores > 0 && core >= cores)
      return "tile " + tile_text(op, plan.digits, tile) + " sits on core " + std::to_string(core) +
             ", but the chip has " + std::to_string(cores) + " cores";
    placed.emplace_back(core, tile);
  }
  std::sort(placed.begin(), placed.end());
  for (size_t i = 1; i < placed.size(); ++i)
    if (placed[i].first == placed[i - 1].first)
      return "tiles " + tile_text(op, plan.digits, placed[i - 1].second) + " and " +
             tile_text(op, plan.digits, placed[i].second) + " both sit on core " +
             std::to_string(placed[i].first) + "; each tile needs a core of its own";
  return "";
}

// Why `plan`'s bytes or times cannot be `op`'s, or "".
std::string figures_problem(const KitOp& op, const PlanCopy& plan) {
  const tessera_partition_plan& p = plan.fields;
  if (!plan.label || plan.label->empty()) return "no label; reports and plan.yaml show it";
  double tile_bytes = 0, hbm_bytes = 0;
  for (size_t i = 0; i < op.operands().size(); ++i) {
    tile_bytes += op.operand_bytes(i, plan.tile->data());
    if (op.operands()[i].in_hbm) hbm_bytes += op.operand_bytes(i);
  }
  if (static_cast<double>(p.exec_bytes_per_core) < tile_bytes)
    return "exec_bytes_per_core " + format_number(static_cast<double>(p.exec_bytes_per_core)) +
           " but one tile's operands hold " + format_number(tile_bytes) + " bytes";
  if (!(p.hbm_bytes >= hbm_bytes) || !std::isfinite(p.hbm_bytes))
    return "hbm_bytes " + format_number(p.hbm_bytes) + " but the operands in HBM hold " +
           format_number(hbm_bytes) + " bytes, each read at least once";
  for (auto [name, value] :
       {std::pair{"inter_core_bytes", p.inter_core_bytes}, std::pair{"compute_s", p.compute_s},
        std::pair{"shift_s", p.shift_s}, std::pair{"distribute_s", p.distribute_s},
        std::pair{"sync_s", p.sync_s}})
    if (!non_negative_finite(value))
      return std::string(name) + " " + format_number(value) + "; must be finite and >= 0";
  return "";
}

class PartitionerContract : public PluginTest {
 protected:
  void SetUp() override {
    PluginTest::SetUp();
    if (IsSkipped()) return;
    TESSERA_SKIP_UNLESS_PROVIDES(Interface::partitioner);
    partitioner_ = make_default<tessera_partitioner>(library());
    ASSERT_TRUE(partitioner_);
    cores_ = chip_cores();
  }

  // The default chip's cores when this plugin is its topology too; 0 (no bound) otherwise.
  uint32_t chip_cores() const {
    if (!manifest().provides_interface(Interface::topology)) return 0;
    Owned<tessera_topology> topology = make_default<tessera_topology>(library());
    if (!topology) return 0;
    tessera_topology_info info{};
    info.struct_size = sizeof(info);
    const tessera_topology* t = topology.get();
    EXPECT_EQ(outcome(invoke("get_info", [&] { return t->get_info(t, &info); })), "OK");
    return info.num_cores;
  }

  // The plans of `op`; empty when it is left to the default partitioner. Any other error, or
  // plans followed by UNIMPLEMENTED, is a problem.
  std::vector<PlanCopy> plans(const KitOp& op, Problems& problems) const {
    PlansAnswer answer = plans_of(partitioner_.get(), op.desc());
    if (!answer.error) return std::move(answer.plans);
    if (answer.error->code != StatusCode::unimplemented)
      problems.add(outcome(answer.error) + "; only UNIMPLEMENTED (left to the default " +
                   "partitioner) may stop a plan search, and infeasible is no plans, not an error");
    else if (!answer.plans.empty())
      problems.add(op.name() + ": " + std::to_string(answer.plans.size()) +
                   " plans, then UNIMPLEMENTED; an op left to the default partitioner gets none");
    return {};
  }

  // Checks every plan of every op with `check(op, plan)`.
  template <class Check>
  void expect_every_plan(const KitOps& ops, Check&& check) const {
    Problems problems;
    for (const auto& op : ops) {
      std::vector<PlanCopy> found = plans(*op, problems);
      for (size_t i = 0; i < found.size(); ++i)
        if (std::string p = check(*op, found[i]); !p.empty())
          problems.add(plan_name(*op, found[i], i) + p);
    }
    EXPECT_TRUE(problems.empty()) << problems.summary();
  }

  Owned<tessera_partitioner> partitioner_;
  uint32_t cores_ = 0;
};

TEST_P(PartitionerContract, PlansCoverTheOpExactlyOnce) {
  expect_every_plan(representative_ops(), [&](const KitOp& op, const PlanCopy& plan) {
    return coverage_problem(op, plan, cores_);
  });
}

TEST_P(PartitionerContract, PlanBytesAndTimesAreConsistent) {
  expect_every_plan(representative_ops(), [&](const KitOp& op, const PlanCopy& plan) {
    std::string p = coverage_problem(op, plan, cores_);  // the figures need a sound tile
    return p.empty() ? figures_problem(op, plan) : "";
  });
}

TEST_P(PartitionerContract, AnOpThatFitsNoChipGetsNoPlansNotAnError) {
  KitOps ops;
  ops.push_back(infeasible_op());
  // Plans it still offers (the host explains why none fits) must be sound all the same.
  expect_every_plan(ops, [&](const KitOp& op, const PlanCopy& plan) {
    std::string p = coverage_problem(op, plan, cores_);
    return p.empty() ? figures_problem(op, plan) : p;
  });
}

TEST_P(PartitionerContract, CoreDigitsPutEveryTileOnACoreOfItsOwn) {
  bool placed = false;
  expect_every_plan(representative_ops(), [&](const KitOp& op, const PlanCopy& plan) {
    if (plan.digits.empty()) return std::string();
    placed = true;
    std::string p = coverage_problem(op, plan, cores_);  // the digits need a sound tile
    return p.empty() ? placement_problem(op, plan, cores_) : "";
  });
  if (!placed)
    GTEST_SKIP()
        << "no plan gives core_digits (ABI 1.3): the host puts its plans on the first cores";
}

TEST_P(PartitionerContract, StopsWhenTheSinkAsksTo) {
  for (const auto& op : representative_ops()) {
    PlansAnswer all = plans_of(partitioner_.get(), op->desc());
    if (all.error || all.plans.size() < 2) continue;
    PlansAnswer first = plans_of(partitioner_.get(), op->desc(), 1);
    EXPECT_EQ(outcome(first.error), "OK") << "stopping is not an error";
    EXPECT_EQ(first.plans.size(), 1u)
        << op->name() << ": the sink returned non-zero after the first plan, yet it got more";
    return;
  }
  GTEST_SKIP() << "no op got two plans";
}

// The fields of a plan, for comparing two answers.
auto fields(const PlanCopy& c) {
  const tessera_partition_plan& p = c.fields;
  std::vector<std::tuple<uint32_t, uint32_t, uint64_t>> digits;
  for (const tessera_core_digit& d : c.digits) digits.emplace_back(d.rank, d.count, d.core_stride);
  return std::tuple(c.label, c.tile, digits, p.cores_used, p.num_ranks, p.exec_bytes_per_core,
                    p.preload_bytes_per_core, p.inter_core_bytes, p.hbm_bytes, p.compute_s,
                    p.shift_s, p.distribute_s, p.sync_s);
}

TEST_P(PartitionerContract, AnswersAreDeterministic) {
  Owned<tessera_partitioner> other = make_default<tessera_partitioner>(library());
  ASSERT_TRUE(other);
  for (const auto& op : representative_ops()) {
    PlansAnswer first = plans_of(partitioner_.get(), op->desc());
    for (const tessera_partitioner* p : {partitioner_.get(), other.get()}) {
      PlansAnswer again = plans_of(p, op->desc());
      EXPECT_EQ(outcome(again.error), outcome(first.error)) << op->name();
      ASSERT_EQ(again.plans.size(), first.plans.size()) << op->name();
      for (size_t i = 0; i < first.plans.size(); ++i)
        EXPECT_TRUE(fields(again.plans[i]) == fields(first.plans[i]))
            << plan_name(*op, first.plans[i], i) << "differs when asked again"
            << (p == other.get() ? " of a second object" : "");
    }
  }
}

}  // namespace

TESSERA_INSTANTIATE_FOR_PLUGINS(PartitionerContract);

}  // namespace tessera::conformance
