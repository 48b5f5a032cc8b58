// The model × workload × chip matrix (tests/golden/matrix_cells.hpp): each cell's
// compile (per-op plans, splits, Elk-Full) and simulation timed on its own, one iteration each;
// the last line names the slowest cell. Cells refused before planning (off-chip capacity) are
// timed too: their refusal is part of what a user waits for.
#include <benchmark/benchmark.h>

#include <chrono>

#include "matrix_cells.hpp"

namespace tessera::matrix {
namespace {

struct Slowest {
  std::string cell;
  double seconds = 0;
};
Slowest slowest;

void BM_Cell(benchmark::State& state, const Cell& cell) {
  Outcome outcome;
  for (auto _ : state) {
    auto start = std::chrono::steady_clock::now();
    outcome = run(cell);
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (s > slowest.seconds) slowest = {cell.name, s};
  }
  state.counters["refused"] = outcome.error.empty() ? 0 : 1;
  state.counters["planned_ms"] = outcome.planned_ms;
  state.counters["simulated_ms"] = outcome.simulated_ms;
}

void BM_Slowest(benchmark::State& state) {
  // Nothing to time: the cells were. (DoNotOptimize on the double itself may clobber it.)
  for (auto _ : state) benchmark::ClobberMemory();
  state.SetLabel(slowest.cell + ": " + std::to_string(slowest.seconds) + " s");
}

}  // namespace
}  // namespace tessera::matrix

int main(int argc, char** argv) {
  using namespace tessera::matrix;
  for (const Cell& cell : cells()) {
    benchmark::RegisterBenchmark(cell.name.c_str(), BM_Cell, cell)
        ->Unit(benchmark::kSecond)
        ->UseRealTime()
        ->Iterations(1);
  }
  benchmark::RegisterBenchmark("slowest cell", BM_Slowest)->Iterations(1);
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
