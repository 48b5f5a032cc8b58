// `tessera memsim`'s engine (framework/memsim): the hbm_dramsim plugin from the build tree driven
// through the ABI as the command drives it, one submit, channel_of and advance per request.
// Simulated memory cycles and accepted requests per second of wall time; compare with
// bench_hbm_model, the same model without the ABI in between.
//
// BM_TraceVsDramsim3 compares speeds: `tessera memsim --trace` (run_memsim, the
// whole command: config, trace parsing, the full cycle-level model, the report's histograms) on
// the traces of docs/memory.md's comparison with DRAMsim3, 400,000 cycles each, in CPU seconds.
// When DRAMSIM3_MAIN names a dramsim3main binary (built locally; never part of this tree), the same
// trace file also goes through it as a child process (`dramsim3main CONFIG -c CYCLES -t TRACE`,
// the same .ini, its CPU time from wait4), and the counters show both rates and their ratio;
// otherwise only Tessera's. Run: DRAMSIM3_MAIN=/path/to/dramsim3main
// build/default/bench/bench_memsim
//   --benchmark_filter=TraceVsDramsim3
#include <benchmark/benchmark.h>
#include <fcntl.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "framework/memsim/memsim.hpp"
#include "framework/memsim/request_sources.hpp"

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

// ---- Tessera vs DRAMsim3 on the same trace (docs/memory.md) -------------------------------------

// dramsim3_traces.py's generator (splitmix64, seed 7): request i at cycle floor(i / rate).
enum class Kind { random, sequential };
enum class Mix { reads, writes50, two_reads_one_write };

struct TraceCase {
  const char* config;  // configs/memory/, read by both simulators
  Kind kind;
  Mix mix;
  const char* label;
};
const TraceCase kTraces[] = {
    {"hbm2_8gb_x128.ini", Kind::random, Mix::reads, "HBM2 random reads"},
    {"hbm2_8gb_x128.ini", Kind::sequential, Mix::two_reads_one_write, "HBM2 sequential 2R+1W"},
    {"hbm_4gb_x128.ini", Kind::random, Mix::writes50, "HBM random 50% writes"},
    {"hbm3_6400.ini", Kind::random, Mix::reads, "HBM3 random reads"},
    {"hbm3e_8hi.ini", Kind::random, Mix::reads, "HBM3E random reads"},
};
constexpr uint64_t kTraceCycles = 400000;
constexpr int kRounds = 5;
constexpr double kNoTime = std::numeric_limits<double>::infinity();
constexpr double kRate = 1.0;  // requests per cycle, the whole stack

using SplitMix = memsim::SplitMix64;  // framework/memsim/request_sources.hpp

// Writes the trace as dramsim3_traces.py KIND MIX 1 CYCLES CAPACITY LINE would.
void write_trace(const TraceCase& c, uint64_t capacity, uint64_t line,
                 const std::filesystem::path& path) {
  SplitMix rng{7};
  const uint64_t lines = capacity / line;
  const uint64_t bases[3] = {0, lines / 3, 2 * lines / 3};
  uint64_t ptr[3] = {0, 0, 0};
  std::ofstream out(path);
  const auto n = static_cast<uint64_t>(static_cast<double>(kTraceCycles) * kRate);
  for (uint64_t i = 0; i < n; ++i) {
    size_t stream = 0;
    bool write = false;
    if (c.mix == Mix::two_reads_one_write) {
      stream = i % 3;
      write = stream == 2;
    } else {
      write = rng.next() % 1000 < (c.mix == Mix::writes50 ? 500u : 0u);
    }
    const uint64_t l = c.kind == Kind::random ? rng.next() % lines : bases[stream] + ptr[stream]++;
    char text[64];
    const int size = std::snprintf(
        text, sizeof text, "0x%llx %s %llu\n", static_cast<unsigned long long>((l % lines) * line),
        write ? "WRITE" : "READ", static_cast<unsigned long long>(static_cast<double>(i) / kRate));
    out.write(text, size);
  }
  if (!out) throw std::runtime_error("cannot write " + path.string());
}

double cpu_seconds(const rusage& u) {
  auto s = [](const timeval& t) { return static_cast<double>(t.tv_sec) + t.tv_usec * 1e-6; };
  return s(u.ru_utime) + s(u.ru_stime);
}

