// The driver's own decisions: --design choices, plan.yaml's source both ways, the per-op plan key
// (what may and may not share plans), the cache hook, and reopen()'s refusal of a changed chip.
#include "framework/driver/driver.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <map>

#include "framework/chip/energy.hpp"
#include "framework/ir/analysis.hpp"
#include "framework/memsim/memsim.hpp"
#include "framework/planner/capacity.hpp"
#include "framework/planner/planner.hpp"
#include "tests/unit/driver/fixtures.hpp"
#include "tests/unit/temp_dir.hpp"

namespace tessera::driver {
namespace {

using planner::Design;

using fixtures::plugins;

OpenChip mk2(const ChipScale& scale = {}) {
  ResolvedChip chip = resolve_chip(plugins(), ChipChoice{"ipu_alltoall", "ipu-mk2-hbm3e"}).take();
  chip.spec.scale = scale;
  return open_chip(plugins(), std::move(chip)).take();
}

LoadedModel llama(int64_t batch) {
  return fixtures::zoo_model("llama2-7b", batch, 16);
}

TEST(DesignChoice, OneDesignComesWithItsYardsticksAllWritesEach) {
  DesignChoice dyn = parse_design_choice("elk-dyn").take();
  EXPECT_EQ(dyn.planned, (std::vector<Design>{Design::basic, Design::elk_dyn, Design::ideal}));
  EXPECT_EQ(dyn.written, Design::elk_dyn);
  EXPECT_FALSE(dyn.write_each);
  DesignChoice ideal = parse_design_choice("ideal").take();
  EXPECT_EQ(ideal.planned, (std::vector<Design>{Design::basic, Design::ideal}));
  EXPECT_EQ(ideal.written, Design::ideal);
  DesignChoice all = parse_design_choice("all").take();
  EXPECT_EQ(all.planned.size(), 5u);
  EXPECT_EQ(all.written, Design::elk_full);
  EXPECT_TRUE(all.write_each);
  Error e = parse_design_choice("elk").error();
  EXPECT_EQ(e.kind, ErrorKind::usage);
  EXPECT_EQ(e.message,
            "--design 'elk': unknown design; valid: basic, static, elk-dyn, elk-full, ideal, "
            "vendor, all");
}

TEST(PlanSource, ZooAndOnnxRequestsRoundTrip) {
  OpenChip chip = mk2();
  LoadedModel model = llama(2);
  planner::PlanSource s = plan_source(model, chip, *model.graph);
  EXPECT_EQ(s.model, "llama2-7b");
  EXPECT_EQ(s.batch, 2);
  EXPECT_EQ(s.seq, 16);
  EXPECT_EQ(s.mode, "");
  EXPECT_EQ(s.target, "ipu_alltoall");
  EXPECT_EQ(s.chip, "ipu-mk2-hbm3e");
  EXPECT_EQ(s.graph_ops, model.graph->ops().size());
  ModelRequest back = model_request(s, "p.yaml").take();
  EXPECT_EQ(back.model, "llama2-7b");
  EXPECT_EQ(back.shape.batch, 2);
  EXPECT_EQ(back.shape.seq, 16);
  EXPECT_FALSE(back.shape.mode.has_value());
  EXPECT_TRUE(back.shape_given);

  planner::PlanSource onnx;
  onnx.model = "m.onnx";
  onnx.onnx_dims = "batch=2,seq=16";
  onnx.skip_unsupported = 1;
  ModelRequest r = model_request(onnx, "p.yaml").take();
  EXPECT_EQ(r.onnx.dims, (std::map<std::string, int64_t>{{"batch", 2}, {"seq", 16}}));
  EXPECT_TRUE(r.onnx.skip_unsupported);
  EXPECT_FALSE(r.shape_given);
  onnx.onnx_dims = "batch=2,seq";
  EXPECT_EQ(model_request(onnx, "p.yaml").error().message,
            "p.yaml: source.onnx_dims: 'seq': expected NAME=VALUE with VALUE in [1, 16777216], "
            "comma separated");
  onnx.onnx_dims = "batch=0";
  EXPECT_FALSE(model_request(onnx, "p.yaml").ok());
}

TEST(ClassKey, SharedAcrossHbmBandwidthAndBatchNotAcrossOtherRatesOrShapes) {
  OpenChip plain = mk2();
  LoadedModel model = llama(1);
  const ir::Graph& graph = *model.graph;
  const int q_proj = 2;
  ASSERT_EQ(graph.ops()[q_proj].name, "layers.0.q_proj");
  std::string key = class_key(plain, graph, q_proj, PlanObjective::latency);
  EXPECT_EQ(class_key(mk2(ChipScale{1e12, 1, 1}), graph, q_proj, PlanObjective::latency), key)
      << "the partitioner never reads the HBM rates";
  EXPECT_NE(class_key(mk2(ChipScale{0, 2, 1}), graph, q_proj, PlanObjective::latency), key)
      << "interconnect rates";
  EXPECT_NE(class_key(mk2(ChipScale{0, 1, 2}), graph, q_proj, PlanObjective::latency), key)
      << "compute speed-up";
  EXPECT_NE(class_key(plain, *llama(2).graph, q_proj, PlanObjective::latency), key)
      << "another batch: other shapes";
  EXPECT_EQ(class_key(plain, graph, q_proj, PlanObjective::latency),
            class_key(plain, graph, q_proj + 19, PlanObjective::latency))
      << "the same op of the next layer";
}

OpenChip mk2_with(const PlanningConventions& conventions) {
  ResolvedChip chip = resolve_chip(plugins(), ChipChoice{"ipu_alltoall", "ipu-mk2-hbm3e"}).take();
  chip.spec.conventions = conventions;
  return open_chip(plugins(), std::move(chip)).take();
}

TEST(ClassKey, PlanningConventionsThatChangePlansAreInTheKey) {
  LoadedModel model = llama(1);
  const int q_proj = 2;
  std::string key = class_key(mk2(), *model.graph, q_proj, PlanObjective::latency);
  PlanningConventions as_written{.orientation = TileOrientation::as_written};
  EXPECT_NE(class_key(mk2_with(as_written), *model.graph, q_proj, PlanObjective::latency), key);
  PlanningConventions per_core{.transfers = TransferPricing::per_core_rates};
  EXPECT_NE(class_key(mk2_with(per_core), *model.graph, q_proj, PlanObjective::latency), key);
  PlanningConventions artifact_combine{.combine = CombineModel::elk_artifact};
  EXPECT_NE(class_key(mk2_with(artifact_combine), *model.graph, q_proj, PlanObjective::latency),
            key);
  PlanningConventions shares{.preload_network_share = {{"basic", {0.5}}}};
  EXPECT_EQ(class_key(mk2_with(shares), *model.graph, q_proj, PlanObjective::latency), key)
      << "preload shares are the scheduler's: per-op plans are shared";
  PlanningConventions scheduling{
      .static_baseline = StaticBaseline::elk_artifact,
      .execution_contention = {{"elk-full", {ExecutionContention::ignored}}}};
  EXPECT_EQ(class_key(mk2_with(scheduling), *model.graph, q_proj, PlanObjective::latency), key)
      << "Static's coding and execution contention are the scheduler's too";
  for (const std::string& name : convention_design_names())
    EXPECT_TRUE(planner::parse_design(name).has_value()) << name;
  EXPECT_EQ(convention_design_names().size(), 5u) << "every design can be given a share";
}

// What each convention does to a plan (chip_spec/conventions.hpp): decode at batch 4 has m = 4 rows
// per projection tile, which T10's fit times ~8x faster transposed.
TEST(Compile, PlanningConventionsChangeWhatTheyNameAndNothingElse) {
  LoadedModel model = llama(4);
  CompileOptions options;
  options.designs = {Design::basic};
  auto basic = [&](const PlanningConventions& c) {
    OpenChip chip = mk2_with(c);
    return compile(chip, model, options).take().designs.front().plan.result;
  };
  auto transposed = [](const planner::DesignResult& r) {
    int count = 0;
    for (const auto& op : r.ops) count += op.exec.label.find("transposed") != std::string::npos;
    return count;
  };
  planner::DesignResult fastest = basic({});
  planner::DesignResult written = basic({.orientation = TileOrientation::as_written});
  planner::DesignResult artifact = basic({.orientation = TileOrientation::elk_artifact});
  EXPECT_GT(transposed(fastest), 0);
  EXPECT_EQ(transposed(written), 0);
  EXPECT_GT(written.latency_s, 1.05 * fastest.latency_s) << "decode tiles as written are slower";
  EXPECT_GT(transposed(artifact), 0) << "the artifact puts the longer of m and n first";

  PlanningConventions per_core{.transfers = TransferPricing::per_core_rates};
  planner::DesignResult rates = basic(per_core);
  for (const auto& op : rates.ops)
    EXPECT_FALSE(op.preload.network_s.has_value()) << op.name << ": not priced on routes";
  per_core.preload_network_share["basic"] = {0.1};
  planner::DesignResult squeezed = basic(per_core);
  EXPECT_GT(squeezed.latency_s, rates.latency_s) << "a tenth of the network for preloads";
  per_core.preload_network_share["basic"] = {0.1, 1.0};
  EXPECT_DOUBLE_EQ(basic(per_core).latency_s, rates.latency_s) << "the best of the shares";

  // The artifact's shuffle: one barrier after an elementwise or unary op, two per rotation shift,
  // and six after any other op plus one per partial gathered.
  planner::DesignResult shuffled = basic({.combine = CombineModel::elk_artifact});
  const double sync_s = mk2().models.machine.sync_s;
  int checked = 0;
  for (const auto& op : shuffled.ops) {
    const ir::Op& graph_op = model.graph->ops()[static_cast<size_t>(op.op)];
    double syncs = op.exec.sync_s / sync_s - 2.0 * (op.exec.rotation_steps - 1);
    if (graph_op.kind == ir::OpKind::elementwise || graph_op.kind == ir::OpKind::unary) {
      EXPECT_DOUBLE_EQ(syncs, 1) << op.name;
    } else {
      EXPECT_GE(syncs, 6 - 1e-9) << op.name;
      ++checked;
    }
  }
  EXPECT_GT(checked, 0);
}

TEST(Compile, TheCacheIsSharedByCompilesAndGivesTheSamePlans) {
  OpenChip chip = mk2();
  LoadedModel model = llama(1);
  OpPlanCache cache;
  CompileOptions options;
  options.designs = {Design::basic, Design::elk_dyn};
  options.op_plans = &cache;
  Compilation first = compile(chip, model, options).take();
  EXPECT_EQ(cache.misses(), first.op_classes);
  OpenChip faster_hbm = mk2(ChipScale{2 * chip.models.machine.hbm_peak_bytes_per_s, 1, 1});
  Compilation second = compile(faster_hbm, model, options).take();
  EXPECT_EQ(cache.misses(), first.op_classes) << "nothing partitioned again";
  EXPECT_EQ(cache.hits(), first.op_classes);
  ASSERT_EQ(first.designs.size(), 2u);
  EXPECT_EQ(first.designs[0].plan.result.design, Design::basic);
  EXPECT_EQ(first.designs[1].plan.result.design, Design::elk_dyn);
  EXPECT_LT(second.designs[1].plan.result.latency_s, first.designs[1].plan.result.latency_s)
      << "same op plans, faster preloads";
  options.op_plans = nullptr;
  EXPECT_EQ(compile(chip, model, options).take().designs[1].plan.result.latency_s,
            first.designs[1].plan.result.latency_s);
}

TEST(Reopen, RefusesAPlanForAnotherShapeOfChip) {
  OpenChip chip = mk2();
  LoadedModel model = llama(1);
  CompileOptions options;
  options.designs = {Design::basic};
  planner::Plan plan = compile(chip, model, options).take().designs.front().plan;
  Reopened again = reopen(plugins(), plan, "p.yaml").take();
  EXPECT_EQ(again.model.graph->ops().size(), model.graph->ops().size());
  EXPECT_EQ(again.chip.models.machine.cores, chip.models.machine.cores);
  plan.machine.sram_bytes_per_core += 1;
  EXPECT_EQ(reopen(plugins(), plan, "p.yaml").error().message,
            "p.yaml: machine.sram_bytes_per_core: the plan has 638977 but chip 'ipu-mk2-hbm3e' has "
            "638976 — re-run tessera compile");
  plan.source.batch = 3;
  EXPECT_EQ(reopen(plugins(), plan, "p.yaml").error().message,
            "p.yaml: source.graph_name: the plan was made for '" + model.graph->name() +
                "' but llama2-7b (batch 3, seq 16) is '" + llama(3).graph->name() +
                "' — re-run tessera compile");
}

TEST(Reopen, TakesEveryDesignCompileWrites) {
  OpenChip chip = mk2();
  LoadedModel model = llama(1);
  CompileOptions options;
  options.designs = parse_design_choice("all").take().planned;
  for (const auto& d : compile(chip, model, options).take().designs)
    EXPECT_TRUE(reopen(plugins(), d.plan, "p.yaml").ok()) << to_string(d.plan.result.design);
}

TEST(Reopen, RefusesNumbersNoCompileWritesForTheModel) {
  OpenChip chip = mk2();
  LoadedModel model = llama(1);
  CompileOptions options;
  options.designs = {Design::basic};
  const planner::Plan plan = compile(chip, model, options).take().designs.front().plan;
  auto error_with = [&](const std::function<void(planner::OpSchedule&)>& edit) {
    planner::Plan edited = plan;
    edit(edited.result.ops[1]);
    auto r = reopen(plugins(), edited, "p.yaml");
    return r.ok() ? std::string("(accepted)") : r.error().message;
  };
  const std::string name = plan.result.ops[1].name;
  EXPECT_EQ(error_with([](auto& op) {
              op.exec.shift_bytes = 1e15;
            }).rfind("p.yaml: ops[1].exec.shift_bytes: 1e+15 is more than ", 0),
            0u);
  EXPECT_EQ(error_with([](auto& op) {
              op.hbm_read_bytes *= 2;
            }).rfind("p.yaml: ops[1].hbm_read_bytes: ", 0),
            0u);
  EXPECT_EQ(error_with([](auto& op) {
              op.flops = 0;
            }).rfind("p.yaml: ops[1].flops: 0, but op '" + name + "' of ", 0),
            0u)
      << "FLOPs are the graph's: fewer would be timed and priced as no work";
  EXPECT_EQ(error_with([](auto& op) { op.exec.cores_used = 1473; }),
            "p.yaml: ops[1].exec.cores_used: 1473 cores, but machine.cores is 1472 — re-run "
            "tessera compile");
  EXPECT_EQ(error_with([](auto& op) { op.sram_bytes_per_core = 1e9; }),
            "p.yaml: ops[1].sram_bytes_per_core: 1e+09 is more than 638976 "
            "(machine.sram_bytes_per_core); no compile writes it — re-run tessera compile");
  EXPECT_EQ(error_with([](auto& op) {
              op.exec.tile.push_back(1);
            }).rfind("p.yaml: ops[1].exec.tile: ", 0),
            0u);
}

TEST(PlanSource, FilesAreRecordedAbsoluteAndOpenedRelativeToThePlan) {
  OpenChip chip = mk2();
  LoadedModel model = llama(1);
  model.request.model = "models/m.onnx";
  model.request.shape_given = false;
  planner::PlanSource s = plan_source(model, chip, *model.graph);
  EXPECT_EQ(s.model, (std::filesystem::current_path() / "models/m.onnx").string());
  EXPECT_EQ(model_request(s, "/elsewhere/p.yaml").take().model, s.model);
  s.model = "../models/m.onnx";
  EXPECT_EQ(model_request(s, "/work/plans/p.yaml").take().model, "/work/models/m.onnx");
  s.chip = "chips/c.yaml";
  EXPECT_EQ(chip_choice(s, "/work/plans/p.yaml").chip, "/work/plans/chips/c.yaml");
  s.chip = "ipu-mk2-hbm3e";
  EXPECT_EQ(chip_choice(s, "/work/plans/p.yaml").chip, "ipu-mk2-hbm3e") << "a preset stays a name";
}

TEST(Reopen, AModelThatCannotBeOpenedNamesSourceModel) {
  planner::Plan plan;
  plan.source.model = "/nonexistent/m.onnx";
  EXPECT_EQ(reopen(plugins(), plan, "p.yaml").error().message,
            "p.yaml: source.model: /nonexistent/m.onnx: cannot open the file (does it exist and is "
            "it readable?)");
}

TEST(OffChip, AModelLargerThanTheMemoryIsRefusedWithWhatWouldFit) {
  OpenChip chip = mk2();
  EXPECT_EQ(chip.models.machine.off_chip_bytes, uint64_t{4} * 24 * (uint64_t{1} << 30))
      << "4 HBM3E 8-high stacks of 24 GiB (configs/memory/hbm3e_8hi.ini)";
  EXPECT_EQ(check_off_chip(fixtures::zoo_model("llama2-70b", 32, 4096), chip).error().message,
            "llama2-70b decode b32 s4096 does not fit the off-chip memory of ipu-mk2-hbm3e: it "
            "needs 168.5 GiB (weights 128.5 GiB, KV cache 40.0 GiB, inputs 128 B) but the chip has "
            "96.0 GiB; what would fit: the memory of 2 such chips (96.0 GiB each); no batch or "
            "sequence length: the weights alone need 128.5 GiB")
      << "no --dtype fp8: the Mk2 computes in fp32 and fp16 only";
  Error kv = check_off_chip(fixtures::zoo_model("llama2-13b", 64, 4096), chip).error();
  EXPECT_EQ(kv.kind, ErrorKind::input);
  EXPECT_TRUE(kv.message.ends_with(
      "what would fit: the memory of 3 such chips (96.0 GiB each); --batch 22; --seq 1469"))
      << kv.message;
  // The largest batch and seq found do fit, one more does not.
  EXPECT_TRUE(check_off_chip(fixtures::zoo_model("llama2-13b", 22, 4096), chip).ok());
  EXPECT_FALSE(check_off_chip(fixtures::zoo_model("llama2-13b", 23, 4096), chip).ok());
  EXPECT_TRUE(check_off_chip(fixtures::zoo_model("llama2-13b", 64, 1469), chip).ok());
  EXPECT_FALSE(check_off_chip(fixtures::zoo_model("llama2-13b", 64, 1470), chip).ok());
  CompileOptions options;
  options.designs = {Design::basic};
  EXPECT_EQ(compile(chip, fixtures::zoo_model("llama2-70b", 32, 4096), options)
                .error()
                .message.substr(0, 40),
            "llama2-70b decode b32 s4096 does not fit");
}

LoadedModel prefill(const std::string& name, int64_t seq) {
  ModelRequest request;
  request.model = name;
  request.shape.seq = seq;
  request.shape.mode = zoo::Mode::prefill;
  request.shape_given = true;
  return load(request).take();
}

// Llama 2 7B prefill at 64K tokens on an IPU-POD4 with HBM3E. Its scores and probabilities,
// 2 x 32 heads x 64K x 64K fp16 per layer, would be 509.5 GiB of activations beyond the SRAM, more
// than the 384 GiB of HBM: it used to be refused. Attention in 256 blocks of 256 queries (2 GiB of
// scores and probabilities per block; the SRAM holds 3.6 GiB) plans: the FLOPs are the model's,
// attention's 4·L·d·S² and the matmuls' 2·S·L·(4d² + 3·d·ffn) within 1 % (the rest: softmax,
// norms, rotary, residuals), every plan within a core's SRAM and no tensor larger than the SRAM.
TEST(Compile, LongPrefillComputesAttentionInTiles) {
  OpenChip chip = open_chip(plugins(), ChipChoice{"ipu_alltoall", "ipu-pod4-hbm3e"}).take();
  const Machine& m = chip.models.machine;
  const int64_t S = 65536, L = 32, d = 4096, ffn = 11008;
  LoadedModel model = prefill("llama2-7b", S);
  EXPECT_FALSE(planner::fits_off_chip(planner::off_chip_footprint(*model.graph, m), m));
  TiledGraph tiled = tile_attention(model.graph, m).take();
  ASSERT_EQ(tiled.tiles.size(), 32u);
  EXPECT_EQ(tiled.tiles[0], (planner::OpSplit{"layers.0.scores", "s", 256, "layers.0.attn_v"}));
  EXPECT_TRUE(off_chip_report(model, chip)
                  .text()
                  .ends_with("activations beyond SRAM 1.0 GiB) with attention computed in tiles of "
                             "384.0 GiB: fits"))
      << off_chip_report(model, chip).text();
  CompileOptions options;
  options.designs = {Design::elk_full};
  Compilation c = compile(chip, model, options).take();
  EXPECT_EQ(c.tiles, tiled.tiles);
  double flops = ir::totals(*c.graph).flops;
  EXPECT_NEAR(flops / ir::totals(*model.graph).flops, 1.0, 1e-12);
  double analytic = 4.0 * L * d * S * S + 2.0 * S * L * (4.0 * d * d + 3.0 * d * ffn);
  EXPECT_NEAR(flops / analytic, 1.0, 0.01) << flops << " vs " << analytic;
  double sram = static_cast<double>(m.cores) * static_cast<double>(m.sram_bytes_per_core);
  for (const auto& t : c.graph->tensors())
    if (t.role == ir::TensorRole::activation) {
      EXPECT_LE(t.bytes(), sram) << t.name;
    }
  const planner::DesignResult& r = c.designs.front().plan.result;
  for (const auto& op : r.ops)
    EXPECT_LE(op.exec.exec_bytes_per_core, static_cast<double>(m.sram_bytes_per_core)) << op.name;
  EXPECT_GT(r.latency_s, 0);
}

// Attention in tiles does not make every length fit: at 160K tokens on one Mk2 the KV cache
// alone takes 80 GiB of its 96 GiB, and the activations beyond the SRAM, tiled, are 10.5 GiB more.
// What would fit is searched without tiling (a rebuild per candidate would tile each).
TEST(Compile, ALongPrefillTooLargeEvenInTilesIsRefusedWithItsFootprint) {
  OpenChip chip = mk2();
  EXPECT_EQ(check_off_chip(prefill("llama2-7b", 163840), chip).error().message,
            "llama2-7b prefill b1 s163840 does not fit the off-chip memory of ipu-mk2-hbm3e: it "
            "needs 103.0 GiB (weights 12.6 GiB, KV cache 80.0 GiB, inputs 640.0 KiB, activations "
            "beyond SRAM 10.5 GiB) with attention computed in tiles but the chip has 96.0 GiB; "
            "what would fit: the memory of 2 such chips (96.0 GiB each); --seq 24567");
}

TEST(Compile, OpsLargerThanTheChipAreSplitAndThePlanReopensWithItsSplits) {
  // One IPU-like chip whose 16 KiB of SRAM per core hold no unsplit weight matmul of Llama 2 7B.
  testing::TempDir dir;
  std::string file = dir.write("small.yaml", R"(name: small-sram
target: ipu_alltoall
topology: {chips: 1, cores_per_chip: 1472, sram_bytes_per_core: 16384}
memory_model: {plugin: hbm_dramsim, config: hbm3e_8hi.ini, stacks: 4}
)")
                         .string();
  OpenChip chip = open_chip(plugins(), ChipChoice{"ipu_alltoall", file}).take();
  LoadedModel model = llama(1);
  CompileOptions options;
  options.designs = {Design::elk_full};
  options.simulate = true;
  Compilation c = compile(chip, model, options).take();
  ASSERT_FALSE(c.splits.empty());
  EXPECT_GT(c.graph->ops().size(), model.graph->ops().size());
  for (const auto& d : c.splits) {
    EXPECT_GE(d.split.slices, 2);
    EXPECT_GT(d.unsplit_bytes_per_core, 16384.0) << d.split.op << " did not fit unsplit";
    EXPECT_GT(d.estimated_s, 0.0);
  }
  const planner::Plan& plan = c.designs.front().plan;
  EXPECT_EQ(plan.result.ops.size(), c.graph->ops().size());
  for (const auto& op : plan.result.ops)
    EXPECT_LE(op.sram_bytes_per_core, 16384.0) << op.name << " overflows SRAM";
  ASSERT_TRUE(c.designs.front().simulated.has_value());
  EXPECT_GT(c.designs.front().simulated->result.latency_s, 0.0);
  EXPECT_GE(plan.splits.size(), 32u) << "every op of a split class is split alike";
  EXPECT_EQ(plan.splits.front().op, "layers.0.q_proj");
  // reopen() applies the plan's splits to the model it loads, so the ops match again.
  Reopened again = reopen(plugins(), plan, "p.yaml").take();
  EXPECT_EQ(again.graph->ops().size(), c.graph->ops().size());
  planner::Plan unsplit = plan;
  unsplit.splits.clear();
  EXPECT_EQ(reopen(plugins(), unsplit, "p.yaml").error().message.substr(0, 36),
            "p.yaml: source.graph_ops: the plan h");
}

TEST(OpPlanCache, ConcurrentPointsComputeAKeyOnce) {
  OpPlanCache cache;
  std::atomic<int> computed{0};
  auto compute = [&]() -> Result<OpPlanCache::Value> {
    ++computed;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    planner::ClassOutcome outcome;
    outcome.plans.exec.resize(3);
    return outcome;
  };
  std::vector<std::thread> threads;
  for (int i = 0; i < 4; ++i)
    threads.emplace_back([&] { EXPECT_EQ(cache.get("k", compute).take()->plans.exec.size(), 3u); });
  for (auto& t : threads) t.join();
  EXPECT_EQ(computed.load(), 1);
  EXPECT_EQ(cache.hits() + cache.misses(), 4u);
  auto failing = [&]() -> Result<OpPlanCache::Value> { return input_error("no plan fits"); };
  EXPECT_EQ(cache.get("bad", failing).error().message, "no plan fits");
  EXPECT_EQ(cache.get("bad", failing).error().message, "no plan fits") << "failures not cached";
}

}  // namespace
}  // namespace tessera::driver

