// Points against the real planner, simulator and ipu_alltoall plugin: axis paths checked before
// anything runs (with the valid paths near a wrong one), a point that does not fit recorded with
// its reason, the per-op plan cache shared by points that differ only in HBM bandwidth, the chip
// file's HBM rate reaching plan and simulation alike (every other rate: chip_file_rates_test.cpp),
// and the scale knobs reaching the machine (or refused where the chip cannot take them),
// parallel strategies and residency as axes, and each point's chip's approximation in the tables.
#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>
#include <thread>

#include "framework/chip/chip_models.hpp"
#include "framework/dse/evaluate_point.hpp"
#include "framework/dse/point_setup.hpp"
#include "framework/dse/results_table.hpp"
#include "framework/parallel/parallel.hpp"
#include "framework/plugin/plugin_set.hpp"
#include "tests/unit/temp_dir.hpp"

namespace tessera::dse {
namespace {

Registry registry() {
  return Registry::discover(plugin_search_dirs({}));
}

// A sweep of `axes` over `model` on `chip` of `target`, batch 1, KV 16, Basic and Elk-Dyn.
SweepSpec sweep(const std::string& axes, const std::string& model = "llama2-7b",
                const std::string& target = "ipu_alltoall",
                const std::string& chip = "ipu-mk2-hbm3e") {
  return parse_sweep_text("name: t\nbase: {model: " + model + ", target: " + target +
                              ", chip: " + chip +
                              ", batch: 1, seq: 16, designs: [basic, elk-dyn]}\naxes:\n" + axes,
                          "s.yaml")
      .take();
}

std::string check_error(const std::string& axes) {
  PluginSet plugins(registry());
  Status status = check_sweep(sweep(axes), plugins);
  EXPECT_FALSE(status.ok());
  return status ? "" : status.error().message;
}

TEST(CheckSweep, AWrongChipParameterListsTheValidPathsNearIt) {
  std::string e = check_error("  - {path: topology.hbm.bytes_per_sec, values: [1e12]}\n");
  EXPECT_TRUE(e.starts_with("s.yaml:4: axes: unknown path 'topology.hbm.bytes_per_sec' (")) << e;
  EXPECT_NE(e.find("ipu-mk2-hbm3e.yaml: plugin 'ipu_alltoall': create_topology: unknown topology "
                   "parameter 'hbm.bytes_per_sec'"),
            std::string::npos)
      << e;
  EXPECT_TRUE(e.ends_with(
      "; valid paths near it: topology.hbm.bytes_per_s, topology.sram_bytes_per_core, "
      "scale.hbm_bytes_per_s, topology.hbm.controllers, topology.cores_per_chip, topology.chips; "
      "any parameter the chip's plugins read is SECTION.PARAM, SECTION one of topology, "
      "cost_model, memory_model, partitioner, layout_mapper, codegen"))
      << e;
}

TEST(CheckSweep, AMisspeltKnobAndBadValues) {
  std::string e = check_error("  - {path: memory.bandwith, values: [1e12]}\n");
  EXPECT_EQ(e.substr(0, 97),
            "s.yaml:4: axes: unknown path 'memory.bandwith'; valid paths near it: "
            "memory.bandwidth_bytes_per_s");
  EXPECT_EQ(check_error("  - {path: cores, values: [64, 0]}\n"),
            "s.yaml:4: axes: cores: value '0': expected a whole number >= 1");
  EXPECT_EQ(check_error("  - {path: flops_scale, values: [2, fast]}\n"),
            "s.yaml:4: axes: flops_scale: value 'fast': expected a number > 0");
  EXPECT_EQ(check_error("  - {path: core_cost, values: [plugin, fitted]}\n"),
            "s.yaml:4: axes: core_cost: value 'fitted': expected plugin or tcm (docs/mapper.md, "
            "\"Cores of a chip\")");
  PluginSet plugins(registry());
  EXPECT_TRUE(
      check_sweep(sweep("  - {path: topology.cores_per_chip, values: [64]}\n"), plugins).ok());
}

TEST(CheckSweep, CoresThatDoNotDivideAndBadDims) {
  PluginSet plugins(registry());
  SweepSpec four =
      sweep("  - {path: topology.chips, values: [4]}\n  - {path: cores, values: [6]}\n");
  EXPECT_EQ(setup_point(four, enumerate_points(four).front(), plugins).error().message,
            "cores 6: not a multiple of the chip's 4 chips (topology.chips); cores are spread "
            "evenly over the chips");
  SweepSpec dims = sweep("  - {path: batch, values: [1]}\n");
  dims.base.dims = {"batch"};
  EXPECT_EQ(setup_point(dims, enumerate_points(dims).front(), plugins).error().message,
            "s.yaml: base.dims: 'batch': expected NAME=VALUE with VALUE in [1, 16777216], e.g. "
            "batch=16");
}

TEST(SetupPoint, KnobsReachTheChipSpecAndTheMachine) {
  SweepSpec s = sweep(
      "  - {path: memory.bandwidth_bytes_per_s, values: [3e12]}\n"
      "  - {path: interconnect_scale, values: [2]}\n"
      "  - {path: flops_scale, values: [4]}\n"
      "  - {path: cores, values: [736]}\n");
  PluginSet plugins(registry());
  PointSetup setup = setup_point(s, enumerate_points(s).front(), plugins).take();
  EXPECT_EQ(setup.chip.spec.scale, (ChipScale{3e12, 2, 4}));
  ChipModels scaled = build_chip(plugins, setup.chip.spec).take();
  ChipSpec plain_spec = setup.chip.spec;
  plain_spec.scale = {};
  ChipModels plain = build_chip(plugins, plain_spec).take();
  const Machine& m = scaled.machine;
  EXPECT_EQ(m.cores, 736u);
  EXPECT_DOUBLE_EQ(m.hbm_peak_bytes_per_s, 3e12);
  EXPECT_DOUBLE_EQ(m.hbm_bytes_per_s / m.hbm_peak_bytes_per_s,
                   plain.machine.hbm_bytes_per_s / plain.machine.hbm_peak_bytes_per_s)
      << "the memory model's efficiency is kept";
  EXPECT_DOUBLE_EQ(m.shift_bytes_per_s_per_core, 2 * plain.machine.shift_bytes_per_s_per_core);
  EXPECT_DOUBLE_EQ(m.preload_bytes_per_s_per_core, 2 * plain.machine.preload_bytes_per_s_per_core);
  EXPECT_DOUBLE_EQ(m.peak_flops_per_s, 4 * plain.machine.peak_flops_per_s);
  EXPECT_EQ(m.compute_speedup, 4);
  EXPECT_DOUBLE_EQ(scaled.link_scale.on_chip, 2);
  EXPECT_DOUBLE_EQ(scaled.link_scale.memory, 3e12 / plain.machine.hbm_peak_bytes_per_s);
}

TEST(ChipScale, KnobsTheChipCannotTakeAreInputErrors) {
  PluginSet plugins(registry());
  auto tree = plugins.library("tree_simd");
  ASSERT_TRUE(tree.ok()) << tree.error().message;
  ChipSpec chip = resolve_chip("mncore2-mini", (*tree)->manifest()).take();
  chip.scale.flops = 2;
  auto models = build_chip(plugins, chip);
  ASSERT_FALSE(models.ok());
  EXPECT_TRUE(models.error().message.ends_with(
      "scale.flops: the chip's plugin Partitioner ('tree_simd') times the ops itself, so the "
      "framework cannot scale their compute; scale its cost_model parameters instead"))
      << models.error().message;

  Machine no_hbm;
  auto none = scale_machine(no_hbm, ChipScale{1e12, 1, 1}, false);
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.error().message, "scale.hbm_bytes_per_s: the chip has no HBM bandwidth to scale");
}

TEST(EvaluatePoint, PointsShareOpPlansAcrossHbmBandwidthAndFailuresKeepTheirReason) {
  SweepSpec s = sweep(
      "  - {path: topology.sram_bytes_per_core, values: [638976, 256]}\n"
      "  - {path: memory.bandwidth_bytes_per_s, values: [1e12, 2e12]}\n");
  auto points = enumerate_points(s);
  driver::OpPlanCache cache;
  Registry reg = registry();
  PointResult slow = evaluate_point(s, points[0], reg, cache, {2});
  PointResult fast = evaluate_point(s, points[1], reg, cache, {2});
  ASSERT_TRUE(slow.ok) << slow.reason;
  ASSERT_TRUE(fast.ok) << fast.reason;
  const size_t classes = 14;  // of llama2-7b decode's ops
  EXPECT_EQ(cache.misses(), classes);
  EXPECT_EQ(cache.hits(), classes) << "the second point partitions nothing";
  ASSERT_EQ(slow.rows.size(), 2u);
  EXPECT_EQ(slow.rows[1].design, "elk-dyn");
  EXPECT_TRUE(slow.rows[1].simulated);
  EXPECT_GT(slow.rows[1].planned.latency_s, fast.rows[1].planned.latency_s);
  EXPECT_GT(slow.rows[1].simulated_metrics.latency_s, fast.rows[1].simulated_metrics.latency_s);
  EXPECT_EQ(fast.hbm_peak_bytes_per_s, 2e12);

  PointResult tiny = evaluate_point(s, points[2], reg, cache, {2});
  EXPECT_FALSE(tiny.ok);
  EXPECT_TRUE(tiny.rows.empty());
  EXPECT_EQ(tiny.reason.substr(0, 81),
            "op 'layers.0.gate_proj' needs at least 60.0 KiB of SRAM per core under any plan (");
  EXPECT_EQ(tiny.cores, 1472u) << "what ran is still described";
}

// The chip file's controller links and the memory model both carry preloads: a chip file rate
// below the model's sustained one slows the plan as it slows the simulation.
TEST(EvaluatePoint, TheChipFilesHbmRateMovesPlannedAndSimulatedAlike) {
  SweepSpec s = sweep("  - {path: topology.hbm.bytes_per_s, values: [4.7104e12, 4.7104e9]}\n");
  auto points = enumerate_points(s);
  driver::OpPlanCache cache;
  Registry reg = registry();
  PointResult fast = evaluate_point(s, points[0], reg, cache, {2});
  PointResult slow = evaluate_point(s, points[1], reg, cache, {2});
  ASSERT_TRUE(fast.ok) << fast.reason;
  ASSERT_TRUE(slow.ok) << slow.reason;
  ASSERT_EQ(slow.rows.size(), 2u);
  EXPECT_GT(slow.rows[1].planned.latency_s, 100 * fast.rows[1].planned.latency_s);
  EXPECT_GT(slow.rows[1].simulated_metrics.latency_s,
            100 * fast.rows[1].simulated_metrics.latency_s);
}

TEST(EvaluatePoint, CoreCostIsAnAxisWhosePointsDoNotSharePlans) {
  SweepSpec s = sweep("  - {path: core_cost, values: [plugin, tcm]}\n");
  auto points = enumerate_points(s);
  driver::OpPlanCache cache;
  Registry reg = registry();
  PointResult fitted = evaluate_point(s, points[0], reg, cache, {2});
  PointResult mapped = evaluate_point(s, points[1], reg, cache, {2});
  ASSERT_TRUE(fitted.ok) << fitted.reason;
  ASSERT_TRUE(mapped.ok) << mapped.reason;
  EXPECT_EQ(cache.hits(), 0u) << "the mapped cores' plans are other plans";
  EXPECT_NE(fitted.rows[1].planned.latency_s, mapped.rows[1].planned.latency_s);

  PluginSet plugins(registry());
  auto tree = plugins.library("tree_simd");
  ASSERT_TRUE(tree.ok()) << tree.error().message;
  ChipSpec coreless = resolve_chip("patent-2level", (*tree)->manifest()).take();
  coreless.core_cost = CoreCost::tcm;
  auto models = build_chip(plugins, coreless);
  ASSERT_FALSE(models.ok());
  EXPECT_TRUE(models.error().message.ends_with(
      "patent-2level.yaml: core_cost tcm maps each tile onto the core's memory hierarchy, and "
      "this chip has no core: section"))
      << models.error().message;
}

// Llama 3.1 8B decode on the eight Wormholes of a T3000, planned only.
SweepSpec strategy_sweep(const std::string& chip, const std::string& values) {
  return parse_sweep_text(
             "name: t\nbase: {model: llama3.1-8b, target: mesh_tenstorrent, chip: " + chip +
                 ", batch: 8, seq: 1024, weight_dtype: bfp8, designs: [basic, elk-full], "
                 "simulate: false}\naxes:\n  - {path: parallel, values: [" +
                 values + "]}\n",
             "s.yaml")
      .take();
}

parallel::ParallelCompilation compiled(const SweepSpec& s, const std::string& chip_name,
                                       const std::string& strategy) {
  PluginSet plugins(registry());
  auto chip = driver::open_chip(plugins, driver::ChipChoice{"mesh_tenstorrent", chip_name}).take();
  ModelRequest request;
  request.model = s.base.model;
  request.shape.batch = s.base.batch;
  request.shape.seq = s.base.seq;
  request.shape.weight_dtype = ir::DType::bfp8;
  request.shape_given = true;
  driver::CompileOptions options;
  options.designs = s.base.designs;
  options.simulate = false;
  return parallel::compile_parallel(plugins, chip, parallel::parallel_model(request).take(),
                                    parallel::parse_strategy(strategy).take(), options)
      .take();
}

TEST(StrategyAxis, EachPointIsCompileParallelsStepForItsStrategy) {
  SweepSpec s = strategy_sweep("wormhole-t3000", "flat, \"tp=8\", \"pp=4,tp=2\", \"dp=8\"");
  PluginSet plugins(registry());
  ASSERT_TRUE(check_sweep(s, plugins).ok());
  auto points = enumerate_points(s);
  driver::OpPlanCache cache;
  Registry reg = registry();
  PointResult flat = evaluate_point(s, points[0], reg, cache, {2});
  ASSERT_TRUE(flat.ok) << flat.reason;
  EXPECT_EQ(flat.strategy, "flat");
  EXPECT_TRUE(flat.strategy_rows.empty());
  EXPECT_EQ(flat.tokens, 8);
  for (size_t p = 1; p < points.size(); ++p) {
    PointResult r = evaluate_point(s, points[p], reg, cache, {2});
    ASSERT_TRUE(r.ok) << points[p].values[0] << ": " << r.reason;
    parallel::ParallelCompilation c = compiled(s, "wormhole-t3000", points[p].values[0]);
    EXPECT_EQ(r.strategy, parallel::to_string(c.strategy));
    EXPECT_EQ(r.mode, "decode");
    ASSERT_EQ(r.rows.size(), c.designs.size());
    ASSERT_EQ(r.strategy_rows.size(), c.designs.size());
    for (size_t d = 0; d < c.designs.size(); ++d) {
      EXPECT_EQ(r.rows[d].design, planner::to_string(c.designs[d].design));
      EXPECT_DOUBLE_EQ(r.rows[d].planned.latency_s, c.designs[d].planned_s) << r.strategy;
      EXPECT_DOUBLE_EQ(r.strategy_rows[d].collective_s, c.designs[d].collective_planned_s);
      EXPECT_DOUBLE_EQ(r.strategy_rows[d].bubble, c.designs[d].bubble);
      EXPECT_FALSE(r.rows[d].simulated);
    }
    EXPECT_EQ(r.tokens, c.designs.back().tokens);
  }
  EXPECT_GT(cache.hits(), 0u) << "stages of different strategies share op plans";
}

TEST(StrategyAxis, AStrategyThatDoesNotFitIsAFailedPointWithTheReason) {
  SweepSpec s = strategy_sweep("wormhole-t3000", "\"tp=3\"");
  driver::OpPlanCache cache;
  PointResult r = evaluate_point(s, enumerate_points(s).front(), registry(), cache, {2});
  EXPECT_FALSE(r.ok);
  EXPECT_TRUE(r.rows.empty());
  EXPECT_EQ(r.strategy, "tp=3");
  EXPECT_TRUE(r.reason.starts_with(
      "--parallel tp=3,pp=1,dp=2: tp=3 does not divide llama3.1-8b's 32 attention heads"))
      << r.reason;
}

// The workload of strategy_sweep, as the search takes it.
ModelRequest strategy_request() {
  ModelRequest request;
  request.model = "llama3.1-8b";
  request.shape.batch = 8;
  request.shape.seq = 1024;
  request.shape.weight_dtype = ir::DType::bfp8;
  request.shape_given = true;
  return request;
}

// The sweep's designs, planned only, as auto's search plans them.
driver::CompileOptions planned(const SweepSpec& s) {
  driver::CompileOptions options;
  options.designs = s.base.designs;
  options.simulate = false;
  return options;
}

TEST(StrategyAxis, AutoRunsTheSearchesBest) {
  SweepSpec s = strategy_sweep("wormhole-n300", "auto");
  driver::OpPlanCache cache;
  PointResult r = evaluate_point(s, enumerate_points(s).front(), registry(), cache, {2});
  ASSERT_TRUE(r.ok) << r.reason;
  PluginSet plugins(registry());
  auto chip =
      driver::open_chip(plugins, driver::ChipChoice{"mesh_tenstorrent", "wormhole-n300"}).take();
  const ModelRequest request = strategy_request();
  const driver::CompileOptions options = planned(s);
  parallel::Search search =
      parallel::search_strategies(plugins, chip, parallel::parallel_model(request).take(), options,
                                  parallel::Rank::latency)
          .take();
  ASSERT_TRUE(search.best.has_value());
  const parallel::Candidate& best = search.tried[*search.best];
  if (best.strategy.flat) {
    EXPECT_EQ(r.strategy, "flat");
  } else {
    EXPECT_EQ(r.strategy, parallel::to_string(best.strategy));
  }
  double fastest = r.rows.front().planned.latency_s;
  for (const DesignRow& row : r.rows)
    if (row.design != "ideal") fastest = std::min(fastest, row.planned.latency_s);
  EXPECT_DOUBLE_EQ(fastest, *best.step_s);
}

// `rank` orders auto's candidates as --rank does: each point runs the strategy the search ranks
// first by its own rank (on the T3000 tensor parallel over all eight chips is fastest, its
// all-reduces overlapping the preloads; a pipeline of tensor-parallel pairs spends least per
// token).
TEST(StrategyAxis, AutoRanksAsThePointSays) {
  SweepSpec s = parse_sweep_text(
                    "name: t\nbase: {model: llama3.1-8b, target: mesh_tenstorrent, chip: "
                    "wormhole-t3000, batch: 8, seq: 1024, weight_dtype: bfp8, designs: [elk-full], "
                    "simulate: false, parallel: auto}\naxes:\n"
                    "  - {path: rank, values: [latency, energy]}\n",
                    "s.yaml")
                    .take();
  PluginSet plugins(registry());
  ASSERT_TRUE(check_sweep(s, plugins).ok());
  auto chip =
      driver::open_chip(plugins, driver::ChipChoice{"mesh_tenstorrent", "wormhole-t3000"}).take();
  const ModelRequest request = strategy_request();
  const driver::CompileOptions options = planned(s);
  driver::OpPlanCache cache;
  std::set<std::string> chosen;
  for (const Point& point : enumerate_points(s)) {
    PointResult r = evaluate_point(s, point, registry(), cache, {2});
    ASSERT_TRUE(r.ok) << r.reason;
    parallel::Search search =
        parallel::search_strategies(plugins, chip, parallel::parallel_model(request).take(),
                                    options, *parallel::parse_rank(point.values[0]))
            .take();
    ASSERT_TRUE(search.best.has_value());
    const parallel::Candidate& best = search.tried[*search.best];
    EXPECT_EQ(r.strategy, best.strategy.flat ? "flat" : parallel::to_string(best.strategy))
        << point.values[0];
    chosen.insert(r.strategy);
  }
  EXPECT_EQ(chosen, (std::set<std::string>{"tp=8,pp=1,dp=1", "tp=2,pp=4,dp=1"}));
}

TEST(CheckSweep, ARankWhereNothingSearchesIsRefused) {
  PluginSet plugins(registry());
  SweepSpec s = strategy_sweep("wormhole-t3000", "flat, \"tp=8\"");
  s.base.rank = "throughput";
  Status status = check_sweep(s, plugins);
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.error().message,
            "s.yaml: rank: orders the strategies `parallel: auto` tries, and no point of this "
            "sweep searches (parallel is 'flat'); give parallel: auto (base or axis) or remove "
            "rank");
  auto bad = parse_sweep_text(
      "name: t\nbase: {model: gpt2-xl, target: mesh_tenstorrent, rank: fastest}\n", "s.yaml");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().message,
            "s.yaml:2: 'base.rank': expected latency, throughput or energy, got 'fastest'");
}

