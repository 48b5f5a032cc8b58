// The system simulator's speed: events per second of the discrete-event clock; whole steps at one
// node per core (the budgets on 2 cores, simulation only, the plan made once before timing:
// Llama-2 13B decode b16 s2048 on ipu-pod4-mesh-hbm3e <= 60 s, on ipu-pod4-hbm3e <= 20 s, a
// wormhole-n150 step <= 2 s, dit-xl on mncore2 <= 5 s; and Llama2-70B b32 on ipu-pod4-hbm3e); and
// the cost of the HBM rate per preload in fast mode (the sustained summary) against full mode (the
// detailed model streaming the preload's requests).
#include <benchmark/benchmark.h>

#include <cstdint>
#include <memory>
#include <random>

#include "framework/driver/driver.hpp"
#include "framework/sim/event_queue.hpp"

namespace {

using namespace tessera;

void BM_EventQueue(benchmark::State& state) {
  const auto events = static_cast<uint32_t>(state.range(0));
  std::mt19937_64 rng(1);
  std::uniform_real_distribution<double> gap(0, 1e-6);
  for (auto _ : state) {
    sim::EventQueue queue;
    double now = 0;
    for (uint32_t i = 0; i < events; ++i) queue.schedule(now + gap(rng), 0, i);
    while (!queue.empty()) {
      sim::Event e = queue.pop();
      now = e.time_s;
      // Half the events schedule a follow-up, like a flow joining after its route's latency.
      if (e.payload % 2 == 0 && e.kind == 0) queue.schedule(now + gap(rng), 1, e.payload);
    }
    benchmark::DoNotOptimize(now);
  }
  state.counters["events_per_s"] = benchmark::Counter(
      static_cast<double>(state.iterations()) * events * 1.5, benchmark::Counter::kIsRate);
}
BENCHMARK(BM_EventQueue)->Arg(1 << 16);

// The whole-step cases above, each planned with Elk-Full once per process (planning is not
// timed), then simulated at one node per core. Llama-2 13B b16 does not fit a wormhole-n150's
// 12 GB, so that chip runs the README's 7B with bfp8 weights.
struct Case {
  const char* target;
  const char* chip;
  const char* model;
  int64_t batch;
  bool prefill;
  bool bfp8_weights;
};
constexpr Case kCases[] = {
    {"ipu_alltoall", "ipu-pod4-mesh-hbm3e", "llama2-13b", 16, false, false},
    {"ipu_alltoall", "ipu-pod4-hbm3e", "llama2-13b", 16, false, false},
    {"mesh_tenstorrent", "wormhole-n150", "llama2-7b", 1, false, true},
    {"tree_simd", "mncore2", "dit-xl", 1, true, false},
    {"ipu_alltoall", "ipu-pod4-hbm3e", "llama2-70b", 32, false, false},
};

struct Planned {
  std::unique_ptr<PluginSet> plugins;
  std::unique_ptr<driver::OpenChip> chip;
  std::shared_ptr<const ir::Graph> graph;  // the model's, big ops split
  planner::Plan plan;
};

Planned& planned(size_t index) {
  static std::unique_ptr<Planned> made[std::size(kCases)];
  if (made[index]) return *made[index];
  const Case& c = kCases[index];
  auto p = std::make_unique<Planned>();
  p->plugins = std::make_unique<PluginSet>(Registry::discover(plugin_search_dirs({})));
  p->chip = std::make_unique<driver::OpenChip>(
      driver::open_chip(*p->plugins, driver::ChipChoice{c.target, c.chip}).take());
  ModelRequest request;
  request.model = c.model;
  request.shape.batch = c.batch;
  if (c.prefill) request.shape.mode = zoo::Mode::prefill;
  if (!c.prefill) request.shape.seq = 2048;
  if (c.bfp8_weights) request.shape.weight_dtype = ir::DType::bfp8;
  request.shape_given = true;
  driver::CompileOptions options;
  options.designs = {planner::Design::elk_full};
  driver::Compilation compiled =
      driver::compile(*p->chip, driver::load(request).take(), options).take();
  p->graph = compiled.graph;
  p->plan = compiled.designs.front().plan;
  made[index] = std::move(p);
  return *made[index];
}

void BM_StepPerCore(benchmark::State& state) {
  const auto index = static_cast<size_t>(state.range(0));
  Planned& p = planned(index);
  sim::SimOptions options;
  uint64_t events = 0, flows = 0;
  sim::SimResult last;
  for (auto _ : state) {
    driver::SimulatedDesign r = driver::simulate(p.plan, *p.chip, *p.graph, options).take();
    events += r.result.events;
    flows += r.result.flows;
    last = std::move(r.result);
  }
  const Case& c = kCases[index];
  state.SetLabel(std::string(c.model) +
                 (c.prefill ? " prefill" : " decode b" + std::to_string(c.batch)) + " on " +
                 c.chip + ": " + std::to_string(p.graph->ops().size()) + " ops, " +
                 std::to_string(last.cores) + " cores, " + std::to_string(last.links) + " links");
  state.counters["events_per_s"] =
      benchmark::Counter(static_cast<double>(events), benchmark::Counter::kIsRate);
  state.counters["flows_per_s"] =
      benchmark::Counter(static_cast<double>(flows), benchmark::Counter::kIsRate);
  state.counters["simulated_ms"] = last.latency_s * 1e3;
  state.counters["planned_ms"] = p.plan.result.latency_s * 1e3;
}
BENCHMARK(BM_StepPerCore)->DenseRange(0, std::size(kCases) - 1)->Unit(benchmark::kMillisecond);

// The rate of one controller for a 64 MiB preload, a fresh measurement each iteration.
void BM_HbmRatePerPreload(benchmark::State& state) {
  Planned& p = planned(1);
  auto detail = state.range(0) == 0 ? sim::MemoryDetail::fast : sim::MemoryDetail::full;
  const double preload_bytes = 64.0 * (1 << 20);
  double rate = 0;
  for (auto _ : state) {
    sim::HbmRate source = sim::hbm_rate(p.chip->models, detail).take();
    rate = source.bytes_per_s(preload_bytes).take();
  }
  state.SetLabel(detail == sim::MemoryDetail::fast ? "fast" : "full");
  state.counters["controller_GB_per_s"] = rate / 1e9;
  state.counters["preload_bytes_per_s"] = benchmark::Counter(
      preload_bytes * static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_HbmRatePerPreload)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
