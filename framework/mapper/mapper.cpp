#include "framework/mapper/mapper.hpp"

#include <tbb/blocked_range.h>
#include <tbb/info.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <limits>
#include <mutex>
#include <thread>

#include "framework/common/units.hpp"
#include "framework/mapper/compiled_model.hpp"
#include "framework/mapper/dataflow.hpp"
#include "framework/mapper/dataplacement.hpp"
#include "framework/mapper/mapspace_size.hpp"

namespace tessera::mapper {

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// Template indices order dataplacements first, then their dataflows: the tie-break order.
constexpr size_t kDataflowBits = 24;

struct DataplacementOutcome {
  TileSearchStats tile;
  size_t dataflows = 0;
  double log10_after_dataflow = -std::numeric_limits<double>::infinity();
  FullSpaceSize full;
  double dataflow_s = 0, compile_s = 0, search_s = 0;
};

DataplacementOutcome search_dataplacement(const Problem& p, const Hierarchy& h,
                                          const Dataplacement& dp, size_t dp_index,
                                          const TileSearchOptions& options, Incumbent& incumbent) {
  DataplacementOutcome out;
  auto start = Clock::now();
  auto templates = pruned_dataflows(p, h, dp);
  out.full = full_space_size(p, h, dp);
  out.dataflows = templates.size();
  out.dataflow_s = seconds_since(start);
  for (size_t k = 0; k < templates.size(); ++k) {
    out.log10_after_dataflow =
        log10_sum(out.log10_after_dataflow, log10_tile_shapes(p, templates[k]));
    start = Clock::now();
    CompiledModel model(p, h, std::move(templates[k]));
    out.compile_s += seconds_since(start);
    start = Clock::now();
    out.tile +=
        search_tile_shapes(p, h, model, (dp_index << kDataflowBits) + k, options, incumbent);
    out.search_s += seconds_since(start);
  }
  return out;
}

// Calls `report` about once a second until stopped.
class Watcher {
 public:
  Watcher(std::function<void()> report) : report_(std::move(report)) {
    if (report_) thread_ = std::thread([this] { loop(); });
  }
  ~Watcher() {
    {
      std::lock_guard lock(mutex_);
      stop_ = true;
    }
    cv_.notify_all();
    if (thread_.joinable()) thread_.join();
  }

 private:
  void loop() {
    std::unique_lock lock(mutex_);
    while (!cv_.wait_for(lock, std::chrono::seconds(1), [this] { return stop_; })) report_();
  }
  std::function<void()> report_;
  std::mutex mutex_;
  std::condition_variable cv_;
  bool stop_ = false;
  std::thread thread_;
};

void add_outcome(MapResult& result, const DataplacementOutcome& o) {
  MapspaceStats& s = result.stats;
  s.tile += o.tile;
  s.dataflows += o.dataflows;
  s.log10_dataflows_full = log10_sum(s.log10_dataflows_full, o.full.log10_dataflows);
  s.log10_tile_shapes_full = log10_sum(s.log10_tile_shapes_full, o.full.log10_tile_shapes);
  s.log10_mapspace_full =
      log10_sum(s.log10_mapspace_full, o.full.log10_dataflows + o.full.log10_tile_shapes);
  s.log10_after_dataflow = log10_sum(s.log10_after_dataflow, o.log10_after_dataflow);
  result.times.dataflow += o.dataflow_s;
  result.times.compile += o.compile_s;
  result.times.tile_search += o.search_s;
}

}  // namespace

MapResult run_mapper(const Problem& p, const Hierarchy& h, const MapperOptions& options) {
  auto wall_start = Clock::now();
  MapResult result;
  constexpr double none = -std::numeric_limits<double>::infinity();
  result.stats.log10_dataflows_full = result.stats.log10_tile_shapes_full = none;
  result.stats.log10_mapspace_full = result.stats.log10_after_dataflow = none;
  auto dps = enumerate_dataplacements(p, h);
  result.stats.dataplacements = dps.size();
  result.times.dataplacement = seconds_since(wall_start);

  Incumbent incumbent(options.objective);
  std::atomic<uint64_t> evaluated{0};
  std::atomic<size_t> done{0};
  TileSearchOptions tile_options{options.objective, options.pareto_level, &evaluated};
  std::vector<DataplacementOutcome> outcomes(dps.size());
  {
    Watcher watcher(options.progress ? std::function<void()>([&] {
      options.progress({done.load(), dps.size(), evaluated.load(), seconds_since(wall_start)});
    })
                                     : std::function<void()>());
    int threads = options.threads > 0 ? options.threads : tbb::info::default_concurrency();
    tbb::task_arena arena(threads);
    arena.execute([&] {
      tbb::parallel_for(tbb::blocked_range<size_t>(0, dps.size(), 1), [&](const auto& range) {
        for (size_t i = range.begin(); i != range.end(); ++i) {
          outcomes[i] = search_dataplacement(p, h, dps[i], i, tile_options, incumbent);
          done.fetch_add(1);
        }
      });
    });
  }
  for (const auto& o : outcomes) add_outcome(result, o);
  result.mappings = incumbent.result();
  if (result.mappings.empty()) {
    result.infeasible = diagnose_overflow(p, h);
    if (result.infeasible.empty())
      result.infeasible = "no mapping satisfies the fan-out and keep constraints of " + h.arch_name;
  }
  result.times.wall = seconds_since(wall_start);
  return result;
}

std::string diagnose_overflow(const Problem& p, const Hierarchy& h) {
  for (int l = 0; l < h.num_levels(); ++l) {
    const Level& level = h.levels[l];
    double need = 0;
    int count = 0;
    std::string tensors;
    for (int t = 0; t < p.num_tensors(); ++t) {
      if (!level.must_keep[t]) continue;
      double elements = l == 0 ? p.tensor_elements(t) : 1;
      double bytes = elements * static_cast<double>(p.tensors[t].element_bytes);
      need += bytes;
      ++count;
      tensors += (tensors.empty() ? "" : ", ") + p.tensors[t].name + " (" +
                 to_string(p.tensors[t].role) + ", " + format_bytes(bytes) +
                 (l == 0 ? " whole" : " for one element") + ")";
    }
    if (need <= level.capacity_bytes) continue;
    return "no mapping fits: level " + level.name + " (capacity " +
           format_bytes(level.capacity_bytes) + " per instance) overflows with tensor" +
           (count == 1 ? " " : "s ") + tensors +
           ", which it must keep; raise its capacity_bytes or remove the tensor from its "
           "keep list";
  }
  return "";
}

}  // namespace tessera::mapper