namespace tessera::driver {
namespace {

// The simulator's energy of a compiled design (ipu-mk2-hbm3e: the chip file's rates, HBM from
// the hbm_dramsim model): each part is what moved and ran times its rate.
TEST(Energy, ASimulatedDesignIsChargedForWhatMovedAndRan) {
  OpenChip chip = mk2();
  ASSERT_TRUE(chip.models.energy.has_value());
  const EnergyRates& rates = *chip.models.energy;
  EXPECT_EQ(rates.off_chip_source, "the memory model (hbm_dramsim) on a streaming read");
  // The rate is what `tessera memsim --gen stream` measures on the chip's memory: every stack at
  // its full rate, whatever their number (a fixed offer rate once left 4 stacks at a quarter).
  memsim::MemsimOptions stream;
  stream.config = "hbm3e_8hi.ini";
  stream.stacks = 4;
  stream.generator = "stream";
  stream.cycles = 100000;
  tessera_memory_stats t = memsim::run_memsim(plugins(), stream).total();
  double stream_j_per_byte = t.energy_j / (static_cast<double>(t.reads + t.writes) * 32);
  EXPECT_NEAR(rates.off_chip_j_per_byte, stream_j_per_byte, 0.02 * stream_j_per_byte);
  CompileOptions options;
  options.designs = {Design::elk_full};
  options.simulate = true;
  Compilation c = compile(chip, llama(1), options).take();
  const SimulatedDesign& s = *c.designs.at(0).simulated;
  ASSERT_TRUE(s.energy.has_value());
  const EnergyBreakdown& e = *s.energy;
  const sim::SimResult& r = s.result;
  auto by_class = [&](sim::LinkClass k) { return r.link_bytes_by_class[static_cast<size_t>(k)]; };
  EXPECT_DOUBLE_EQ(e.static_j, rates.static_w * s.summary.latency_s);
  double written = 0;
  for (const auto& op : s.program.ops) written += op.hbm_write_bytes;
  EXPECT_GT(written, 0) << "a decode step writes one KV slot per layer";
  EXPECT_DOUBLE_EQ(e.off_chip_j, (r.hbm_read_bytes + written) * rates.off_chip_j_per_byte);
  EXPECT_GT(by_class(sim::LinkClass::hbm), r.hbm_read_bytes)
      << "replicated preload bytes cross the HBM links once per copy, the DRAM reads them once";
  EXPECT_DOUBLE_EQ(e.compute_j, r.flops * rates.j_per_flop.at("fp16"));
  EXPECT_DOUBLE_EQ(e.chip_to_chip_j, 0) << "one chip";
  EXPECT_GT(e.network_j, 0);
  EXPECT_GT(e.sram_j, 0);
  EXPECT_NEAR(e.total_j(),
              e.compute_j + e.sram_j + e.network_j + e.chip_to_chip_j + e.off_chip_j + e.static_j,
              1e-12 * e.total_j());
}

}  // namespace
}  // namespace tessera::driver

