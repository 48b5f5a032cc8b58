// The HBM model's speed: simulated memory cycles per second of wall time for the full cycle-level
// model (saturating sequential and random traffic), and the cost of the fast mode (the sustained
// bandwidth of sequential streams: measured once by the full model, then a cached lookup).
#include <benchmark/benchmark.h>

#include <memory>
#include <string>

#include "config_files.hpp"
#include "dram_config.hpp"
#include "framework/memsim/request_sources.hpp"
#include "memory_system.hpp"
#include "sustained.hpp"

namespace {

using namespace tessera::hbm;
using tessera::memsim::RandomSource;
using tessera::memsim::StreamSource;

const char* const kConfigs[] = {"hbm2_8gb_x128.ini", "hbm3_6400.ini", "hbm3e_8hi.ini"};

std::shared_ptr<const Device> device(int index) {
  const std::string name = kConfigs[index];
  std::string text = read_text_file(std::string(TESSERA_MEMORY_CONFIG_DIR) + "/" + name);
  return std::make_shared<const Device>(load_dram_config(text, name, true).config);
}

// Saturating traffic into one stack for `cycles` cycles; returns the requests finished.
uint64_t simulate(const std::shared_ptr<const Device>& d, bool random, uint64_t cycles) {
  MemorySystem system(d, 1);
  const uint64_t capacity = system.address_map().capacity_bytes();
  std::unique_ptr<TrafficSource> source;
  if (random)
    source = std::make_unique<RandomSource>(capacity, d->config.request_bytes, 0.0, 0.0, 1);
  else
    source = std::make_unique<StreamSource>(capacity, d->config.request_bytes, 1, 0.0, 0.0, 1);
  uint64_t finished = 0;
  run_traffic(system, *source, cycles, [&](const tessera_memory_completion&) { ++finished; });
  return finished;
}

void full_model(benchmark::State& state, bool random) {
  auto d = device(static_cast<int>(state.range(0)));
  const uint64_t cycles = 20000;
  uint64_t requests = 0;
  for (auto _ : state) requests += simulate(d, random, cycles);
  state.SetLabel(kConfigs[state.range(0)]);
  state.counters["sim_cycles_per_s"] = benchmark::Counter(
      static_cast<double>(cycles * state.iterations()), benchmark::Counter::kIsRate);
  state.counters["channel_cycles_per_s"] =
      benchmark::Counter(static_cast<double>(cycles * state.iterations() * d->config.channels),
                         benchmark::Counter::kIsRate);
  state.counters["requests_per_s"] =
      benchmark::Counter(static_cast<double>(requests), benchmark::Counter::kIsRate);
}

void BM_FullModelStream(benchmark::State& state) {
  full_model(state, false);
}
void BM_FullModelRandom(benchmark::State& state) {
  full_model(state, true);
}
BENCHMARK(BM_FullModelStream)->DenseRange(0, 2)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_FullModelRandom)->DenseRange(0, 2)->Unit(benchmark::kMillisecond);

// The fast mode's first answer for a device: two runs of the full model.
void BM_FastModeMeasure(benchmark::State& state) {
  auto d = device(static_cast<int>(state.range(0)));
  SustainedRate rate;
  for (auto _ : state) benchmark::DoNotOptimize(rate = measure_sustained(d, 1, 1));
  state.SetLabel(kConfigs[state.range(0)]);
  state.counters["sustained_GB_per_s"] = rate.bytes_per_s / 1e9;
  state.counters["latency_ns"] = rate.latency_s * 1e9;
}
BENCHMARK(BM_FastModeMeasure)->DenseRange(0, 2)->Unit(benchmark::kMillisecond)->Iterations(1);

// Every later answer: a cache lookup.
void BM_FastModeCached(benchmark::State& state) {
  auto d = device(2);
  cached_sustained(d, 1, 1);
  for (auto _ : state) benchmark::DoNotOptimize(cached_sustained(d, 1, 1));
}
BENCHMARK(BM_FastModeCached);

}  // namespace

BENCHMARK_MAIN();
