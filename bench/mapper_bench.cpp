// TCM speed (docs/mapper.md): time to the optimum for GPT-3 6.7B QK on tpu_v4i_like (EDP, one
// thread; TCM's Python needs ~37 s) and for every workload preset (BM_Preset/<name>: the planner
// maps every distinct tile, so each must take at most 1 s), the curried model's cost per tile-shape
// vector against the uncurried reference, and the random-sampling baseline's best EDP after 1, 10
// and 60 s relative to the optimum (the BM_RandomBaseline case runs for 60 s).
#include <benchmark/benchmark.h>

#include "framework/mapper/arch_spec.hpp"
#include "framework/mapper/compiled_model.hpp"
#include "framework/mapper/mapper.hpp"
#include "framework/mapper/random_search.hpp"
#include "framework/mapper/reference_model.hpp"
#include "framework/mapper/workload_file.hpp"

namespace tessera::mapper {
namespace {

struct Case {
  Problem problem;
  Hierarchy hierarchy;
};

Case load(const std::string& workload) {
  Problem p = resolve_workload(workload).take();
  Hierarchy h = build_hierarchy(resolve_arch_spec("tpu_v4i_like").take(), p).take();
  return {std::move(p), std::move(h)};
}

MapResult tcm(const Case& c, int threads) {
  MapperOptions options;
  options.objective = Objective::edp;
  options.threads = threads;
  return run_mapper(c.problem, c.hierarchy, options);
}

void BM_TcmOptimum(benchmark::State& state, const std::string& workload) {
  Case c = load(workload);
  MapResult r;
  for (auto _ : state) {
    r = tcm(c, 1);
    benchmark::DoNotOptimize(r);
  }
  state.counters["edp_Js"] = r.mappings.at(0).metrics.edp();
  state.counters["energy_J"] = r.mappings[0].metrics.energy_joules;
  state.counters["latency_s"] = r.mappings[0].metrics.latency_seconds;
  state.counters["partial_shapes"] = static_cast<double>(r.stats.tile.partial_shapes);
  state.counters["templates"] = static_cast<double>(r.stats.dataflows);
}
BENCHMARK_CAPTURE(BM_TcmOptimum, gpt3_qk, std::string("gpt3-6.7b-qk"))
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_TcmOptimum, gpt3_ffn_up, std::string("gpt3-6.7b-ffn-up"))
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);
BENCHMARK_CAPTURE(BM_TcmOptimum, gpt3_q, std::string("gpt3-6.7b-q"))
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);

// One tile-shape vector of the optimal QK template: curried (parts, then terms) vs reference.
void BM_Evaluate(benchmark::State& state, bool curried) {
  Case c = load("gpt3-6.7b-qk");
  LoopTree best = tcm(c, 1).mappings.at(0).tree;
  LoopTree tmpl = best;
  CompiledModel model(c.problem, c.hierarchy, tmpl);
  std::vector<double> parts(model.parts().size());
  Traffic traffic(c.hierarchy.num_levels());
  for (auto _ : state) {
    if (curried) {
      model.exact_parts(best, parts.data());
      model.evaluate(parts.data(), traffic);
      benchmark::DoNotOptimize(aggregate(c.hierarchy, c.problem.points(), traffic));
    } else {
      benchmark::DoNotOptimize(evaluate_reference(c.problem, c.hierarchy, best));
    }
  }
  state.counters["terms"] = static_cast<double>(model.num_terms());
}
BENCHMARK_CAPTURE(BM_Evaluate, curried, true);
BENCHMARK_CAPTURE(BM_Evaluate, reference, false);

void BM_RandomBaseline(benchmark::State& state) {
  Case c = load("gpt3-6.7b-qk");
  double optimum = tcm(c, 1).mappings.at(0).metrics.edp();
  RandomSearchResult r;
  for (auto _ : state) {
    RandomSearchOptions options;
    options.objective = Objective::edp;
    options.time_limit_seconds = 60;
    options.seed = 1;
    r = random_search(c.problem, c.hierarchy, options);
  }
  for (double s : {1.0, 10.0, 60.0})
    state.counters["edp_vs_opt_" + std::to_string(static_cast<int>(s)) + "s"] =
        r.best_at(s) / optimum;
  state.counters["samples"] = static_cast<double>(r.samples);
  state.counters["valid"] = static_cast<double>(r.valid);
}
BENCHMARK(BM_RandomBaseline)->Iterations(1)->Unit(benchmark::kSecond);

// One case per configs/workloads preset, so a new preset is timed without editing this file.
void register_presets() {
  for (const std::string& name : workload_presets())
    benchmark::RegisterBenchmark(("BM_Preset/" + name).c_str(),
                                 [name](benchmark::State& state) { BM_TcmOptimum(state, name); })
        ->Unit(benchmark::kMillisecond)
        ->Iterations(3);
}

}  // namespace
}  // namespace tessera::mapper

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  tessera::mapper::register_presets();
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
