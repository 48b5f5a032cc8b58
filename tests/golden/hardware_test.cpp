// Measured hardware: Tessera's Elk-Full prediction against vendors' published per-model
// measurements, as data: Tenstorrent's (tt-metal's READMEs and model docs) and Graphcore's
// (PopTransformer's benchmark tables). Each row holds the published figure with the file and commit
// it was read from, the figure Tessera's simulator gives today for the same model, chip, batch and
// sequence (held within its tolerance, so a change to the planner, simulator or a preset that moves
// it fails here), and in a comment the error against the hardware and its cause. Rows within 25 %
// of the hardware are marked `matched` and must stay so; the others are not faked into agreement (a
// change that moves one by more than its tolerance fails here, so its error and cause are
// restated): docs/validation.md ("Measured hardware: Tenstorrent", "... Graphcore") says what the
// chip does there that the model misses, and ("... MN-Core 2") why MN-Core 2 has no rows. Where
// the vendor publishes a per-op device profile of a row's step (Llama 3.1 70B on Galaxy), the
// row's plan is held op class by op class beside it (HardwarePerOp).
//
// Tessera's side is what `tessera compile MODEL --batch B --seq S [--weight-dtype bfp8] --target T
// --chip C -o DIR` and `tessera simulate DIR/plan.yaml` give: decode is one token per user per
// step, so tokens/s/user = 1000 / simulated ms per step and ms/token is the simulated step; prefill
// (time to first token) is one step over S prompt tokens, in ms.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <iterator>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "framework/driver/driver.hpp"
#include "framework/parallel/parallel.hpp"

