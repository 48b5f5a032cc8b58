// Running a sweep: the session both runners share (check the sweep, open the run directory, skip
// the points already finished, record each new one as it ends), and the local runner, which
// spreads points over oneTBB threads. The MPI runner (mpi_runner.hpp) drives the same session on
// rank 0 and evaluate_point on the others.
//
// Threads and lifetimes: start runs on the calling thread, borrows `registry` and `dir` for the
// call and copies `spec` and `options` (the progress callback included: what it captures must
// outlive the session). run_local borrows its arguments for the call and evaluates points in a
// oneTBB arena, each point on one of its threads (the caller among them) with its own PluginSet
// and chip and the same thread count for its compile (nested arenas, sharing oneTBB's one worker
// pool). No lock guards a run directory: run one session on it at a time.
#pragma once

#include <chrono>
#include <filesystem>
#include <functional>
#include <mutex>
#include <vector>

#include "framework/common/status.hpp"
#include "framework/dse/evaluate_point.hpp"
#include "framework/dse/run_dir.hpp"

namespace tessera::dse {

struct Progress {
  size_t total = 0;      // points in the sweep
  size_t skipped = 0;    // finished by an earlier run
  size_t done = 0;       // finished by this run (failed included)
  size_t failed = 0;     // of done
  double elapsed_s = 0;  // since this run started
  double points_per_minute() const { return elapsed_s > 0 ? 60.0 * done / elapsed_s : 0; }
  // Seconds left at this run's rate; negative when nothing has finished yet.
  double left_s() const;
};

struct RunOptions {
  bool force = false;         // discard a different sweep's results in the run directory
  bool retry_failed = false;  // run failed points again instead of keeping their reasons
  unsigned threads = 0;       // 0: all hardware threads
  // Called by record() on the thread that records the point (any of run_local's, its caller
  // included; in an MPI run, run_mpi's caller on rank 0) with the session's lock held: one call at
  // a time, in order of `done`. It must not call record(), progress() or write_results() (the lock
  // is not recursive), and should be quick (recording waits for it).
  std::function<void(const Progress&)> progress;  // after each point; may be empty
};

class SweepSession {
 public:
  // Errors: the sweep's own (check_sweep) and the run directory's (RunDir::open, finished()).
  static Result<std::unique_ptr<SweepSession>> start(const SweepSpec& spec,
                                                     const Registry& registry,
                                                     const std::filesystem::path& dir,
                                                     const RunOptions& options);

  // Unchanged after start: read them from any thread.
  const SweepSpec& spec() const { return spec_; }
  const std::vector<Point>& todo() const { return todo_; }
  // Thread-safe. Writes the point and the result tables, then reports progress; an error writing
  // them (disk full) is returned and should stop the run.
  Status record(PointResult result);
  // The tables from the finished points, for a run with nothing left to do.
  Status write_results() const;
  // Thread-safe (locked, like record() and write_results()).
  Progress progress() const;
  // Not locked: read it only when no record() can run (after run_local returns).
  const PointResults& results() const { return results_; }

 private:
  SweepSession(const SweepSpec& spec, RunDir run, const RunOptions& options)
      : spec_(spec), run_(std::move(run)), options_(options) {}
  Progress snapshot() const;  // the caller holds mutex_

  SweepSpec spec_;
  RunDir run_;
  RunOptions options_;
  std::vector<Point> todo_;
  PointResults results_;
  size_t total_ = 0, skipped_ = 0, done_ = 0, failed_ = 0;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
  mutable std::mutex mutex_;
};

// Evaluates the session's points on this machine, up to `threads` at once (0: as many as
// std::thread::hardware_concurrency()). Errors: with nothing to do, write_results()'s. A record()
// error is not returned but thrown, as a Failure (oneTBB rethrows it on the calling thread once
// the points in flight end).
Status run_local(SweepSession& session, const Registry& registry, driver::OpPlanCache& cache,
                 unsigned threads);

}  // namespace tessera::dse