namespace tessera::driver {
namespace {

// ipu-mk2-hbm3e with no static power and a network 250x dearer: where the schedules Elk compares
// trade latency against network traffic (Static's splits, Elk-Dyn's and Elk-Full's fallbacks).
OpenChip mk2_noisy_network() {
  ResolvedChip chip = resolve_chip(plugins(), ChipChoice{"ipu_alltoall", "ipu-mk2-hbm3e"}).take();
  chip.spec.energy->static_w = 0;
  chip.spec.energy->noc_pj_per_byte_hop = 200;
  return open_chip(plugins(), std::move(chip)).take();
}

std::vector<planner::DesignResult> planned(OpenChip& chip, PlanObjective objective) {
  ModelRequest request;
  request.model = "llama2-7b";
  request.shape.batch = 16;
  request.shape.seq = 2048;
  request.shape_given = true;
  CompileOptions options;
  options.designs = {Design::static_split, Design::elk_dyn, Design::elk_full};
  options.objective = objective;
  std::vector<planner::DesignResult> out;
  for (auto& d : compile(chip, load(request).take(), options).take().designs)
    out.push_back(d.plan.result);
  return out;
}

TEST(Objective, EnergyAndEdpPlansAreNoWorseThanTheLatencyPlanAtWhatTheyMinimise) {
  OpenChip chip = mk2_noisy_network();
  auto fast = planned(chip, PlanObjective::latency);
  auto frugal = planned(chip, PlanObjective::energy);
  auto balanced = planned(chip, PlanObjective::edp);
  bool energy_moved = false, edp_moved = false;
  for (size_t d = 0; d < fast.size(); ++d) {
    double fast_j = fast[d].energy->total_j(), frugal_j = frugal[d].energy->total_j();
    EXPECT_LE(frugal_j, fast_j) << to_string(fast[d].design);
    EXPECT_GE(frugal[d].latency_s, fast[d].latency_s) << "latency is what the default minimises";
    double fast_edp = fast_j * fast[d].latency_s;
    double balanced_edp = balanced[d].energy->total_j() * balanced[d].latency_s;
    EXPECT_LE(balanced_edp, fast_edp) << to_string(fast[d].design);
    energy_moved = energy_moved || frugal_j < fast_j;
    edp_moved = edp_moved || balanced_edp < fast_edp;
  }
  EXPECT_TRUE(energy_moved) << "on this chip some design trades latency for energy";
  EXPECT_TRUE(edp_moved) << "and some design a better energy x latency";
}

TEST(Objective, AnEnergyObjectiveNeedsTheChipsEnergyRates) {
  ResolvedChip resolved =
      resolve_chip(plugins(), ChipChoice{"ipu_alltoall", "ipu-mk2-hbm3e"}).take();
  resolved.spec.energy.reset();
  OpenChip chip = open_chip(plugins(), std::move(resolved)).take();
  CompileOptions options;
  options.designs = {Design::elk_full};
  options.objective = PlanObjective::edp;
  auto compiled = compile(chip, llama(1), options);
  ASSERT_FALSE(compiled.ok());
  EXPECT_EQ(compiled.error().message,
            "--objective edp: chip 'ipu-mk2-hbm3e' states no energy rates; add an energy section "
            "to its chip file (docs/energy.md) or plan for latency");
  options.objective = PlanObjective::latency;
  auto plain = compile(chip, llama(1), options).take();
  EXPECT_FALSE(plain.designs[0].plan.result.energy.has_value()) << "no rates, no energy";
  EXPECT_EQ(parse_plan_objective("power").error().message,
            "--objective 'power': expected latency, energy or edp");
}

}  // namespace
}  // namespace tessera::driver

