// `tessera sweep`: a design-space sweep (framework/dse/) on this machine's threads, or across MPI
// ranks, into a resumable run directory.
#include <fmt/format.h>
#include <unistd.h>

#include <iostream>
#include <memory>
#include <set>

#include "framework/cli/number_checks.hpp"
#include "framework/cli/options.hpp"
#include "framework/cli/output.hpp"
#include "framework/common/user_text.hpp"
#include "framework/dse/mpi_runner.hpp"
#include "framework/dse/point_setup.hpp"
#include "framework/dse/points.hpp"
#include "framework/dse/serve_goal.hpp"
#include "framework/dse/sweep_run.hpp"
#include "framework/report/approximation_report.hpp"

namespace tessera::cli {

namespace {

struct SweepOptions {
  std::string file;
  std::string output;
  bool force = false;
  bool retry_failed = false;
  bool mpi = false;
  bool list = false;
  unsigned threads = 0;
};

std::string duration(double seconds) {
  if (seconds < 0) return "?";
  auto s = static_cast<long>(seconds + 0.5);
  if (s >= 3600) return fmt::format("{}h{:02}m", s / 3600, s / 60 % 60);
  if (s >= 60) return fmt::format("{}m{:02}s", s / 60, s % 60);
  return fmt::format("{}s", s);
}

std::string points(size_t n) {
  return fmt::format("{} point{}", n, n == 1 ? "" : "s");
}

std::string progress_line(const dse::Progress& p) {
  constexpr size_t kWidth = 24;
  size_t finished = p.skipped + p.done;
  size_t filled = p.total ? kWidth * finished / p.total : kWidth;
  std::string line = "[" + std::string(filled, '#') + std::string(kWidth - filled, '-') + "] " +
                     fmt::format("{}/{} points", finished, p.total);
  if (p.failed) line += fmt::format(" · {} failed", p.failed);
  return line +
         fmt::format(" · {:.1f} points/min · {} left", p.points_per_minute(), duration(p.left_s()));
}

// On a terminal one line rewritten in place; with -v and no terminal, a line per point.
std::function<void(const dse::Progress&)> sweep_progress_printer(bool verbose) {
  bool tty = isatty(STDERR_FILENO) != 0;
  if (!tty && !verbose) return {};
  return [tty](const dse::Progress& p) {
    bool last = p.skipped + p.done >= p.total;
    if (tty)
      std::cerr << "\r\033[K" << progress_line(p) << (last ? "\n" : "") << std::flush;
    else
      std::cerr << progress_line(p) << "\n";
  };
}

// One line per chip of the sweep whose file states an approximation, as `tessera compile` says it:
// its rows' figures are approximate (their approximation column says by how much, too).
std::string approximation_lines(const dse::PointResults& results) {
  std::set<std::string> said;
  std::string out;
  for (const auto& [index, r] : results)
    if (said.insert(r.chip + "\n" + r.approximation).second)
      out += approximation_line(r.chip, r.approximation);
  return out;
}

std::string summary(const dse::SweepSession& session, const std::string& run_dir) {
  dse::Progress p = session.progress();
  std::string out =
      fmt::format("sweep {}: {} — {} run now in {}, {} from an earlier run", session.spec().name,
                  points(p.total), p.done, duration(p.elapsed_s), p.skipped);
  size_t failed = 0;
  std::string reasons;
  for (const auto& [index, r] : session.results()) {
    if (r.ok) continue;
    if (++failed <= 5)
      reasons += fmt::format("  point {} failed: {}\n", index, printable(r.reason, 1000));
  }
  out += fmt::format("; {} failed\n", failed) + reasons;
  if (failed > 5)
    out += fmt::format("  ... and {} more (reason column of results.csv)\n", failed - 5);
  out += approximation_lines(session.results());
  if (session.spec().kind == dse::SweepKind::serve)
    return out + fmt::format("wrote {0}/results.csv, {0}/results.json\n", run_dir) +
           (session.spec().goal ? dse::goal_text(session.spec(), session.results()) : "");
  return out +
         fmt::format("wrote {0}/results.csv, {0}/results.json; plot: tessera plot {0}\n", run_dir);
}

int list_points(const dse::SweepSpec& spec) {
  auto all = dse::enumerate_points(spec);
  std::cout << fmt::format("sweep {}: {}\n", spec.name, points(all.size()));
  for (const auto& point : all) {
    std::string line = fmt::format("{:>6}", point.index);
    for (size_t a = 0; a < spec.axes.size(); ++a)
      line += fmt::format("  {}={}", spec.axes[a].path, point.values[a]);
    std::cout << line << "\n";
  }
  return kExitOk;
}

int run_sweep(const GlobalOptions& global, const SweepOptions& o) {
  if (is_stdout(o.output))
    throw Failure(usage_error("-o names the run directory; '-' (standard output) is not one"));
  dse::SweepSpec spec = dse::read_sweep(o.file).take();
  if (o.list) {  // the points a run would take: refused for the same reasons
    PluginSet plugins(global.registry());
    dse::check_sweep(spec, plugins).take();
    return list_points(spec);
  }
  std::string run_dir = o.output.empty() ? "sweep-runs/" + spec.name : o.output;
  dse::RunOptions options;
  options.force = o.force || global.force;
  options.retry_failed = o.retry_failed;
  options.threads = o.threads;
  options.progress = sweep_progress_printer(global.verbose > 0);
  Registry registry = global.registry();
  std::unique_ptr<dse::SweepSession> session;
  auto start = [&]() -> Result<std::unique_ptr<dse::SweepSession>> {
    auto s = dse::SweepSession::start(spec, registry, run_dir, options);
    if (!s) return s.error();
    std::cerr << fmt::format("sweep {}: {}, {} to run, {} already in {}\n", spec.name,
                             points((*s)->progress().total), (*s)->todo().size(),
                             (*s)->progress().skipped, run_dir);
    return s;
  };
  if (o.mpi || dse::launched_by_mpi()) {
    if (!dse::mpi_built()) throw Failure(usage_error(dse::mpi_missing_message()));
    auto owned = [&]() -> Result<dse::SweepSession*> {
      auto s = start();
      if (!s) return s.error();
      session = std::move(*s);
      return session.get();
    };
    auto run = dse::run_mpi(owned, registry, o.threads).take();
    if (run.root) std::cout << summary(*session, run_dir);
    return kExitOk;
  }
  session = start().take();
  driver::OpPlanCache cache;
  dse::run_local(*session, registry, cache, o.threads).take();
  std::cout << summary(*session, run_dir);
  if (spec.kind == dse::SweepKind::compile)
    std::cout << fmt::format("per-op plans: searched {} times, reused {} times\n", cache.misses(),
                             cache.hits());
  return kExitOk;
}

}  // namespace

void add_sweep_command(CLI::App& app, const GlobalOptions& global, Action& action) {
  auto o = std::make_shared<SweepOptions>();
  CLI::App* cmd = app.add_subcommand(
      "sweep",
      "Explore a design space: every point of a sweep file compiled (each design) and simulated, "
      "into a resumable run directory (results.csv, results.json); across ranks with mpirun");
  cmd->add_option("FILE", o->file, "Sweep file (configs/sweeps/*.yaml)")->required();
  cmd->add_option("-o,--output", o->output, "Run directory (default: sweep-runs/NAME)")
      ->type_name("DIR");
  cmd->add_flag("--force", o->force,
                "Discard the results of a different sweep in the run directory");
  cmd->add_flag("--retry-failed", o->retry_failed, "Run failed points again");
  cmd->add_flag(
      "--mpi", o->mpi,
      "Spread points over MPI ranks (implied under mpirun): mpirun -np N tessera sweep FILE");
  cmd->add_flag("--list", o->list, "Print the points and stop");
  cmd->add_option("--threads", o->threads, "Worker threads per process (default: all)")
      ->check(bounded("sweep", "--threads"));
  cmd->callback([&global, &action, o] { action = [&global, o] { return run_sweep(global, *o); }; });
}

}  // namespace tessera::cli