TEST(CheckSweep, AParallelValueThatIsNotAStrategyIsRefusedWithItsLine) {
  PluginSet plugins(registry());
  Status status = check_sweep(strategy_sweep("wormhole-t3000", "\"tp=8\", \"tp=0\""), plugins);
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.error().message,
            "s.yaml:4: axes: parallel: value 'tp=0': tp=0: expected a whole number from 1 to 4096");
  status = check_sweep(strategy_sweep("wormhole-t3000", "flat, \"pp=2,tp=4,tp=2\""), plugins);
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.error().message,
            "s.yaml:4: axes: parallel: value 'pp=2,tp=4,tp=2': 'tp' is given twice in "
            "'pp=2,tp=4,tp=2'");
}

// GPT-2 XL decode on one IPU Mk2, where what stays in SRAM matters: Elk-Dyn only, planned only.
SweepSpec residency_sweep(const std::string& values) {
  return parse_sweep_text(
             "name: t\nbase: {model: gpt2-xl, target: ipu_alltoall, chip: ipu-mk2, batch: 1, "
             "seq: 264, designs: [elk-dyn], simulate: false}\naxes:\n  - {path: residency, "
             "values: [" +
                 values + "]}\n",
             "s.yaml")
      .take();
}

TEST(ResidencyAxis, EachPointPlansWithItsModeAndRecordsTheHomes) {
  SweepSpec s = residency_sweep("off, auto, weights");
  PluginSet plugins(registry());
  ASSERT_TRUE(check_sweep(s, plugins).ok());
  auto points = enumerate_points(s);
  driver::OpPlanCache cache;
  Registry reg = registry();
  PointResult off = evaluate_point(s, points[0], reg, cache, {2});
  PointResult automatic = evaluate_point(s, points[1], reg, cache, {2});
  PointResult weights = evaluate_point(s, points[2], reg, cache, {2});
  ASSERT_TRUE(off.ok) << off.reason;
  ASSERT_TRUE(automatic.ok) << automatic.reason;
  EXPECT_EQ(off.residency, "off");
  EXPECT_EQ(off.resident_bytes_per_core, 0);
  EXPECT_EQ(automatic.residency, "auto");
  EXPECT_GT(cache.hits(), 0u) << "residency is chosen after the per-op plans, which it shares";

  // The point is the compile of the same model and chip with --residency auto, number for number.
  auto chip = driver::open_chip(plugins, driver::ChipChoice{"ipu_alltoall", "ipu-mk2"}).take();
  ModelRequest request;
  request.model = "gpt2-xl";
  request.shape.batch = 1;
  request.shape.seq = 264;
  request.shape_given = true;
  driver::CompileOptions options;
  options.designs = {planner::Design::elk_dyn};
  options.simulate = false;
  options.residency = ResidencyMode::automatic;
  driver::Compilation c = driver::compile(chip, driver::load(request).take(), options).take();
  const planner::DesignResult& planned = c.designs.front().plan.result;
  EXPECT_DOUBLE_EQ(automatic.resident_bytes_per_core, planned.residency.bytes_per_core);
  EXPECT_GT(automatic.resident_bytes_per_core, 0);
  ASSERT_EQ(automatic.rows.size(), 1u);
  EXPECT_DOUBLE_EQ(automatic.rows[0].planned.latency_s, planned.latency_s);
  EXPECT_NE(automatic.rows[0].planned.latency_s, off.rows[0].planned.latency_s);

  EXPECT_FALSE(weights.ok);
  EXPECT_EQ(weights.residency, "weights");
  EXPECT_EQ(weights.reason,
            "--residency weights: the homes take 2.0 MiB of each core's 624.0 KiB of SRAM; "
            "--residency auto keeps the ones that fit and pay");
}

