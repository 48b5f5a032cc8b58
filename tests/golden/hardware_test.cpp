// Measured hardware: Tessera's Elk-Full prediction against vendors' published per-model
// measurements, as data: Tenstorrent's (tt-metal's READMEs and model docs) and Graphcore's
// (PopTransformer's benchmark tables). Each row holds the published figure with the file and commit
// it was read from, the figure Tessera's simulator gives today for the same model, chip, batch and
// sequence (held within its tolerance, so a change to the planner, simulator or a preset that moves
// it fails here), and in a comment the error against the hardware and its cause. Rows within 25 %
// of the hardware are marked `matched` and must stay so; the others are not faked into agreement (a
// change that moves one by more than its tolerance fails here, so its error and cause are
// restated): docs/validation.md ("Measured hardware: Tenstorrent", "... Graphcore") says what the
// chip does there that the model misses, and ("... MN-Core 2") why MN-Core 2 has no rows.
//
// Tessera's side is what `tessera compile MODEL --batch B --seq S [--weight-dtype bfp8] --target T
// --chip C -o DIR` and `tessera simulate DIR/plan.yaml` give: decode is one token per user per
// step, so tokens/s/user = 1000 / simulated ms per step and ms/token is the simulated step; prefill
// (time to first token) is one step over S prompt tokens, in ms.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
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
    "ci-token-matching, one user, 512-token prefill; bfp8 MLP, bfp8 attention for Llama 3)";
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
  // A --parallel strategy the run uses on the whole machine (nullptr: the model on the chip as
  // one, the flat default); its figure is the composed step (parallel/compose.hpp).
  const char* parallel = nullptr;
};

