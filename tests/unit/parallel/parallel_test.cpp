// Strategies compiled on the in-tree multi-chip presets: what each stage holds, which collectives
// a strategy needs and where, the step composed from them (planned against simulated), the
// search, and the error for each strategy a machine or model cannot take.
#include "framework/parallel/parallel.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <set>

#include "framework/ir/analysis.hpp"
#include "tests/unit/driver/fixtures.hpp"

namespace tessera::parallel {
namespace {

using collective::CollectiveKind;
using driver::fixtures::plugins;
using planner::Design;

driver::OpenChip open(const std::string& target, const std::string& chip) {
  return driver::open_chip(plugins(), driver::ChipChoice{target, chip}).take();
}

driver::OpenChip t3000() {
  return open("mesh_tenstorrent", "wormhole-t3000");
}

ParallelModel model(const std::string& name, int64_t batch, int64_t seq) {
  ModelRequest request;
  request.model = name;
  request.shape.batch = batch;
  request.shape.seq = seq;
  request.shape.weight_dtype = ir::DType::bfp8;
  request.shape_given = true;
  return parallel_model(request).take();
}

driver::CompileOptions options(bool simulate) {
  driver::CompileOptions o;
  o.designs = {Design::basic, Design::elk_full};
  o.simulate = simulate;
  return o;
}

ParallelCompilation compile(driver::OpenChip& chip, const ParallelModel& m,
                            const std::string& strategy, bool simulate = false) {
  return compile_parallel(plugins(), chip, m, parse_strategy(strategy).take(), options(simulate))
      .take();
}

std::string error_of(driver::OpenChip& chip, const ParallelModel& m, const std::string& strategy) {
  auto compiled =
      compile_parallel(plugins(), chip, m, parse_strategy(strategy).take(), options(false));
  EXPECT_FALSE(compiled.ok()) << strategy;
  return compiled ? "" : compiled.error().message;
}

TEST(TensorParallel, MegatronAllReducesAfterAttentionAndMlpOfEveryLayer) {
  driver::OpenChip chip = t3000();
  ParallelCompilation c = compile(chip, model("llama3.1-8b", 1, 1024), "tp=8", true);
  ASSERT_EQ(c.stages.size(), 1u);
  EXPECT_EQ(std::set<uint32_t>(c.stages[0].chips.begin(), c.stages[0].chips.end()).size(), 8u);
  std::vector<std::string> where;
  for (const CollectiveUse& u : c.collectives) where.push_back(u.where);
  EXPECT_EQ(where,
            (std::vector<std::string>{"embedding", "after attention", "after MLP", "LM head"}));
  const CollectiveUse& attention = c.collectives[1];
  EXPECT_EQ(attention.op.kind, CollectiveKind::all_reduce);
  EXPECT_EQ(attention.per_micro_batch, 32);
  EXPECT_DOUBLE_EQ(attention.op.bytes, 4096 * 2) << "one token's hidden state in fp16";
  EXPECT_EQ(c.collectives[3].op.kind, CollectiveKind::all_gather);
  EXPECT_DOUBLE_EQ(c.collectives[3].op.bytes, 128256.0 * 2);
  for (const DesignStep& d : c.designs) {
    ASSERT_TRUE(d.simulated_s) << planner::to_string(d.design);
    EXPECT_NEAR(*d.simulated_s / d.planned_s, 1.0, 0.05) << planner::to_string(d.design);
    EXPECT_GT(d.collective_planned_s, 0);
    EXPECT_NEAR(d.planned_s, d.stage_planned_s[0], 1e-12) << "one stage, one micro-batch";
    EXPECT_EQ(d.tokens, 1);
  }
  // The chip-to-chip energy: every byte on a chip link at the preset's 25 pJ per byte.
  double link_bytes = 0;
  for (const CollectiveUse& u : c.collectives)
    link_bytes += static_cast<double>(u.per_micro_batch) * u.planned.link_bytes *
                  static_cast<double>(u.concurrent.size());
  ASSERT_TRUE(c.designs.back().collective_j.has_value());
  EXPECT_NEAR(*c.designs.back().collective_j / (link_bytes * 25e-12), 1.0, 1e-9);
  EXPECT_GT(link_bytes, 161 * 8.0 * 4096 * 2) << "each all-reduce moves more than its buffer";
}

// The collectives are ops of the stage's plan: each after the op whose output it exchanges, at
// its pricer's price, inside the step; what the step shows of them (the exposed time) is at most
// their sum, the rest hidden behind the next ops' preloads.
TEST(TensorParallel, CollectivesAreOpsOfTheStagesPlan) {
  driver::OpenChip chip = t3000();
  ParallelCompilation c = compile(chip, model("llama3.1-8b", 1, 1024), "tp=8");
  const planner::DesignResult& plan = c.compilations[0].designs.back().plan.result;
  std::vector<std::string> after;
  double sum_s = 0;
  for (const planner::OpSchedule& op : plan.ops)
    for (const planner::CollectiveOp& col : op.collectives) {
      after.push_back(col.after);
      sum_s += col.planned_s;
      EXPECT_EQ(col.after_op, op.op);
      EXPECT_NEAR(op.collective_s, col.planned_s, 1e-15) << "one collective after each op";
    }
  ASSERT_EQ(after.size(), 66u) << "the embedding, 32 layers' two all-reduces, the LM head";
  EXPECT_EQ(after.front(), "embed");
  EXPECT_EQ(after[1], "layers.0.o_proj");
  EXPECT_EQ(after[2], "layers.0.down_proj");
  EXPECT_EQ(after.back(), "lm_head");
  double priced_s = 0;
  for (const CollectiveUse& u : c.collectives)
    priced_s += static_cast<double>(u.per_micro_batch) * u.planned.seconds;
  EXPECT_NEAR(sum_s, priced_s, 1e-12);
  const DesignStep& d = c.designs.back();
  EXPECT_NEAR(d.planned_s, plan.latency_s, 1e-12) << "the collectives are inside the plan";
  EXPECT_LE(d.collective_planned_s, sum_s + 1e-15);
  // The LM head's all-gather ends the step: nothing follows to hide it.
  EXPECT_GE(d.collective_planned_s, plan.ops.back().collective_s);
}

TEST(TensorParallel, EachChipHoldsAnEighthOfTheWeights) {
  driver::OpenChip chip = t3000();
  ParallelModel llama = model("llama3.1-8b", 1, 1024);
  ParallelCompilation tp8 = compile(chip, llama, "tp=8");
  ParallelCompilation flat = compile(chip, llama, "tp=1,dp=1,pp=8");
  auto weight_bytes = [](const ParallelCompilation& c) {
    double bytes = 0;
    for (const StageRun& s : c.stages)
      bytes += static_cast<double>(ir::totals(*c.compilations[s.compilation].graph).weight_bytes);
    return bytes;
  };
  // The norms are replicated on every chip; everything else is divided.
  EXPECT_NEAR(weight_bytes(tp8) * 8 / weight_bytes(flat), 1.0, 0.001);
  EXPECT_LT(tp8.designs.back().stage_planned_s[0], flat.designs.back().planned_s / 4)
      << "an eighth of the weights streams from each chip";
}

TEST(Pipeline, IdenticalStagesSharePlansAndTheStepIsTheirSum) {
  driver::OpenChip chip = t3000();
  ParallelCompilation c = compile(chip, model("llama3.1-8b", 1, 1024), "pp=8");
  ASSERT_EQ(c.stages.size(), 8u);
  EXPECT_EQ(c.compilations.size(), 3u) << "first (embedding), middle, last (head)";
  for (const StageRun& s : c.stages) EXPECT_EQ(s.last_layer - s.first_layer, 4);
  size_t sends = 0;
  for (const CollectiveUse& u : c.collectives) sends += u.op.kind == CollectiveKind::send_recv;
  EXPECT_EQ(sends, 7u);
  const DesignStep& d = c.designs.back();
  double sum = std::accumulate(d.stage_planned_s.begin(), d.stage_planned_s.end(), 0.0);
  for (const CollectiveUse& u : c.collectives) sum += u.planned.seconds;
  EXPECT_NEAR(d.planned_s, sum, 1e-12) << "decode, one micro-batch: the stages one after another";
  EXPECT_NEAR(d.bubble, 7.0 / 8, 0.01) << "one micro-batch: each stage idles 7/8 of the step";
}

// Stages of one shape share a compile only when their collectives price alike. On a Galaxy (a 4 x 8
// chip mesh) the ring of its 32 chips turns so that stage 5's four chips of tp=4,pp=8 are a 2 x 2
// square (30, 31, 23, 22) where the other middle stages' are lines: its direct all-reduce of 8 KiB
// is cheaper, and its plan its own, each stage plan's collective ops at its own stage's prices.
TEST(Pipeline, EachStagePricesItsOwnCollectives) {
  driver::OpenChip chip = open("mesh_tenstorrent", "wormhole-galaxy");
  ParallelCompilation c = compile(chip, model("llama3.1-8b", 1, 128), "tp=4,pp=8");
  ASSERT_EQ(c.stages.size(), 8u);
  EXPECT_EQ(c.compilations.size(), 4u) << "first, middle, stage 5's, last";
  EXPECT_NE(c.stages[5].compilation, c.stages[4].compilation);
  EXPECT_EQ(c.stages[6].compilation, c.stages[4].compilation);
  auto attention = [&](size_t s) {
    return std::ranges::find_if(c.collectives, [&](const CollectiveUse& u) {
      return u.stage == s && u.where == "after attention";
    });
  };
  EXPECT_LT(attention(5)->planned.seconds, 0.8 * attention(4)->planned.seconds);
  for (size_t s = 0; s < c.stages.size(); ++s) {
    const auto& plan = c.compilations[c.stages[s].compilation].designs.back().plan.result;
    for (const planner::OpSchedule& op : plan.ops)
      for (const planner::CollectiveOp& col : op.collectives) {
        auto use = std::ranges::find_if(c.collectives, [&](const CollectiveUse& u) {
          return u.stage == s && u.where == col.where;
        });
        ASSERT_NE(use, c.collectives.end()) << col.where;
        EXPECT_EQ(col.planned_s, use->planned.seconds) << "stage " << s << ", " << col.where;
      }
  }
}

TEST(Pipeline, AFixedAlgorithmAppliesWhereTheKindHasIt) {
  driver::OpenChip chip = t3000();
  ParallelCompilation c = compile(chip, model("llama3.1-8b", 1, 256), "pp=2,tp=4,collective=ring");
  for (const CollectiveUse& u : c.collectives)
    EXPECT_EQ(u.planned.algorithm, u.op.kind == CollectiveKind::send_recv
                                       ? collective::CollectiveAlgorithm::direct
                                       : collective::CollectiveAlgorithm::ring)
        << u.where;
}

TEST(Pipeline, MicroBatchesOverlapStages) {
  driver::OpenChip chip = t3000();
  ParallelCompilation c = compile(chip, model("llama3.1-8b", 8, 1024), "pp=8,mb=8");
  EXPECT_EQ(c.strategy.micro_batch, 1);
  const DesignStep& d = c.designs.back();
  double slowest = *std::max_element(d.stage_planned_s.begin(), d.stage_planned_s.end());
  EXPECT_GE(d.planned_s, 8 * slowest - 1e-12);
  EXPECT_EQ(d.tokens, 8);
}

TEST(DataParallel, ReplicasExchangeNothingAndServeTheirShare) {
  driver::OpenChip chip = t3000();
  ParallelCompilation c = compile(chip, model("llama3.1-8b", 8, 1024), "dp=8");
  EXPECT_TRUE(c.collectives.empty());
  EXPECT_EQ(c.strategy.micro_batch, 1);
  EXPECT_EQ(c.designs.back().tokens, 8);
  EXPECT_DOUBLE_EQ(c.designs.back().planned_s,
                   c.compilations[0].designs.back().plan.result.latency_s);
}

TEST(StrategyErrors, SayWhatWouldWork) {
  driver::OpenChip chip = t3000();
  ParallelModel llama = model("llama3.1-8b", 4, 1024);
  EXPECT_TRUE(
      error_of(chip, llama, "tp=3")
          .starts_with(
              "--parallel tp=3,pp=1,dp=2: tp=3 does not divide llama3.1-8b's 32 attention heads"))
      << error_of(chip, llama, "tp=3");
  EXPECT_EQ(error_of(chip, llama, "tp=4,pp=4"),
            "--parallel tp=4,pp=4,dp=1: tp x pp x dp = 16 chips, and wormhole-t3000 has 8; "
            "strategies that use its chips: tp=1,pp=1,dp=8; tp=1,pp=2,dp=4; tp=1,pp=4,dp=2; "
            "tp=1,pp=8,dp=1; tp=2,pp=1,dp=4; tp=2,pp=2,dp=2; tp=2,pp=4,dp=1; tp=4,pp=1,dp=2; "
            "tp=4,pp=2,dp=1; tp=8,pp=1,dp=1");
  EXPECT_EQ(
      error_of(chip, llama, "dp=8"),
      "--parallel tp=1,pp=1,dp=8: dp x mb = 8 does not divide --batch 4 (each replica "
      "serves batch / dp users in mb micro-batches); batches that it divides: 8, 16, 24, ...");
  EXPECT_EQ(error_of(chip, llama, "pp=2,tp=4,stages=10:20"),
            "--parallel tp=4,pp=2,dp=1,stages=10:20: stages= hold 30 layers and llama3.1-8b has "
            "32; give each stage's layers so that they add up to 32");
  EXPECT_TRUE(error_of(chip, llama, "ep=8").starts_with("--parallel tp=1,pp=1,dp=8,ep=8: "))
      << error_of(chip, llama, "ep=8");
  // A stage too large for one chip: the strategies whose stages would hold it.
  EXPECT_TRUE(error_of(chip, model("llama3.1-70b", 8, 128), "tp=2,pp=2,dp=2")
                  .ends_with("; strategies whose stages would fit (estimated from this stage's "
                             "bytes): tp=1,pp=8,dp=1; tp=2,pp=4,dp=1; tp=4,pp=2,dp=1; "
                             "tp=8,pp=1,dp=1"))
      << error_of(chip, model("llama3.1-70b", 8, 128), "tp=2,pp=2,dp=2");
  driver::OpenChip pod = open("ipu_alltoall", "ipu-pod4");
  EXPECT_EQ(error_of(pod, model("gpt2-xl", 1, 264), "pp=5"),
            "--parallel tp=1,pp=5,dp=1: tp x pp x dp = 5 chips, and ipu-pod4 has 4; strategies "
            "that use its chips: tp=1,pp=1,dp=4; tp=1,pp=2,dp=2; tp=1,pp=4,dp=1; tp=2,pp=1,dp=2; "
            "tp=2,pp=2,dp=1; tp=4,pp=1,dp=1");
  driver::OpenChip tree = open("tree_simd", "mncore2");
  EXPECT_EQ(error_of(tree, llama, "tp=2"),
            "--parallel tp=2,pp=1,dp=1: mncore2 is one chip (tree_simd); a parallel strategy "
            "divides a step over several chips: choose a preset with more (tessera targets lists "
            "each target's presets)");
}

TEST(Search, TriesEveryStrategyAndSaysWhyEachFailed) {
  driver::OpenChip chip = open("mesh_tenstorrent", "wormhole-n300");
  Search s = search_strategies(plugins(), chip, model("llama3.1-8b", 1, 1024), options(false),
                               Rank::latency)
                 .take();
  std::vector<std::string> tried;
  for (const Candidate& c : s.tried) tried.push_back(to_string(c.strategy));
  EXPECT_EQ(tried, (std::vector<std::string>{"flat", "tp=1,pp=1,dp=2", "tp=1,pp=2,dp=1",
                                             "tp=2,pp=1,dp=1"}));
  EXPECT_TRUE(
      s.tried[1].reason.starts_with("--parallel tp=1,pp=1,dp=2: dp x mb = 2 does not "
                                    "divide --batch 1"))
      << s.tried[1].reason;
  ASSERT_TRUE(s.best.has_value());
  for (const Candidate& c : s.tried)
    if (c.reason.empty()) {
      ASSERT_TRUE(c.step_s.has_value());
      EXPECT_LE(*s.tried[*s.best].step_s, *c.step_s);
    }
}

}  // namespace
}  // namespace tessera::parallel
