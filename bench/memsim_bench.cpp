// `tessera memsim`'s engine (framework/memsim): the hbm_dramsim plugin from the build tree driven
// through the ABI as the command drives it, one submit, channel_of and advance per request.
// Simulated memory cycles and accepted requests per second of wall time; compare with
// bench_hbm_model, the same model without the ABI in between.
#include <benchmark/benchmark.h>

#include <memory>
#include <string>

#include "framework/memsim/memsim.hpp"

namespace {

using namespace tessera;

struct Case {
  const char* config;
  const char* stacks;
  bool random;
};
const Case kCases[] = {{"hbm2_8gb_x128.ini", "1", false},
                       {"hbm3e_8hi.ini", "1", false},
                       {"hbm3e_8hi.ini", "1", true},
                       {"hbm3e_8hi.ini", "4", false}};

void BM_MemsimThroughAbi(benchmark::State& state) {
  const Case& c = kCases[state.range(0)];
  PluginSet plugins(Registry::discover(plugin_search_dirs({})));
  auto library = plugins.library("hbm_dramsim").take();
  const ParamList params{{{"config", c.config}, {"stacks", c.stacks}}, ""};
  const uint64_t cycles = 20000;
  uint64_t requests = 0;
  for (auto _ : state) {
    state.PauseTiming();  // a new model every run: building one is not memsim's per-cycle cost
    MemoryModel model = create_memory_model(library, params).take();
    MemoryInfo info = model.info().take();
    std::unique_ptr<memsim::TrafficSource> source;
    if (c.random)
      source = std::make_unique<memsim::RandomSource>(info.capacity_bytes, info.burst_bytes, 0.0,
                                                      0.0, 1);
    else
      source = std::make_unique<memsim::StreamSource>(info.capacity_bytes, info.burst_bytes, 1, 0.0,
                                                      0.0, 1);
    state.ResumeTiming();
    requests += memsim::drive_model(model, *source, cycles).accepted;
  }
  state.SetLabel(std::string(c.config) + " x" + c.stacks + (c.random ? " random" : " stream"));
  state.counters["sim_cycles_per_s"] = benchmark::Counter(
      static_cast<double>(cycles * state.iterations()), benchmark::Counter::kIsRate);
  state.counters["requests_per_s"] =
      benchmark::Counter(static_cast<double>(requests), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_MemsimThroughAbi)->DenseRange(0, 3)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