// A prefill point on a Wormhole: the host's read of its logits (the chip file's host section),
// flat and under a strategy, is the compile's, and the tables' TTFT columns add it to each row.
TEST(FirstTokenAxis, APrefillPointCarriesTheHostsReadOfItsLogits) {
  SweepSpec s = parse_sweep_text(
                    "name: t\nbase: {model: llama3.1-8b, target: mesh_tenstorrent, chip: "
                    "wormhole-n300, batch: 1, seq: 32, mode: prefill, weight_dtype: bfp8, "
                    "designs: [basic]}\naxes:\n  - {path: parallel, values: [flat, tp=2]}\n",
                    "s.yaml")
                    .take();
  auto points = enumerate_points(s);
  driver::OpPlanCache cache;
  Registry reg = registry();
  const double host_s = 32 * 128256 * 2 / 1.93e9;  // the 32-row tile of bf16 logits
  for (const Point& point : points) {
    PointResult r = evaluate_point(s, point, reg, cache, {2});
    ASSERT_TRUE(r.ok) << r.reason;
    EXPECT_DOUBLE_EQ(r.first_token_host_s, host_s) << r.strategy;
  }
  SweepSpec decode = sweep("  - {path: memory.bandwidth_bytes_per_s, values: [1e12]}\n");
  PointResult r = evaluate_point(decode, enumerate_points(decode)[0], reg, cache, {2});
  ASSERT_TRUE(r.ok) << r.reason;
  EXPECT_EQ(r.first_token_host_s, 0) << "a decode hands back token ids";
}

