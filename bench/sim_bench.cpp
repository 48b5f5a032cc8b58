// The system simulator's speed: events per second of the discrete-event clock and of whole
// simulations; one Llama2-70B decode step (batch 32, seq 2048, Elk-Full plan) on ipu-pod4-hbm3e
// (target: <= 5 s on 2 cores; simulation only, the plan is made once before timing); and the cost
// of the HBM rate per preload in fast mode (the sustained summary) against full mode (the detailed
// model streaming the preload's requests).
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

struct Pod4 {
  std::unique_ptr<PluginSet> plugins;
  std::unique_ptr<driver::OpenChip> chip;
  driver::LoadedModel model;
  planner::Plan plan;
};

// Llama2-70B decode b32 s2048, planned with Elk-Full on ipu-pod4-hbm3e, once per process.
Pod4& pod4() {
  static std::unique_ptr<Pod4> made = [] {
    auto p = std::make_unique<Pod4>();
    p->plugins = std::make_unique<PluginSet>(Registry::discover(plugin_search_dirs({})));
    p->chip = std::make_unique<driver::OpenChip>(
        driver::open_chip(*p->plugins, driver::ChipChoice{"ipu_alltoall", "ipu-pod4-hbm3e"})
            .take());
    ModelRequest request;
    request.model = "llama2-70b";
    request.shape.batch = 32;
    request.shape.seq = 2048;
    request.shape_given = true;
    p->model = driver::load(request).take();
    driver::CompileOptions options;
    options.designs = {planner::Design::elk_full};
    p->plan = driver::compile(*p->chip, p->model, options).take().designs.front().plan;
    return p;
  }();
  return *made;
}

void BM_Llama70bDecodeStepPod4(benchmark::State& state) {
  Pod4& p = pod4();
  sim::SimOptions options;
  uint64_t events = 0;
  double latency_s = 0;
  for (auto _ : state) {
    driver::SimulatedDesign r = driver::simulate(p.plan, *p.chip, *p.model.graph, options).take();
    events += r.result.events;
    latency_s = r.result.latency_s;
  }
  state.SetLabel(std::to_string(p.model.graph->ops().size()) + " ops, " +
                 std::to_string(p.chip->models.machine.cores) + " cores");
  state.counters["events_per_s"] =
      benchmark::Counter(static_cast<double>(events), benchmark::Counter::kIsRate);
  state.counters["simulated_ms"] = latency_s * 1e3;
  state.counters["planned_ms"] = p.plan.result.latency_s * 1e3;
}
BENCHMARK(BM_Llama70bDecodeStepPod4)->Unit(benchmark::kMillisecond);

// The rate of one controller for a 64 MiB preload, a fresh measurement each iteration.
void BM_HbmRatePerPreload(benchmark::State& state) {
  Pod4& p = pod4();
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
