// torchvision classifiers compiled and simulated as `tessera compile M.onnx --target T --chip C
// --simulate` does it (per-op plans, Basic, Elk-Full and Ideal, the simulation of Basic and
// Elk-Full), on two threads, on one chip of each family: ipu-mk2-hbm3e, wormhole-n150, mncore2.
// Target: <= 5 s wall each (docs/planner.md, "Speed"). Wall time is the benchmark's time; its CPU
// time is the whole process's (both threads), which the machine's load does not inflate.
//
// The models are the ONNX exports of tests/e2e/torchvision/export_models.py (Debian's
// python3-torchvision, random weights) in the directory $TESSERA_TORCHVISION_DIR:
//
//   /usr/bin/python3 tests/e2e/torchvision/export_models.py /tmp/tv inception_v3 googlenet ...
//   TESSERA_TORCHVISION_DIR=/tmp/tv build/default/bin/bench_cnn
//
// A model not exported there is skipped with a message saying so. The smoke test compiles the
// repository's own models/fixtures/resnet_like.onnx.
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "framework/driver/driver.hpp"

namespace tessera::planner {
namespace {

namespace fs = std::filesystem;

constexpr unsigned kThreads = 2;

struct Chip {
  const char* target;
  const char* name;
};
constexpr Chip kChips[] = {{"ipu_alltoall", "ipu-mk2-hbm3e"},
                           {"mesh_tenstorrent", "wormhole-n150"},
                           {"tree_simd", "mncore2"}};

// The slowest classifiers of export_models.py's list first (inception_v3, googlenet and
// densenet121 took 21-28 s of CPU each on mncore2 before the pricing kept its routes).
constexpr const char* kClassifiers[] = {"inception_v3",  "googlenet",
                                        "densenet121",   "mobilenet_v3_small",
                                        "mnasnet0_5",    "efficientnet_b0",
                                        "swin_t",        "maxvit_t",
                                        "convnext_tiny", "efficientnet_v2_s",
                                        "mobilenet_v2",  "regnet_y_400mf",
                                        "resnet18",      "resnext50_32x4d",
                                        "squeezenet1_0", "shufflenet_v2_x0_5",
                                        "alexnet",       "vgg11",
                                        "vit_b_16",      "wide_resnet50_2"};

void BM_CompileSimulate(benchmark::State& state, const std::string& onnx, Chip c) {
  if (!fs::exists(onnx)) {
    state.SkipWithError(
        (onnx + " not found: export it with tests/e2e/torchvision/export_models.py").c_str());
    return;
  }
  PluginSet plugins{Registry::discover(plugin_search_dirs({}))};
  driver::OpenChip chip = driver::open_chip(plugins, driver::ChipChoice{c.target, c.name}).take();
  ModelRequest request;
  request.model = onnx;
  driver::LoadedModel loaded = driver::load(request).take();
  driver::CompileOptions options;
  options.designs = driver::planned_designs(driver::parse_design_choice("elk-full").take(),
                                            chip.spec.conventions.vendor);
  options.threads = kThreads;
  options.simulate = true;
  double elk_full_ms = 0;
  for (auto _ : state) {
    auto compiled = driver::compile(chip, loaded, options);
    if (!compiled.ok()) {
      state.SkipWithError(compiled.error().message.c_str());
      return;
    }
    for (const auto& d : compiled->designs)
      if (d.plan.result.design == Design::elk_full) elk_full_ms = d.plan.result.latency_s * 1e3;
    benchmark::DoNotOptimize(compiled);
  }
  state.counters["elk_full_ms"] = elk_full_ms;
}

bool register_all() {
  const char* dir = std::getenv("TESSERA_TORCHVISION_DIR");
  for (const char* model : kClassifiers)
    for (Chip c : kChips) {
      std::string onnx = fs::path(dir ? dir : "") / (std::string(model) + ".onnx");
      benchmark::RegisterBenchmark((std::string(model) + "/" + c.name).c_str(), BM_CompileSimulate,
                                   onnx, c)
          ->Unit(benchmark::kSecond)
          ->UseRealTime()
          ->MeasureProcessCPUTime()
          ->Iterations(1);
    }
  benchmark::RegisterBenchmark(
      "smoke/resnet_like/ipu-mk2-hbm3e", BM_CompileSimulate,
      std::string(TESSERA_SOURCE_DIR) + "/models/fixtures/resnet_like.onnx", kChips[0])
      ->Unit(benchmark::kSecond)
      ->UseRealTime()
      ->MeasureProcessCPUTime()
      ->Iterations(1);
  return true;
}

[[maybe_unused]] const bool registered = register_all();

}  // namespace
}  // namespace tessera::planner

BENCHMARK_MAIN();