double self_cpu_seconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return cpu_seconds(u);
}

// Runs dramsim3main on the trace (its output files in `out_dir`, its stdout discarded); returns the
// child's CPU seconds.
double run_dramsim3(const char* binary, const std::string& config, const std::string& trace,
                    const std::string& out_dir) {
  const std::string cycles = std::to_string(kTraceCycles);
  std::vector<std::string> args = {binary, config, "-c", cycles, "-t", trace, "-o", out_dir};
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t files;
  posix_spawn_file_actions_init(&files);
  posix_spawn_file_actions_addopen(&files, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&files, 2, "/dev/null", O_WRONLY, 0);
  pid_t pid = 0;
  const int error = posix_spawn(&pid, binary, &files, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&files);
  if (error != 0) throw std::runtime_error(std::string("cannot run ") + binary);
  int status = 0;
  rusage usage{};
  if (wait4(pid, &status, 0, &usage) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
    throw std::runtime_error(std::string(binary) + " failed on " + trace);
  return cpu_seconds(usage);
}

void BM_TraceVsDramsim3(benchmark::State& state) {
  const TraceCase& c = kTraces[state.range(0)];
  const std::string config = std::string(TESSERA_MEMORY_CONFIG_DIR) + "/" + c.config;
  PluginSet plugins(Registry::discover(plugin_search_dirs({})));
  // Addresses below the largest power of two of the capacity, as in docs/memory.md (DRAMsim3
  // masks the row to log2(rows) bits).
  MemoryInfo info =
      create_memory_model(plugins.library("hbm_dramsim").take(), {{{"config", config}}, ""})
          .take()
          .info()
          .take();
  uint64_t capacity = 1;
  while (capacity * 2 <= info.capacity_bytes) capacity *= 2;
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("tessera_bench_memsim_" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  const std::filesystem::path trace = dir / "trace.trc";
  write_trace(c, capacity, info.burst_bytes, trace);

  memsim::MemsimOptions options;
  options.config = config;
  options.trace = trace.string();
  options.cycles = kTraceCycles;
  const char* dramsim3 = std::getenv("DRAMSIM3_MAIN");
  double tessera_cpu = kNoTime, dramsim3_cpu = kNoTime;
  for (auto _ : state) {
    for (int round = 0; round < kRounds; ++round) {
      const double start = self_cpu_seconds();
      benchmark::DoNotOptimize(memsim::run_memsim(plugins, options));
      tessera_cpu = std::min(tessera_cpu, self_cpu_seconds() - start);
      if (dramsim3)
        dramsim3_cpu =
            std::min(dramsim3_cpu, run_dramsim3(dramsim3, config, trace.string(), dir.string()));
    }
  }
  const double tessera_rate = static_cast<double>(kTraceCycles) / tessera_cpu;
  state.counters["tessera_cycles_per_s"] = tessera_rate;
  std::string label = c.label;
  if (dramsim3) {
    const double dramsim3_rate = static_cast<double>(kTraceCycles) / dramsim3_cpu;
    state.counters["dramsim3_cycles_per_s"] = dramsim3_rate;
    state.counters["ratio"] = tessera_rate / dramsim3_rate;
    char text[160];
    std::snprintf(text, sizeof text, "%s: Tessera %.2f M cycles/s, DRAMsim3 %.3f M, %.1fx", c.label,
                  tessera_rate * 1e-6, dramsim3_rate * 1e-6, tessera_rate / dramsim3_rate);
    label = text;
  }
  std::filesystem::remove_all(dir);
  state.SetLabel(label);
}
// Five rounds of one run each, alternating (400,000 cycles is a second or so of DRAMsim3), timed in
// CPU seconds of the process (Tessera) and of the child (DRAMsim3); each side's rate is its fastest
// round. One run each drifted by up to 2x with the other load of a shared 2-core machine (its
// clock and caches), and not by the same factor on both sides: the ratio of single runs of the
// same build ranged 5.5x-10.5x on one trace; the best of five moved by up to ~20 % between runs.
BENCHMARK(BM_TraceVsDramsim3)
    ->DenseRange(0, static_cast<int>(std::size(kTraces)) - 1)
    ->Iterations(1)
    ->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
