// Design-space sweeps (docs/dse.md): the shipped reduced-size Elk Fig. 18a (3 points, the smoke
// test's), Fig. 19 (HBM bandwidth x all-to-all/mesh, 16 points) and Fig. 22 (interconnect x HBM
// bandwidth, 25 points) sweeps run end to end on this machine's threads — every point compiled
// under five designs and simulated — into a fresh run directory; target <= 10 minutes each on 2
// cores. Counters: points, points per minute, per-op plan searches vs reuses, failed points.
#include <benchmark/benchmark.h>

#include <chrono>
#include <filesystem>
#include <thread>

#include "framework/dse/sweep_run.hpp"
#include "framework/plugin/registry.hpp"

namespace tessera::dse {
namespace {

void BM_ShippedSweep(benchmark::State& state, const std::string& name) {
  namespace fs = std::filesystem;
  SweepSpec spec =
      read_sweep(std::string(TESSERA_SOURCE_DIR) + "/configs/sweeps/" + name + ".yaml").take();
  Registry registry = Registry::discover(plugin_search_dirs({}));
  fs::path dir = fs::temp_directory_path() / ("tessera-sweep-bench-" + name);
  size_t points = 0, failed = 0, searched = 0, reused = 0;
  double seconds = 0;
  for (auto _ : state) {
    fs::remove_all(dir);
    auto start = std::chrono::steady_clock::now();
    RunOptions options;
    auto session = SweepSession::start(spec, registry, dir, options).take();
    driver::OpPlanCache cache;
    run_local(*session, registry, cache, 0).take();
    points = session->progress().done;
    failed = session->progress().failed;
    searched = cache.misses();
    reused = cache.hits();
    seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }
  fs::remove_all(dir);
  state.counters["points"] = static_cast<double>(points);
  state.counters["failed"] = static_cast<double>(failed);
  state.counters["plans_searched"] = static_cast<double>(searched);
  state.counters["plans_reused"] = static_cast<double>(reused);
  state.counters["points_per_min"] =
      60.0 * static_cast<double>(points) * static_cast<double>(state.iterations()) / seconds;
  state.counters["threads"] = std::thread::hardware_concurrency();
}

BENCHMARK_CAPTURE(BM_ShippedSweep, fig18a_reduced, std::string("fig18a-breakdown-reduced"))
    ->Unit(benchmark::kSecond)
    ->Iterations(1)
    ->UseRealTime();
BENCHMARK_CAPTURE(BM_ShippedSweep, fig19_reduced, std::string("fig19-hbm-bandwidth-reduced"))
    ->Unit(benchmark::kSecond)
    ->Iterations(1)
    ->UseRealTime();
BENCHMARK_CAPTURE(BM_ShippedSweep, fig22_reduced, std::string("fig22-noc-hbm-reduced"))
    ->Unit(benchmark::kSecond)
    ->Iterations(1)
    ->UseRealTime();

}  // namespace
}  // namespace tessera::dse

BENCHMARK_MAIN();
