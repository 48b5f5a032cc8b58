// Elk planner speed and plan quality (docs/planner.md): Llama2-13B decode, batch 16, 2048 KV
// positions, on ipu-pod4-hbm3e (5888 cores), all five designs end to end (per-op plans + plan),
// on 2 threads; target <= 10 s wall and <= 2 GB peak RSS (Elk's Python artifact needs hours).
// Counters: Elk-Full's speedup over Basic and Static, its share of Ideal, each design's HBM
// utilisation, and peak RSS. Then the wall time of Llama2-70B, Gemma2-27B and OPT-30B at batch 32.
// The `_tcm` cases time every tile on the chip's core: hierarchy with the mapper (--core-cost tcm,
// docs/mapper.md; target <= 10 s for the first), one cold run each (the core's cache starts empty);
// `tiles_mapped` counts the distinct tiles searched. `_residency_auto` adds the residency search
// (target <= 2x the same compile without it).
#include <benchmark/benchmark.h>
#include <sys/resource.h>

#include "framework/driver/driver.hpp"

namespace tessera::planner {
namespace {

constexpr unsigned kThreads = 2;
constexpr Design kAll[] = {Design::basic, Design::static_split, Design::elk_dyn, Design::elk_full,
                           Design::ideal};

double peak_rss_bytes() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_maxrss) * 1024;  // Linux reports KiB
}

struct Case {
  std::string target = "ipu_alltoall", chip = "ipu-pod4-hbm3e", model;
  int64_t batch = 1, seq = 2048;
  CoreCost core_cost = CoreCost::plugin;
  ResidencyMode residency = ResidencyMode::off;
};

void BM_CompileAllDesigns(benchmark::State& state, const Case& c) {
  PluginSet plugins{Registry::discover(plugin_search_dirs({}))};
  driver::OpenChip chip = driver::open_chip(plugins, driver::ChipChoice{c.target, c.chip}).take();
  driver::choose_core_cost(chip, c.core_cost).take();
  ModelRequest request;
  request.model = c.model;
  request.shape.batch = c.batch;
  request.shape.seq = c.seq;
  if (c.model.starts_with("dit"))
    request.shape.seq = 256;  // the latent tokens of one step
  else
    request.shape.mode = zoo::Mode::decode;
  request.shape.dtype = ir::DType::fp16;  // the IPU computes fp16; Gemma2 is kept in bf16
  request.shape_given = true;
  driver::LoadedModel loaded = driver::load(request).take();
  // Everything `tessera compile --design all` does after loading: per-op plans and five designs.
  driver::CompileOptions options;
  options.designs = {std::begin(kAll), std::end(kAll)};
  options.threads = kThreads;
  options.residency = c.residency;
  std::vector<DesignResult> r;
  for (auto _ : state) {
    auto compiled = driver::compile(chip, loaded, options);
    if (!compiled.ok()) {
      state.SkipWithError(compiled.error().message.c_str());
      return;
    }
    r.clear();
    for (const auto& d : compiled->designs) r.push_back(d.plan.result);
    benchmark::DoNotOptimize(r);
  }
  state.counters["full_vs_basic"] = r[0].latency_s / r[3].latency_s;
  state.counters["full_vs_static"] = r[1].latency_s / r[3].latency_s;
  state.counters["full_of_ideal_pct"] = 100 * r[4].latency_s / r[3].latency_s;
  state.counters["dyn_vs_static"] = r[1].latency_s / r[2].latency_s;
  state.counters["full_ms"] = r[3].latency_s * 1e3;
  const char* names[] = {"hbm_basic_pct", "hbm_static_pct", "hbm_dyn_pct", "hbm_full_pct",
                         "hbm_ideal_pct"};
  for (size_t d = 0; d < r.size(); ++d) state.counters[names[d]] = 100 * r[d].hbm_utilisation;
  state.counters["orders"] = static_cast<double>(r[3].orders_tried);
  state.counters["peak_rss_MB"] = peak_rss_bytes() / 1e6;
  state.counters["resident_KiB_per_core"] = r[3].residency.bytes_per_core / 1024;
  state.counters["residency_sets_planned"] = r[3].residency.choices_tried;
  if (chip.models.core && c.core_cost == CoreCost::tcm)
    state.counters["tiles_mapped"] = static_cast<double>(chip.models.core->misses());
}

BENCHMARK_CAPTURE(BM_CompileAllDesigns, llama2_13b_b16, Case{.model = "llama2-13b", .batch = 16})
    ->Unit(benchmark::kSecond)
    ->UseRealTime()
    ->Iterations(3);
// The residency search (docs/planner.md, "Residency"): target <= 2x the compile with it off.
BENCHMARK_CAPTURE(BM_CompileAllDesigns, llama2_13b_b16_residency_auto,
                  Case{.model = "llama2-13b", .batch = 16, .residency = ResidencyMode::automatic})
    ->Unit(benchmark::kSecond)
    ->UseRealTime()
    ->Iterations(3);
BENCHMARK_CAPTURE(BM_CompileAllDesigns, llama2_13b_b16_tcm,
                  Case{.model = "llama2-13b", .batch = 16, .core_cost = CoreCost::tcm})
    ->Unit(benchmark::kSecond)
    ->UseRealTime()
    ->Iterations(1);
BENCHMARK_CAPTURE(BM_CompileAllDesigns, dit_xl_pod4_tcm,
                  Case{.model = "dit-xl", .core_cost = CoreCost::tcm})
    ->Unit(benchmark::kSecond)
    ->UseRealTime()
    ->Iterations(1);
BENCHMARK_CAPTURE(BM_CompileAllDesigns, dit_xl_n150_tcm,
                  Case{.target = "mesh_tenstorrent",
                       .chip = "wormhole-n150",
                       .model = "dit-xl",
                       .core_cost = CoreCost::tcm})
    ->Unit(benchmark::kSecond)
    ->UseRealTime()
    ->Iterations(1);
BENCHMARK_CAPTURE(BM_CompileAllDesigns, dit_xl_mncore2,
                  Case{.target = "tree_simd", .chip = "mncore2", .model = "dit-xl"})
    ->Unit(benchmark::kSecond)
    ->UseRealTime()
    ->Iterations(1);
BENCHMARK_CAPTURE(
    BM_CompileAllDesigns, dit_xl_mncore2_tcm,
    Case{.target = "tree_simd", .chip = "mncore2", .model = "dit-xl", .core_cost = CoreCost::tcm})
    ->Unit(benchmark::kSecond)
    ->UseRealTime()
    ->Iterations(1);
BENCHMARK_CAPTURE(BM_CompileAllDesigns, llama2_70b_b32, Case{.model = "llama2-70b", .batch = 32})
    ->Unit(benchmark::kSecond)
    ->UseRealTime()
    ->Iterations(1);
BENCHMARK_CAPTURE(BM_CompileAllDesigns, gemma2_27b_b32, Case{.model = "gemma2-27b", .batch = 32})
    ->Unit(benchmark::kSecond)
    ->UseRealTime()
    ->Iterations(1);
BENCHMARK_CAPTURE(BM_CompileAllDesigns, opt_30b_b32, Case{.model = "opt-30b", .batch = 32})
    ->Unit(benchmark::kSecond)
    ->UseRealTime()
    ->Iterations(1);

}  // namespace
}  // namespace tessera::planner

BENCHMARK_MAIN();