namespace tessera::driver {
namespace {

// open_chip measures the energy section's memory model on a thread of its own while fill_hbm
// measures the chip's: the rate is the very double a fresh model measures alone, and the chip's
// sustained HBM rate the one its own model reports (ipu-mk2-hbm3e, one chip).
TEST(Energy, TheMemoryModelMeasuredBesideTheChipsGivesTheRateItGivesAlone) {
  OpenChip chip = mk2();
  ASSERT_TRUE(chip.models.energy.has_value());
  auto library = plugins().library(chip.spec.plugin_for(Interface::memory_model)).take();
  MemoryModel fresh =
      create_memory_model(library, chip.spec.params_for(Interface::memory_model)).take();
  std::optional<double> alone = streaming_read_j_per_byte(fresh).take();
  ASSERT_TRUE(alone.has_value());
  EXPECT_EQ(chip.models.energy->off_chip_j_per_byte, *alone);
  MemoryModel other =
      create_memory_model(library, chip.spec.params_for(Interface::memory_model)).take();
  auto sustained = other.sustained(1).take();
  EXPECT_EQ(chip.models.machine.hbm_latency_s, sustained.latency_s);
}

// The presets' energy rates against the power their cards are sold at (Tenstorrent's Wormhole
// specifications: n150 160 W for one chip, n300 300 W for two; t3000 and Galaxy are n300-class
// chips): a compute-bound step at the chip's peak FP16 rate, plus static power, fits the card.
TEST(Energy, PresetsStayWithinTheirPublishedBoardPower) {
  struct Card {
    const char* chip;
    double watts_per_chip;
  };
  for (Card card : {Card{"wormhole-n150", 160}, Card{"wormhole-n300", 150},
                    Card{"wormhole-t3000", 150}, Card{"wormhole-galaxy", 150}}) {
    OpenChip chip = open_chip(plugins(), ChipChoice{"mesh_tenstorrent", card.chip}).take();
    const EnergyRates& rates = *chip.models.energy;
    const Machine& m = chip.models.machine;
    double peak_w = m.peak_flops_per_s * rates.j_per_flop.at("fp16") + rates.static_w;
    EXPECT_LE(peak_w, card.watts_per_chip * m.chips) << card.chip;
    EXPECT_GT(peak_w, 0.5 * card.watts_per_chip * m.chips) << card.chip << ": not far below it";
  }
}

}  // namespace
}  // namespace tessera::driver
