// The default partitioner's speed target: every class of identical ops of an LLM decode step
// partitioned on ipu-pod4-hbm3e (5888 cores, 624 KiB) on two threads — Llama2-13B at batch 16
// and Llama2-70B, Gemma2-27B, OPT-30B at batch 32, KV length 2048 — plus build_chip (the memory
// model's sustained-rate measurement included, once per process). The whole compile of five
// designs has a 10 s budget; this part should take well under 2 s per model.
#include <benchmark/benchmark.h>

#include "framework/chip/chip_models.hpp"
#include "framework/frontend/zoo/builders.hpp"
#include "framework/frontend/zoo/zoo.hpp"
#include "framework/ir/repeats.hpp"
#include "framework/planner/partition/partition.hpp"

namespace tessera::planner {
namespace {

const std::string kChip = std::string(TESSERA_SOURCE_DIR) + "/configs/chips/ipu-pod4-hbm3e.yaml";

PluginSet& plugins() {
  static PluginSet set(Registry::discover(plugin_search_dirs({})));
  return set;
}

const ChipModels& chip() {
  static ChipModels models = build_chip(plugins(), read_chip(kChip).take()).take();
  return models;
}

void BM_BuildChip(benchmark::State& state) {
  ChipSpec spec = read_chip(kChip).take();
  for (auto _ : state) {
    PluginSet fresh(Registry::discover(plugin_search_dirs({})));
    benchmark::DoNotOptimize(build_chip(fresh, spec).take().machine.hbm_bytes_per_s);
  }
}
BENCHMARK(BM_BuildChip)->Unit(benchmark::kMillisecond)->Iterations(1);

void BM_PartitionModel(benchmark::State& state, const std::string& model, int64_t batch) {
  zoo::RunShape shape;
  shape.batch = batch;
  shape.seq = 2048;
  zoo::ModelSpec spec = zoo::find_model(model).take();
  // The Elk evaluation runs every model in fp16 on the IPU, whose fitted cost model has no bf16
  // (Gemma2's zoo entry is bf16).
  spec.dtype = ir::DType::fp16;
  ir::Graph graph = zoo::build_model(spec, shape).take();
  ir::OpClasses classes = ir::identical_ops(graph);
  PartitionOptions options;
  options.threads = 2;
  size_t plans = 0;
  for (auto _ : state) {
    auto result =
        partition_classes(graph, classes, chip().machine, chip().cost_model, nullptr, options)
            .take();
    plans = 0;
    for (const auto& c : result) plans += c.exec.size();
    benchmark::DoNotOptimize(plans);
  }
  state.counters["ops"] = static_cast<double>(graph.ops().size());
  state.counters["classes"] = static_cast<double>(classes.first_op.size());
  state.counters["exec_plans"] = static_cast<double>(plans);
}
BENCHMARK_CAPTURE(BM_PartitionModel, llama2_13b_b16, "llama2-13b", 16)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_PartitionModel, llama2_70b_b32, "llama2-70b", 32)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_PartitionModel, gemma2_27b_b32, "gemma2-27b", 32)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_PartitionModel, opt_30b_b32, "opt-30b", 32)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace tessera::planner

BENCHMARK_MAIN();
