#include "framework/dse/sweep_run.hpp"

#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include <thread>

#include "framework/dse/point_setup.hpp"

namespace tessera::dse {

double Progress::left_s() const {
  if (done == 0) return -1;
  double remaining = static_cast<double>(total - skipped - done);
  return remaining * elapsed_s / static_cast<double>(done);
}

Result<std::unique_ptr<SweepSession>> SweepSession::start(const SweepSpec& spec,
                                                          const Registry& registry,
                                                          const std::filesystem::path& dir,
                                                          const RunOptions& options) {
  PluginSet plugins(registry);
  Status checked = check_sweep(spec, plugins);
  if (!checked) return checked.error();
  auto run = RunDir::open(dir, spec, options.force);
  if (!run) return run.error();
  auto finished = run->finished();
  if (!finished) return finished.error();
  std::unique_ptr<SweepSession> s(new SweepSession(spec, std::move(*run), options));
  std::vector<Point> points = enumerate_points(spec);
  s->total_ = points.size();
  for (Point& point : points) {
    auto it = finished->find(point.index);
    bool keep = it != finished->end() && it->second.values == point.values &&
                (it->second.ok || !options.retry_failed);
    if (keep) {
      s->results_.emplace(point.index, std::move(it->second));
      ++s->skipped_;
    } else {
      s->todo_.push_back(std::move(point));
    }
  }
  return s;
}

Status SweepSession::record(PointResult result) {
  std::lock_guard lock(mutex_);
  ++done_;
  failed_ += result.ok ? 0 : 1;
  Status status = run_.write_point(result);
  results_[result.index] = std::move(result);
  if (status) status = run_.write_results(spec_, results_);
  if (!status) return status;
  if (options_.progress) options_.progress(snapshot());
  return ok_status();
}

Status SweepSession::write_results() const {
  std::lock_guard lock(mutex_);
  return run_.write_results(spec_, results_);
}

Progress SweepSession::progress() const {
  std::lock_guard lock(mutex_);
  return snapshot();
}

Progress SweepSession::snapshot() const {
  Progress p;
  p.total = total_;
  p.skipped = skipped_;
  p.done = done_;
  p.failed = failed_;
  p.elapsed_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  return p;
}

Status run_local(SweepSession& session, const Registry& registry, driver::OpPlanCache& cache,
                 unsigned threads) {
  if (session.todo().empty()) return session.write_results();
  unsigned n = threads > 0 ? threads : std::max(1u, std::thread::hardware_concurrency());
  tbb::task_arena arena(static_cast<int>(n));
  EvaluateOptions options;
  options.threads = n;
  arena.execute([&] {
    tbb::parallel_for(
        tbb::blocked_range<size_t>(0, session.todo().size(), 1),
        [&](const tbb::blocked_range<size_t>& range) {
          for (size_t i = range.begin(); i != range.end(); ++i) {
            PointResult r =
                evaluate_point(session.spec(), session.todo()[i], registry, cache, options);
            session.record(std::move(r)).take();
          }
        },
        tbb::simple_partitioner());
  });
  return ok_status();
}

}  // namespace tessera::dse