// Errors (Tessera / published - 1) and their causes in each comment; docs/validation.md explains.
const std::vector<Row> kTenstorrent = {
    // clang-format off
    // +36.7 %: DRAM at the card's 288 GB/s (the weight stream is ~25.7 of 29 ms); tt-metal's fixed
    // per-token cost (~12 ms in its own figures: dispatch, non-matmul ops) is missing (docs/validation.md)
    {"llama3_1_8b_n150_b1", "llama3.1-8b", kWormhole, "wormhole-n150", Metric::tokens_per_s_per_user, 1, 1024, 25.2, kPerfAccuracy, 34.44, 0.05, false},
    // +77.2 %: the missing fixed per-token cost, now with nothing to cancel it
    {"llama3_1_8b_n300_b1", "llama3.1-8b", kWormhole, "wormhole-n300", Metric::tokens_per_s_per_user, 1, 1024, 38.8, kPerfAccuracy, 68.75, 0.05, false},
    // +349 %: tt-metal's ~12 ms per token that does not shrink with chips (TP=8 all-gathers over
    // one Ethernet link, op dispatch, non-matmul ops) is missing; Tessera streams 1/8 of the weights
    {"llama3_1_8b_t3000_b1", "llama3.1-8b", kWormhole, "wormhole-t3000", Metric::tokens_per_s_per_user, 1, 1024, 60.8, kPerfAccuracy, 272.7, 0.05, false},
    // +705 %: as on T3000; tt_transformers on TG is slower than on T3000 (29.5 vs 60.8 t/s/u):
    // software, not hardware
    {"llama3_1_8b_galaxy_b1", "llama3.1-8b", kWormhole, "wormhole-galaxy", Metric::tokens_per_s_per_user, 1, 1024, 29.5, kPerfAccuracy, 237.3, 0.05, false},
    // +82.2 %: the hardware reads bfp4 MLP weights (40 % fewer bytes than Tessera's bfp8) and still is
    // slower: the fixed per-token cost again
    {"llama3_1_70b_t3000_b1", "llama3.1-70b", kWormhole, "wormhole-t3000", Metric::tokens_per_s_per_user, 1, 1024, 16.5, kPerfAccuracy, 30.06, 0.05, false},
    // +622 %: generic tt_transformers on TG; the dedicated llama3_70b_galaxy demo gets 72.5 t/s/u
    // at batch 32 on the same machine (row below): software, not hardware
    {"llama3_1_70b_galaxy_b1", "llama3.1-70b", kWormhole, "wormhole-galaxy", Metric::tokens_per_s_per_user, 1, 1024, 12.7, kPerfAccuracy, 91.74, 0.05, false},
    // +21.8 %: within 25 % only because bf16 attention weights on the hardware read more bytes than
    // Tessera's bfp8, hiding part of the missing fixed cost
    {"mistral_7b_n150_b1", "mistral-7b", kWormhole, "wormhole-n150", Metric::tokens_per_s_per_user, 1, 1024, 29.75, kPerfAccuracy, 36.25, 0.05, true},
    // +53.9 %: the missing fixed per-token cost
    {"mistral_7b_n300_b1", "mistral-7b", kWormhole, "wormhole-n300", Metric::tokens_per_s_per_user, 1, 1024, 47.01, kPerfAccuracy, 72.37, 0.05, false},
    // +325 %: the missing fixed per-token cost, as for Llama 3.1 8B on T3000
    {"mistral_7b_t3000_b1", "mistral-7b", kWormhole, "wormhole-t3000", Metric::tokens_per_s_per_user, 1, 1024, 67.82, kPerfAccuracy, 288.3, 0.05, false},
    // +26.0 %: bfp4 MLP on the hardware (performance mode) reads fewer bytes; the missing fixed cost
    {"llama3_1_8b_n150_b32", "llama3.1-8b", kWormhole, "wormhole-n150", Metric::tokens_per_s_per_user, 32, 128, 26.0, kModelsReadme, 32.76, 0.05, false},
    // +19.8 %: as the row above
    {"mistral_7b_n150_b32", "mistral-7b", kWormhole, "wormhole-n150", Metric::tokens_per_s_per_user, 32, 128, 28.7, kModelsReadme, 34.39, 0.05, true},
    // +75.2 %: QuietBox (8 Wormholes, TP=8): bfp4 MLP and the fixed per-token cost, as at batch 1
    {"llama3_1_70b_t3000_b32", "llama3.1-70b", kWormhole, "wormhole-t3000", Metric::tokens_per_s_per_user, 32, 128, 15.9, kModelsReadme, 27.86, 0.05, false},
    // +44.6 %: llama3_70b_galaxy (TP=32, bfp4 MLP, DRAM prefetcher): 1.4 GB per chip streamed in
    // ~5 ms plus ~9 ms of collectives on the hardware, vs 2.3 GB at 288 GB/s in Tessera
    {"llama3_1_70b_galaxy_b32", "llama3.1-70b", kWormhole, "wormhole-galaxy", Metric::tokens_per_s_per_user, 32, 128, 72.5, kModelsReadme, 104.8, 0.05, false},
    // +103 %: device throughput (8.5 t/s/u end to end); an early tt-metal release, same causes
    {"llama2_70b_t3000_b32", "llama2-70b", kWormhole, "wormhole-t3000", Metric::tokens_per_s_per_user, 32, 128, 13.9, kOldReadme, 28.15, 0.05, false},
    // -69.6 %: prefill keeps activations in DRAM, runs HiFi2/HiFi4 (Tessera's preset: LoFi) and
    // TTFT includes host work; Tessera's prefill is its weight stream at 288 GB/s
    {"llama3_1_8b_n150_ttft_s128", "llama3.1-8b", kWormhole, "wormhole-n150", Metric::ttft_ms, 1, 128, 104, kModelsReadme, 31.6, 0.05, false},
    // -51.0 %: as the row above
    {"llama3_1_8b_n150_ttft_s512", "llama3.1-8b", kWormhole, "wormhole-n150", Metric::ttft_ms, 1, 512, 138, kPerfAccuracy, 67.68, 0.05, false},
    // -69.5 %: as Llama 3.1 8B
    {"mistral_7b_n150_ttft_s128", "mistral-7b", kWormhole, "wormhole-n150", Metric::ttft_ms, 1, 128, 99, kModelsReadme, 30.15, 0.05, false},
    // -76.9 %: as above, plus the collectives of 80 layers over Ethernet
    {"llama3_1_70b_galaxy_ttft_s128", "llama3.1-70b", kWormhole, "wormhole-galaxy", Metric::ttft_ms, 1, 128, 53, kModelsReadme, 12.22, 0.05, false},
    // clang-format on
};

