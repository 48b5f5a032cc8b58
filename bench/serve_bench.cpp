// tessera serve's speed: the event loop on 10,000 requests (Llama 3.1 70B, bfp8 weights, on a
// wormhole-t3000 at loads from light to beyond what it sustains), its step-cost grid built first
// and outside the timing; and the grid's build itself (one model x chip x strategy, every point
// compiled and simulated; minutes: run it alone with --benchmark_filter=BM_BuildGrid); and the
// event loop alone at a fixed step cost.
#include <benchmark/benchmark.h>

#include "framework/serve/serve.hpp"

namespace tessera::serve {
namespace {

struct Machine {
  PluginSet plugins{Registry::discover(plugin_search_dirs({}))};
  driver::OpenChip chip =
      driver::open_chip(plugins, driver::ChipChoice{"mesh_tenstorrent", "wormhole-t3000"}).take();
  ServedMachine served;
  Machine() {
    ModelRequest request;
    request.model = "llama3.1-70b";
    request.shape.weight_dtype = ir::DType::bfp8;
    served =
        ServedMachine{&plugins, &chip, request, planner::Design::elk_full, std::nullopt, "flat"};
  }
};

GridAxes axes_of(Machine& m, int64_t max_batch) {
  KvRoom room = kv_room(m.served, 16, max_batch).take();
  std::string why;
  ServeOptions options;
  options.scheduler.max_batch = max_batch;
  return serve_axes(options, room, request_context_limit(m.served, room, why), 1);
}

// 10,000 requests at `rate` req/s: the run alone (requests drawn, served, summarised).
void BM_Serve10k(benchmark::State& state) {
  static Machine m;
  static const CostGrid grid = [] {
    return build_cost_grid(
               axes_of(m, 64),
               [](Phase p, int64_t b, int64_t s) { return simulate_step(m.served, p, b, s); })
        .take();
  }();
  static const KvRoom room = kv_room(m.served, 16, 64).take();
  SyntheticLoad load{ArrivalKind::poisson,
                     static_cast<double>(state.range(0)),
                     1,
                     LengthDist{LengthKind::fixed, 512, 0},
                     LengthDist{LengthKind::fixed, 128, 0},
                     10000,
                     0};
  int64_t steps = 0;
  for (auto _ : state) {
    auto requests = synthetic_requests(load).take();
    auto run = run_server(requests, SchedulerOptions{Policy::continuous, 64, 512, 8192},
                          KvBlocks(room.blocks, room.block_tokens),
                          [](const StepShape& s) { return grid.cost(s); })
                   .take();
    ServeSummary summary = summarize(run, {}, 64);
    benchmark::DoNotOptimize(summary);
    steps = run.steps;
  }
  state.counters["steps"] = static_cast<double>(steps);
}
BENCHMARK(BM_Serve10k)->Arg(2)->Arg(5)->Arg(20)->Unit(benchmark::kMillisecond)->Iterations(3);

// The event loop alone on 10,000 requests at a fixed step cost (the smoke test: no compile).
void BM_EventLoopFixedCost(benchmark::State& state) {
  SyntheticLoad load{ArrivalKind::poisson,
                     20,
                     1,
                     LengthDist{LengthKind::uniform, 64, 1024},
                     LengthDist{LengthKind::uniform, 16, 256},
                     10000,
                     0};
  auto requests = synthetic_requests(load).take();
  for (auto _ : state) {
    auto run =
        run_server(requests, SchedulerOptions{Policy::continuous, 64, 512, 8192},
                   KvBlocks(4000, 16),
                   [](const StepShape& s) {
                     return StepCost{0.03 + 1e-4 * static_cast<double>(s.prefill_tokens()), 0};
                   })
            .take();
    benchmark::DoNotOptimize(run);
  }
}
BENCHMARK(BM_EventLoopFixedCost)->Unit(benchmark::kMillisecond);

// The grid of --max-batch N built from nothing (no cache): every point compiled and simulated.
void BM_BuildGrid(benchmark::State& state) {
  static Machine m;
  GridAxes axes = axes_of(m, state.range(0));
  for (auto _ : state) {
    CostGrid grid = build_cost_grid(axes, [](Phase p, int64_t b, int64_t s) {
                      return simulate_step(m.served, p, b, s);
                    }).take();
    // Every step simulated: the rows' points (refinement's among them), prefills, held-out points.
    size_t points = grid.prefill.size() + grid.held_out.size();
    for (const auto& row : grid.decode) points += row.size();
    state.counters["points"] = static_cast<double>(points);
  }
}
BENCHMARK(BM_BuildGrid)->Arg(32)->Arg(64)->Unit(benchmark::kSecond)->Iterations(1);

}  // namespace
}  // namespace tessera::serve

BENCHMARK_MAIN();