TEST(CheckSweep, AResidencyValueThatIsNotAModeIsRefusedWithItsLine) {
  PluginSet plugins(registry());
  Status status = check_sweep(residency_sweep("off, weights+kv, all"), plugins);
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.error().message,
            "s.yaml:4: axes: residency: value 'all': expected off, auto, weights or weights+kv");
}

// A chip file that states an approximation (chip_spec.hpp) beside a preset that states none: each
// point records its own chip's, and the tables say it on that chip's rows only.
TEST(ChipAxis, EachPointSaysItsChipsApproximation) {
  testing::TempDir dir;
  const std::string approximation = "cores in blocks of 16, within 2 % of core by core";
  const std::string chip_file =
      "name: approximate-ipu\napproximation: " + approximation +
      "\ntarget: ipu_alltoall\ntopology: {chips: 1, cores_per_chip: 1472, "
      "sram_bytes_per_core: 638976}\n";
  const std::string file = dir.write("approximate.yaml", chip_file).string();
  const std::string sweep_file =
      "name: t\nbase: {model: llama2-7b, target: ipu_alltoall, batch: 1, seq: 16, "
      "designs: [basic], simulate: false}\naxes:\n  - {path: chip, values: [ipu-mk2, " +
      file + "]}\n";
  SweepSpec s = parse_sweep_text(sweep_file, "s.yaml").take();
  auto points = enumerate_points(s);
  driver::OpPlanCache cache;
  Registry reg = registry();
  PointResults results;
  for (const Point& point : points)
    results[point.index] = evaluate_point(s, point, reg, cache, {2});
  ASSERT_TRUE(results[0].ok) << results[0].reason;
  ASSERT_TRUE(results[1].ok) << results[1].reason;
  EXPECT_EQ(results[0].approximation, "");
  EXPECT_EQ(results[1].approximation, approximation);
  const std::string csv = results_csv(s, results);
  EXPECT_NE(csv.find("\n0,ok,,llama2-7b,ipu_alltoall,ipu-mk2,,1,16,decode,,flat,"),
            std::string::npos)
      << csv;
  EXPECT_NE(csv.find("\n1,ok,,llama2-7b,ipu_alltoall,approximate-ipu,\"" + approximation +
                     "\",1,16,decode,,flat,"),
            std::string::npos)
      << csv;
  auto json = nlohmann::json::parse(results_json(s, results));
  EXPECT_EQ(json["rows"][0]["approximation"], nullptr);
  EXPECT_EQ(json["rows"][1]["approximation"], approximation);
}

TEST(ShippedSweeps, EveryFileInConfigsSweepsParsesAndChecks) {
  PluginSet plugins(registry());
  size_t files = 0;
  for (const auto& entry :
       std::filesystem::directory_iterator(std::string(TESSERA_SOURCE_DIR) + "/configs/sweeps")) {
    if (entry.path().extension() != ".yaml") continue;
    ++files;
    auto spec = read_sweep(entry.path().string());
    ASSERT_TRUE(spec.ok()) << spec.error().message;
    Status checked = check_sweep(*spec, plugins);
    EXPECT_TRUE(checked.ok()) << (checked ? "" : checked.error().message);
    // A serve sweep has no plots (tessera plot refuses its run directory).
    EXPECT_EQ(spec->plots.empty(), spec->kind == SweepKind::serve) << entry.path();
    EXPECT_FALSE(enumerate_points(*spec).empty());
  }
  EXPECT_EQ(files, 13u) << "each study at reduced and paper size, the energy sweep, the "
                           "strategies sweep and the cheapest-serving sweep";
}

}  // namespace
}  // namespace tessera::dse