namespace tessera {
namespace {

// tt-metal files the figures come from (github.com/tenstorrent/tt-metal, FILE at COMMIT).
constexpr const char* kModelsReadme =
    "models/README.md@020681562ac12f6680bafbc83fafea98e7a3b4d4 (LLMs table, last update Nov 3 "
    "2025; KV cache filled with 128 rows)";
constexpr const char* kPerfAccuracy =
    "models/tt_transformers/PERF.md@040a27c125587553626a7e57baa42571c8af91fa (Accuracy table: "
    "ci-token-matching, one user, tracing off; bfp8 MLP, bfp8 attention for Llama 3; its TTFT "
    "figures are of a 128-token prompt, docs/validation.md cause H)";
constexpr const char* kOldReadme =
    "README.md@00065bece9c0db4513847a0c237be84ed037b1ee (T3000 table, 129th token, device "
    "throughput)";

// Graphcore's files (github.com/graphcore/PopTransformer, FILE at COMMIT).
constexpr const char* kPopTransformerGpt2 =
    "examples/gpt2/benchmark.md@b5a7569de7f20f5ac263fad4147ce1c94720c5d8 (GPT2-XL sharded over 8 "
    "Mk2 IPUs, fp16, max length 264, greedy; conf/sharding.yaml: layers per IPU 0,6,7,...,7, no "
    "pipelining)";

// PopTransformer's conf/sharding.yaml `layer_per_ipu: [0, 6, 7, 7, 7, 7, 7, 7]` as --parallel takes
// it.
constexpr const char* kPopTransformerStages = "stages=0:6:7:7:7:7:7:7";

// The plugin a vendor's chips compile for and the weight dtype its measured runs store.
struct Target {
  const char* plugin;
  std::optional<ir::DType> weight_dtype;  // empty: the model's own (fp16)
};
const Target kWormhole{"mesh_tenstorrent", ir::DType::bfp8};  // tt-metal's bfp8 weights
const Target kIpu{"ipu_alltoall", std::nullopt};              // PopTransformer's fp16

enum class Metric { tokens_per_s_per_user, ms_per_token, ttft_ms };

// How the vendor's stack ran the measurement, as Tessera's options (docs/validation.md,
// "Measured hardware", says where each comes from).
struct Run {
  planner::Design design = planner::Design::elk_full;
  DispatchMode dispatch = DispatchMode::none;
  const char* precision = nullptr;  // a configs/precision/ file; nullptr: --weight-dtype alone
  // A --parallel strategy over the whole machine (nullptr: the model on the chip as one, the flat
  // default); its figure is the composed step (parallel/compose.hpp).
  const char* parallel = nullptr;
};

// tt_transformers' accuracy runs (PERF.md's table: ci-token-matching, tracing off, so the host
// prepares every op, ahead of the device: ttnn enqueues an op without waiting for the one before):
// tt-metal's own execution (the vendor design), under its accuracy precision (70B keeps bfp4 MLPs
// there: its tt-perf tensors), tensor parallel over the machine.
constexpr Run accuracy_run(const char* precision, const char* parallel = nullptr) {
  return {planner::Design::vendor, DispatchMode::host_async, precision, parallel};
}
// The models README's figures (performance mode, Metal Trace replaying each decode step).
constexpr Run traced_run(const char* precision, const char* parallel = nullptr) {
  return {planner::Design::vendor, DispatchMode::traced, precision, parallel};
}
constexpr const char* kAccuracy = "tt-accuracy.yaml";
constexpr const char* kPerf = "tt-perf.yaml";

struct Row {
  std::string name, model;
  Target target;
  std::string chip;
  Metric metric;
  int64_t batch, seq;
  double published;  // t/s/u, or ms per decode step, or TTFT in ms
  const char* source;
  double tessera;    // what Tessera's simulator gives today, same unit
  double tolerance;  // on `tessera`
  bool matched;      // within 25 % of the published figure
  Run run = {};
};

// Errors (Tessera / published - 1) and their causes in each comment; docs/validation.md explains.
const std::vector<Row> kTenstorrent = {
    // clang-format off
    // -5.7 %: the weight stream at 288 GB/s and every op's 19 us on the device (the fixed part;
    // derived from this row and the next, so only the other rows test it)
    {"llama3_1_8b_n150_b1", "llama3.1-8b", kWormhole, "wormhole-n150", Metric::tokens_per_s_per_user, 1, 1024, 25.2, kPerfAccuracy, 23.76, 0.05, true, accuracy_run(kAccuracy)},
    // -7.3 %: as above, each chip streaming half of every layer; two all-reduces per layer
    {"llama3_1_8b_n300_b1", "llama3.1-8b", kWormhole, "wormhole-n300", Metric::tokens_per_s_per_user, 1, 1024, 38.8, kPerfAccuracy, 35.95, 0.05, true, accuracy_run(kAccuracy, "tp=2")},
    // -5.4 %: the fixed part, now the larger share, does not shrink with chips, as tt-metal's fit
    {"llama3_1_8b_t3000_b1", "llama3.1-8b", kWormhole, "wormhole-t3000", Metric::tokens_per_s_per_user, 1, 1024, 60.8, kPerfAccuracy, 57.54, 0.05, true, accuracy_run(kAccuracy, "tp=8")},
    // +115 %: tt_transformers on TG is slower than on T3000 (29.5 vs 60.8 t/s/u): software, not
    // hardware (cause C)
    {"llama3_1_8b_galaxy_b1", "llama3.1-8b", kWormhole, "wormhole-galaxy", Metric::tokens_per_s_per_user, 1, 1024, 29.5, kPerfAccuracy, 63.4, 0.05, false, accuracy_run(kAccuracy, "tp=32")},
    // +2.5 %: bfp4 MLP weights (70B keeps them in the accuracy mode), 80 layers' fixed part
    {"llama3_1_70b_t3000_b1", "llama3.1-70b", kWormhole, "wormhole-t3000", Metric::tokens_per_s_per_user, 1, 1024, 16.5, kPerfAccuracy, 16.92, 0.05, true, accuracy_run(kPerf, "tp=8")},
    // +81 %: as Llama 3.1 8B on TG (cause C)
    {"llama3_1_70b_galaxy_b1", "llama3.1-70b", kWormhole, "wormhole-galaxy", Metric::tokens_per_s_per_user, 1, 1024, 12.7, kPerfAccuracy, 22.98, 0.05, false, accuracy_run(kPerf, "tp=32")},
    // -0.1 %: with the performance weights (bfp4 MLP), which PERF.md's identical Mistral figures
    // in both tables suggest (cause E)
    {"mistral_7b_n150_b1", "mistral-7b", kWormhole, "wormhole-n150", Metric::tokens_per_s_per_user, 1, 1024, 29.75, kPerfAccuracy, 29.73, 0.05, true, accuracy_run(kPerf)},
    // -9.5 %: as above
    {"mistral_7b_n300_b1", "mistral-7b", kWormhole, "wormhole-n300", Metric::tokens_per_s_per_user, 1, 1024, 47.01, kPerfAccuracy, 42.56, 0.05, true, accuracy_run(kPerf, "tp=2")},
    // -9.8 %: as above
    {"mistral_7b_t3000_b1", "mistral-7b", kWormhole, "wormhole-t3000", Metric::tokens_per_s_per_user, 1, 1024, 67.82, kPerfAccuracy, 61.18, 0.05, true, accuracy_run(kPerf, "tp=8")},
    // +8.1 %: traced, bfp4 MLP: the weight stream and each op's 19 us on the device, which a trace
    // does not remove (cause K); batch 32's per-user work is ~2.5 ms short
    {"llama3_1_8b_n150_b32", "llama3.1-8b", kWormhole, "wormhole-n150", Metric::tokens_per_s_per_user, 32, 128, 26.0, kModelsReadme, 28.11, 0.05, true, traced_run(kPerf)},
    // +3.0 %: as the row above
    {"mistral_7b_n150_b32", "mistral-7b", kWormhole, "wormhole-n150", Metric::tokens_per_s_per_user, 32, 128, 28.7, kModelsReadme, 29.55, 0.05, true, traced_run(kPerf)},
    // +2.1 %: QuietBox (8 Wormholes, TP=8), traced at batch 32: cause K
    {"llama3_1_70b_t3000_b32", "llama3.1-70b", kWormhole, "wormhole-t3000", Metric::tokens_per_s_per_user, 32, 128, 15.9, kModelsReadme, 16.24, 0.05, true, traced_run(kPerf, "tp=8")},
    // -71 %: llama3_70b_galaxy's own code (DRAM prefetcher, fused ops, its ops 0.73 us apart)
    // against the generic execution's 1,523 ops per chip at 19 us each (28.9 ms) and collectives
    // over 32 chips (cause F)
    {"llama3_1_70b_galaxy_b32", "llama3.1-70b", kWormhole, "wormhole-galaxy", Metric::tokens_per_s_per_user, 32, 128, 72.5, kModelsReadme, 21.01, 0.05, false, traced_run(kPerf, "tp=32")},
    // +3.1 %: device throughput of an early release (its weights' precision not stated: bfp8 here);
    // causes G and K
    {"llama2_70b_t3000_b32", "llama2-70b", kWormhole, "wormhole-t3000", Metric::tokens_per_s_per_user, 32, 128, 13.9, kOldReadme, 14.33, 0.05, true, traced_run(nullptr, "tp=8")},
    // +7.1 %: the prefill's weights read at the stack's prefill rate, 65.6 GB/s, derived from
    // tt-metal's per-op profile of another model's prefill, and the host's read of the logits'
    // 32-row tile, 4.25 ms (cause H)
    {"llama3_1_8b_n150_ttft_s128", "llama3.1-8b", kWormhole, "wormhole-n150", Metric::ttft_ms, 1, 128, 104, kModelsReadme, 111.4, 0.05, true, accuracy_run(kPerf)},
    // +2.0 %: as the row above, in the accuracy configuration (a 128-token prompt: cause H)
    {"llama3_1_8b_n150_ttft_s128_accuracy", "llama3.1-8b", kWormhole, "wormhole-n150", Metric::ttft_ms, 1, 128, 138, kPerfAccuracy, 140.8, 0.05, true, accuracy_run(kAccuracy)},
    // +2.7 %: as Llama 3.1 8B (its 32,000-token vocabulary: 1.06 ms on the host)
    {"mistral_7b_n150_ttft_s128", "mistral-7b", kWormhole, "wormhole-n150", Metric::ttft_ms, 1, 128, 99, kModelsReadme, 101.6, 0.05, true, accuracy_run(kPerf)},
    // +52 %: llama3_70b_galaxy's own code (a traced prefill, fused collectives along one axis of the
    // mesh) against the generic execution's 1,523 ops per chip at 19 us (29 ms) and 16.6 ms of
    // collectives over 32 chips, and the host's read of the logits (causes F, H)
    {"llama3_1_70b_galaxy_ttft_s128", "llama3.1-70b", kWormhole, "wormhole-galaxy", Metric::ttft_ms, 1, 128, 53, kModelsReadme, 80.62, 0.05, false, accuracy_run(kPerf, "tp=32")},
    // clang-format on
};

// GPT2-XL on 8 Mk2 IPUs, layer-sharded without pipelining and its decode loop on the device: one
// IPU works at a time, so the first rows run it on one ipu-mk2 (1472 tiles; weights preloaded from
// the preset's HBM, where the hardware keeps weights and KV cache in the 8 IPUs' SRAM). The
// published figure is ms per decode step (positive error: Tessera slower than the hardware).
const std::vector<Row> kGraphcore = {
    // clang-format off
    // +38.5 %: Tessera's step is its ops' execution (preloads hidden; the same 1.69 ms with HBM at
    // the SRAM's 31 TB/s): the matmuls' compute under T10's fit (0.57 ms) and the plans' barriers
    // (0.47 ms) alone come near the hardware's 1.19 ms for everything (HardwareParts)
    {"gpt2_xl_mk2_b1", "gpt2-xl", kIpu, "ipu-mk2", Metric::ms_per_token, 1, 264, 1.190, kPopTransformerGpt2, 1.648, 0.05, false},
    // -18.1 %: a crossing, not agreement: the excess of b1 and the per-user deficit below
    {"gpt2_xl_mk2_b8", "gpt2-xl", kIpu, "ipu-mk2", Metric::ms_per_token, 8, 264, 2.548, kPopTransformerGpt2, 2.088, 0.05, true},
    // -38.2 %: the hardware's step grows 0.16 ms per user (13x that user's FLOPs at the 250 TFLOPS
    // peak), Tessera's 0.058 ms: PopTransformer's per-user work (its cache copies) is not priced
    {"gpt2_xl_mk2_b16", "gpt2-xl", kIpu, "ipu-mk2", Metric::ms_per_token, 16, 264, 3.957, kPopTransformerGpt2, 2.446, 0.05, false},
    // -39.7 %: as the row above
    {"gpt2_xl_mk2_b24", "gpt2-xl", kIpu, "ipu-mk2", Metric::ms_per_token, 24, 264, 4.940, kPopTransformerGpt2, 2.981, 0.05, false},
    // The machine as sold and run as PopTransformer runs it: two IPU-M2000s (no HBM), the layer
    // map as a pipeline, every stage's weights and cache resident (the preset's residency: auto
    // keeps all of them). The errors barely move from the rows above: the weight stream never
    // decided them (causes I and J in docs/validation.md; HardwareParts holds this run's parts).
    // +36.4 %: cause I
    {"gpt2_xl_m2000x2_b1", "gpt2-xl", kIpu, "ipu-m2000x2", Metric::ms_per_token, 1, 264, 1.190, kPopTransformerGpt2, 1.623, 0.05, false, {.parallel = kPopTransformerStages}},
    // -21.8 %: the crossing of I and J, as on one ipu-mk2
    {"gpt2_xl_m2000x2_b8", "gpt2-xl", kIpu, "ipu-m2000x2", Metric::ms_per_token, 8, 264, 2.548, kPopTransformerGpt2, 1.991, 0.05, true, {.parallel = kPopTransformerStages}},
    // -41.6 %: cause J
    {"gpt2_xl_m2000x2_b16", "gpt2-xl", kIpu, "ipu-m2000x2", Metric::ms_per_token, 16, 264, 3.957, kPopTransformerGpt2, 2.310, 0.05, false, {.parallel = kPopTransformerStages}},
    // -35.3 %: cause J
    {"gpt2_xl_m2000x2_b24", "gpt2-xl", kIpu, "ipu-m2000x2", Metric::ms_per_token, 24, 264, 4.940, kPopTransformerGpt2, 3.194, 0.05, false, {.parallel = kPopTransformerStages}},
    // clang-format on
};

void PrintTo(const Row& r, std::ostream* os) {
  *os << r.name;
}

ModelRequest request_of(const Row& r) {
  ModelRequest request;
  request.model = r.model;
  request.shape.batch = r.batch;
  request.shape.seq = r.seq;
  request.shape.mode = r.metric == Metric::ttft_ms ? zoo::Mode::prefill : zoo::Mode::decode;
  request.shape.weight_dtype = r.target.weight_dtype;
  if (r.run.precision != nullptr)
    request.shape.precision =
        zoo::parse_precision_file(std::string(TESSERA_PRECISION_DIR "/") + r.run.precision).take();
  request.shape_given = true;
  return request;
}

driver::CompileOptions options_of(const Row& r) {
  driver::CompileOptions options;
  options.designs = {r.run.design};
  options.dispatch = r.run.dispatch;
  options.simulate = true;
  return options;
}

PluginSet& plugins() {
  static PluginSet set(Registry::discover(plugin_search_dirs({})));
  return set;
}

driver::OpenChip open_chip(const Row& r) {
  return driver::open_chip(plugins(), driver::ChipChoice{r.target.plugin, r.chip}).take();
}

// A row run with --parallel: its strategy over the machine, every stage planned and simulated.
parallel::ParallelCompilation compile_strategy(const Row& r) {
  driver::OpenChip chip = open_chip(r);
  return parallel::compile_parallel(plugins(), chip, parallel::parallel_model(request_of(r)).take(),
                                    parallel::parse_strategy(r.run.parallel).take(), options_of(r))
      .take();
}

double measure(const Row& r) {
  double ms = 0;
  std::optional<driver::FirstTokenRead> first_token;
  if (r.run.parallel != nullptr) {
    parallel::ParallelCompilation compiled = compile_strategy(r);
    auto step = std::ranges::find(compiled.designs, r.run.design, &parallel::DesignStep::design);
    ms = step->simulated_s.value() * 1e3;
    first_token = compiled.first_token;
  } else {
    driver::OpenChip chip = open_chip(r);
    driver::Compilation compiled =
        driver::compile(chip, driver::load(request_of(r)).take(), options_of(r)).take();
    auto design = std::ranges::find_if(compiled.designs, [&](const driver::CompiledDesign& d) {
      return d.plan.result.design == r.run.design;
    });
    ms = design->simulated->result.latency_s * 1e3;
    first_token = compiled.first_token;
  }
  // A time to first token is the step and the host's read of the logits (the chip's host section).
  if (r.metric == Metric::ttft_ms) return ms + first_token.value().seconds() * 1e3;
  return r.metric == Metric::tokens_per_s_per_user ? 1000.0 / ms : ms;
}

class Hardware : public testing::TestWithParam<Row> {};

TEST_P(Hardware, SimulatedFigureHoldsAndItsErrorAgainstTheChipIsTheOneStated) {
  const Row& r = GetParam();
  double now = measure(r);
  double error = now / r.published - 1.0;
  RecordProperty("tessera", fmt::format("{:.4g}", now));
  RecordProperty("error_vs_hardware", fmt::format("{:+.1f} %", 100 * error));
  std::cout << fmt::format("{}: tessera {:.4g}, published {:.4g}, error {:+.1f} %\n", r.name, now,
                           r.published, 100 * error);
  EXPECT_NEAR(now, r.tessera, r.tolerance * r.tessera)
      << "Tessera's figure moved; update the row, its error and docs/validation.md";
  if (r.matched) {
    EXPECT_LE(std::abs(error), 0.25) << "no longer within 25 % of " << r.source;
  }
}

// The headline README.md gives for a vendor's rows: how many are within 25 % of the hardware, and
// the median and worst |error| of the figures the rows hold.
std::string headline(const char* vendor, const std::vector<Row>& rows) {
  std::vector<double> errors_pct;
  for (const Row& r : rows) errors_pct.push_back(100 * std::abs(r.tessera / r.published - 1));
  std::ranges::sort(errors_pct);
  size_t n = errors_pct.size();
  double median_pct = n % 2 ? errors_pct[n / 2] : (errors_pct[n / 2 - 1] + errors_pct[n / 2]) / 2;
  auto within = std::ranges::count_if(errors_pct, [](double e) { return e <= 25; });
  return fmt::format("{} of {} {} rows within 25 % (median error {:.0f} %, worst {:.0f} %)", within,
                     n, vendor, median_pct, errors_pct.back());
}

TEST(HardwareHeadline, ReadmeStatesTheRowsErrors) {
  std::ifstream file(TESSERA_README_FILE);
  std::string readme((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  ASSERT_FALSE(readme.empty()) << TESSERA_README_FILE;
  for (auto [vendor, rows] :
       {std::pair{"Tenstorrent", &kTenstorrent}, std::pair{"Graphcore", &kGraphcore}}) {
    std::string line = headline(vendor, *rows);
    EXPECT_NE(readme.find(line), std::string::npos) << "README.md should say: " << line;
  }
}

// Row F's step op class by op class: what Tessera plans per decoder layer on one chip of the
// Galaxy (the row's run: vendor design, traced, tt-perf, tp=32) beside tt-metal's own per-op
// device profile of the same step, each of its ops' kernel duration plus its op-to-op gap summed
// per class. The profile's run: batch 32, KV cache at 128 rows (start_pos 127), traced, the 8x4
// mesh, performance mode (models/demos/llama3_70b_galaxy/tests/test_decoder_device_perf.py
// @0365916c9265200889899e74e87466f5b3841348); its figures: the "decoder" targets of
// models/demos/llama3_70b_galaxy/tests/decoder_perf_targets_6u.json
// @02cd859b857d6f03107c831e180a7d7cc8d1b059 (github.com/tenstorrent/tt-metal). docs/validation.md
// ("Per-op device time") reads both columns.
struct OpClassFigure {
  const char* op_class;
  double tessera_us;  // per decoder layer, planned; held within 5 %
  double vendor_us;   // per decoder layer, the profile's ops of the class
};
const std::vector<OpClassFigure> kGalaxyLlama70bPerLayer = {
    // clang-format off
    {"matmul",      230.0, 48.99},  // QKV, DO, FF2, and FF1/FF3 fused with a reduce-scatter
    {"collective",  112.6, 62.05},  // all-gathers, all-reduces, reduce-scatters (two fused)
    {"norm",        43.13, 34.58},  // RMSNorm fused with its statistics' all-gather
    {"rotary",      40.21,  2.96},
    {"kv update",   40.00,  5.19},
    {"sdpa decode", 64.05,  9.81},  // one fused kernel; Tessera: scores, softmax, attn_v
    {"eltwise",     60.27,  3.09},  // tt-metal fuses the residual adds into the norms
    // clang-format on
};

// The class of a decoder layer's op (zoo names "layers.N.WHAT"); empty for the others.
std::string op_class_of(const std::string& name) {
  if (!name.starts_with("layers.")) return "";
  std::string what = name.substr(name.find('.', 7) + 1);
  if (what.ends_with("proj")) return "matmul";
  if (what.ends_with("norm")) return "norm";
  if (what.ends_with("rope")) return "rotary";
  if (what.ends_with("cache_write")) return "kv update";
  if (what == "scores" || what == "softmax" || what == "attn_v") return "sdpa decode";
  return "eltwise";  // the residual adds and the activation
}

// The row's first stage's plan on its chip (a tensor-parallel row has one stage).
planner::DesignResult planned_stage(const Row& r) {
  parallel::ParallelCompilation compiled = compile_strategy(r);
  const driver::Compilation& stage = compiled.compilations.at(compiled.stages.at(0).compilation);
  auto design = std::ranges::find_if(stage.designs, [&](const driver::CompiledDesign& d) {
    return d.plan.result.design == r.run.design;
  });
  return design->plan.result;
}

// Microseconds per decoder layer by op class: each op from its start to the next op's (its
// command, launch, work and sync), less its collectives, which count as their own class.
std::map<std::string, double> per_layer_us(const planner::DesignResult& step) {
  std::map<std::string, double> us;
  double layers = 0;
  for (size_t i = 0; i + 1 < step.ops.size(); ++i) {
    const planner::OpSchedule& op = step.ops[i];
    std::string op_class = op_class_of(op.name);
    if (op_class.empty()) continue;
    if (op.name.ends_with(".attn_norm")) ++layers;
    double op_s = step.ops[i + 1].execute_start_s - op.execute_start_s;
    us[op_class] += 1e6 * (op_s - op.collective_s);
    us["collective"] += 1e6 * op.collective_s;
  }
  for (auto& [op_class, total] : us) total /= layers;
  return us;
}

TEST(HardwarePerOp, GalaxyLlama70bLayerByOpClassAgainstTtMetalsProfile) {
  const Row& r = *std::ranges::find(kTenstorrent, "llama3_1_70b_galaxy_b32", &Row::name);
  std::map<std::string, double> us = per_layer_us(planned_stage(r));
  double tessera_us = 0, vendor_us = 0;
  for (const OpClassFigure& f : kGalaxyLlama70bPerLayer) {
    std::cout << fmt::format("{}: tessera {:.2f} us per layer, tt-metal {:.2f} us ({:+.0f} %)\n",
                             f.op_class, us[f.op_class], f.vendor_us,
                             100 * (us[f.op_class] / f.vendor_us - 1));
    EXPECT_NEAR(us[f.op_class], f.tessera_us, 0.05 * f.tessera_us)
        << f.op_class << ": Tessera's figure moved; update it and docs/validation.md";
    tessera_us += us[f.op_class], vendor_us += f.vendor_us;
  }
  EXPECT_EQ(us.size(), kGalaxyLlama70bPerLayer.size()) << "an op class the table does not name";
  std::cout << fmt::format("layer: tessera {:.1f} us, tt-metal {:.1f} us\n", tessera_us, vendor_us);
}

// GPT-2 XL's step as Tessera plans PopTransformer's run (the m2000x2 rows: the layer map as
// eight stages, weights and cache resident), op class by op class and part by part: what T10's fit
// makes of the matmuls, the attention over 264 positions, the syncs, and the stage hand-ons, at
// batch 1 and 24. docs/validation.md (Graphcore, "The parts") reads it against the published
// step; no per-op profile of PopTransformer is published, so only Tessera's side is held.
std::string gpt2_class_of(const std::string& name) {
  if (name.ends_with("proj")) return "matmul";
  if (name.ends_with("scores") || name.ends_with("softmax") || name.ends_with("attn_v"))
    return "attention";
  if (name.ends_with("cache_write")) return "kv update";
  if (name.ends_with("norm")) return "norm";
  if (name.starts_with("layers.")) return "eltwise";  // the residual adds and the activation
  return "embedding, head";
}

struct Parts {
  double compute_s = 0, exchange_s = 0, sync_s = 0, other_s = 0;
  double total_s() const { return compute_s + exchange_s + sync_s + other_s; }
};

// Each op's window (its start to the next op's, the stage's end for its last) split into its
// plan's compute, exchange (shifts while executing) and syncs, and the rest (distributing its
// operands from their homes, hand-offs, waits); summed over the step's stages by class.
struct StepParts {
  std::map<std::string, Parts> by_class;
  double sends_s = 0, step_s = 0;  // the stage hand-ons, and the composed step (planned)
};
StepParts step_parts(const Row& r) {
  parallel::ParallelCompilation compiled = compile_strategy(r);
  StepParts out;
  for (const parallel::StageRun& stage : compiled.stages) {
    const driver::Compilation& c = compiled.compilations.at(stage.compilation);
    const planner::DesignResult& plan = c.designs.front().plan.result;
    // Before its first op starts, the stage waits for that op's operands.
    out.by_class[gpt2_class_of(plan.ops.front().name)].other_s += plan.ops.front().execute_start_s;
    for (size_t i = 0; i < plan.ops.size(); ++i) {
      const planner::OpSchedule& op = plan.ops[i];
      double end_s = i + 1 < plan.ops.size() ? plan.ops[i + 1].execute_start_s : plan.latency_s;
      Parts& p = out.by_class[gpt2_class_of(op.name)];
      p.compute_s += op.exec.compute_s;
      p.exchange_s += op.exec.shift_s;
      p.sync_s += op.exec.sync_s;
      p.other_s +=
          end_s - op.execute_start_s - op.exec.compute_s - op.exec.shift_s - op.exec.sync_s;
    }
  }
  out.sends_s = compiled.designs.front().collective_planned_s;
  out.step_s = compiled.designs.front().planned_s;
  return out;
}

// Tessera's planned figures (ms per step), held within 5 % (or 2 us): per class, then per part.
struct Gpt2Parts {
  const char* row;
  std::map<std::string, double> class_ms;
  double compute_ms, exchange_ms, sync_ms, rest_ms, sends_ms;
};
const std::vector<Gpt2Parts> kGpt2XlParts = {
    // clang-format off
    {"gpt2_xl_m2000x2_b1",
     {{"matmul", 0.949}, {"attention", 0.226}, {"norm", 0.357}, {"eltwise", 0.041},
      {"kv update", 0.023}, {"embedding, head", 0.019}},
     0.796, 0.280, 0.473, 0.066, 0.003},
    {"gpt2_xl_m2000x2_b24",
     {{"matmul", 2.285}, {"attention", 0.476}, {"norm", 0.277}, {"eltwise", 0.044},
      {"kv update", 0.024}, {"embedding, head", 0.046}},
     1.740, 0.617, 0.301, 0.494, 0.025},
    // clang-format on
};

void expect_ms(double now_s, double held_ms, const std::string& what) {
  EXPECT_NEAR(1e3 * now_s, held_ms, std::max(0.05 * held_ms, 0.002))
      << what << ": Tessera's figure moved; update it and docs/validation.md";
}

TEST(HardwareParts, Gpt2XlStepByOpClassAndPart) {
  for (const Gpt2Parts& held : kGpt2XlParts) {
    const Row& r = *std::ranges::find(kGraphcore, held.row, &Row::name);
    StepParts step = step_parts(r);
    EXPECT_EQ(step.by_class.size(), held.class_ms.size()) << "an op class the table does not name";
    Parts all;
    for (const auto& [op_class, p] : step.by_class) {
      std::cout << fmt::format(
          "{} {}: {:.3f} ms (compute {:.3f}, exchange {:.3f}, sync {:.3f}, rest {:.3f})\n",
          held.row, op_class, 1e3 * p.total_s(), 1e3 * p.compute_s, 1e3 * p.exchange_s,
          1e3 * p.sync_s, 1e3 * p.other_s);
      expect_ms(p.total_s(), held.class_ms.at(op_class), op_class);
      all.compute_s += p.compute_s, all.exchange_s += p.exchange_s, all.sync_s += p.sync_s,
          all.other_s += p.other_s;
    }
    expect_ms(all.compute_s, held.compute_ms, "compute");
    expect_ms(all.exchange_s, held.exchange_ms, "exchange");
    expect_ms(all.sync_s, held.sync_ms, "sync");
    expect_ms(all.other_s, held.rest_ms, "rest");
    expect_ms(step.sends_s, held.sends_ms, "stage hand-ons");
    // The parts are the step: its stages one after another and the sends between them.
    EXPECT_NEAR(all.total_s() + step.sends_s, step.step_s, 1e-9);
  }
}

std::string row_name(const testing::TestParamInfo<Row>& param) {
  return param.param.name;
}

INSTANTIATE_TEST_SUITE_P(Tenstorrent, Hardware, testing::ValuesIn(kTenstorrent), row_name);
INSTANTIATE_TEST_SUITE_P(Graphcore, Hardware, testing::ValuesIn(kGraphcore), row_name);

}  // namespace
}  // namespace tessera