// GPT2-XL on 8 Mk2 IPUs, layer-sharded without pipelining and its decode loop on the device: one
// IPU works at a time, so the first rows run it on one ipu-mk2 (1472 tiles; weights preloaded from
// the preset's HBM, where the hardware keeps weights and KV cache in the 8 IPUs' SRAM). The
// published figure is ms per decode step (positive error: Tessera slower than the hardware).
const std::vector<Row> kGraphcore = {
    // clang-format off
    // +38.5 %: Tessera's step is its ops' execution (preloads hidden; the same 1.69 ms with HBM at
    // the SRAM's 31 TB/s), nearly all of it T10's 514 cycles per 16x16 weight block of a tile
    // (1.52 ms spread evenly), above the hardware's 1.19 ms for everything
    {"gpt2_xl_mk2_b1", "gpt2-xl", kIpu, "ipu-mk2", Metric::ms_per_token, 1, 264, 1.190, kPopTransformerGpt2, 1.648, 0.05, false},
    // -18.1 %: a crossing, not agreement: the per-block excess of b1 and the per-user deficit below
    {"gpt2_xl_mk2_b8", "gpt2-xl", kIpu, "ipu-mk2", Metric::ms_per_token, 8, 264, 2.548, kPopTransformerGpt2, 2.088, 0.05, true},
    // -38.2 %: the hardware's step grows 0.16 ms per user (13x that user's FLOPs at the 250 TFLOPS
    // peak), Tessera's 0.058 ms (the fit's row term is 24 cycles per 6 rows against 514 per block)
    {"gpt2_xl_mk2_b16", "gpt2-xl", kIpu, "ipu-mk2", Metric::ms_per_token, 16, 264, 3.957, kPopTransformerGpt2, 2.446, 0.05, false},
    // -39.7 %: as the row above
    {"gpt2_xl_mk2_b24", "gpt2-xl", kIpu, "ipu-mk2", Metric::ms_per_token, 24, 264, 4.940, kPopTransformerGpt2, 2.981, 0.05, false},
    // The machine as sold and run as PopTransformer runs it: two IPU-M2000s (no HBM), the layer
    // map as a pipeline, every stage's weights and cache resident (the preset's residency: auto
    // keeps all of them). The errors barely move from the rows above: the weight stream never
    // decided them; T10's per-block and per-row terms do (causes I and J in docs/validation.md).
    // +36.4 %: cause I
    {"gpt2_xl_m2000x2_b1", "gpt2-xl", kIpu, "ipu-m2000x2", Metric::ms_per_token, 1, 264, 1.190, kPopTransformerGpt2, 1.623, 0.05, false, kPopTransformerStages},
    // -21.8 %: the crossing of I and J, as on one ipu-mk2
    {"gpt2_xl_m2000x2_b8", "gpt2-xl", kIpu, "ipu-m2000x2", Metric::ms_per_token, 8, 264, 2.548, kPopTransformerGpt2, 1.991, 0.05, true, kPopTransformerStages},
    // -41.6 %: cause J
    {"gpt2_xl_m2000x2_b16", "gpt2-xl", kIpu, "ipu-m2000x2", Metric::ms_per_token, 16, 264, 3.957, kPopTransformerGpt2, 2.310, 0.05, false, kPopTransformerStages},
    // -35.3 %: cause J
    {"gpt2_xl_m2000x2_b24", "gpt2-xl", kIpu, "ipu-m2000x2", Metric::ms_per_token, 24, 264, 4.940, kPopTransformerGpt2, 3.194, 0.05, false, kPopTransformerStages},
    // clang-format on
};

void PrintTo(const Row& r, std::ostream* os) {
  *os << r.name;
}

double measure(const Row& r) {
  PluginSet plugins(Registry::discover(plugin_search_dirs({})));
  driver::OpenChip chip =
      driver::open_chip(plugins, driver::ChipChoice{r.target.plugin, r.chip}).take();
  ModelRequest request;
  request.model = r.model;
  request.shape.batch = r.batch;
  request.shape.seq = r.seq;
  request.shape.mode = r.metric == Metric::ttft_ms ? zoo::Mode::prefill : zoo::Mode::decode;
  request.shape.weight_dtype = r.target.weight_dtype;
  request.shape_given = true;
  driver::CompileOptions options;
  options.designs = {planner::Design::elk_full};
  options.simulate = true;
  double ms = 0;
  if (r.parallel != nullptr) {
    parallel::ParallelCompilation compiled =
        parallel::compile_parallel(plugins, chip, parallel::parallel_model(request).take(),
                                   parallel::parse_strategy(r.parallel).take(), options)
            .take();
    ms = compiled.designs.front().simulated_s.value() * 1e3;
  } else {
    driver::Compilation compiled =
        driver::compile(chip, driver::load(request).take(), options).take();
    ms = compiled.designs.front().simulated->result.latency_s * 1e3;
  }
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

std::string row_name(const testing::TestParamInfo<Row>& param) {
  return param.param.name;
}

INSTANTIATE_TEST_SUITE_P(Tenstorrent, Hardware, testing::ValuesIn(kTenstorrent), row_name);
INSTANTIATE_TEST_SUITE_P(Graphcore, Hardware, testing::ValuesIn(kGraphcore), row_name);

}  // namespace
}  // namespace tessera
