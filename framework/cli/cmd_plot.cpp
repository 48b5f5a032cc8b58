// `tessera plot RUN_DIR`: the standard figures of a sweep (framework/dse/plot_sweep.py, run with
// a python3 that has matplotlib) as PNG and SVG.
#include <fmt/format.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <memory>

#include "framework/cli/options.hpp"
#include "framework/common/files.hpp"

#ifndef TESSERA_PLOT_SCRIPT
#error "TESSERA_PLOT_SCRIPT must be defined by the build"
#endif

namespace tessera::cli {

namespace {

namespace fs = std::filesystem;

struct PlotOptions {
  std::string run_dir;
  std::string output;
  std::string metric = "auto";
  std::string only;
  std::string x;
  std::string formats = "png,svg";
};

// Debian's interpreter first: a python3 earlier on PATH (a virtualenv, pyenv) rarely has
// Debian's python3-matplotlib.
std::string python() {
  if (const char* chosen = std::getenv("TESSERA_PYTHON")) return chosen;
  return fs::exists("/usr/bin/python3") ? "/usr/bin/python3" : "python3";
}

// Installed beside the binary (share/tessera), else the source tree's.
fs::path plot_script() {
  if (auto prefix = install_prefix()) {
    fs::path installed = *prefix / "share" / "tessera" / "plot_sweep.py";
    if (fs::exists(installed)) return installed;
  }
  return TESSERA_PLOT_SCRIPT;
}

// Runs argv and returns its exit status (-1: it could not be started or was killed).
int run(const std::vector<std::string>& args, bool quiet) {
  pid_t pid = fork();
  if (pid < 0) return -1;
  if (pid == 0) {
    std::vector<char*> argv;
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    if (quiet) {
      (void)!freopen("/dev/null", "w", stdout);
      (void)!freopen("/dev/null", "w", stderr);
    }
    execvp(argv[0], argv.data());
    _exit(127);
  }
  int status = 0;
  if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status)) return -1;
  return WEXITSTATUS(status);
}

int run_plot(const PlotOptions& o) {
  std::string py = python();
  if (run({py, "-c", "import matplotlib"}, true) != 0)
    throw Failure(
        input_error("tessera plot needs Python 3 with matplotlib, and '" + py +
                    "' has none: install it (Debian: apt-get install python3-matplotlib) or point "
                    "TESSERA_PYTHON at a python3 that has it"));
  fs::path script = plot_script();
  if (!fs::exists(script))
    throw Failure(input_error(script.string() + ": the plot script is missing; reinstall tessera"));
  std::vector<std::string> args = {py,       script.string(), o.run_dir, "--metric",
                                   o.metric, "--formats",     o.formats};
  if (!o.output.empty()) args.insert(args.end(), {"--out", o.output});
  if (!o.only.empty()) args.insert(args.end(), {"--only", o.only});
  if (!o.x.empty()) args.insert(args.end(), {"--x", o.x});
  std::cout.flush();
  int status = run(args, false);
  if (status == 0) return kExitOk;
  // The script has printed its one-line error already.
  return status == 1 ? kExitInput : kExitInternal;
}

}  // namespace

void add_plot_command(CLI::App& app, const GlobalOptions&, Action& action) {
  auto o = std::make_shared<PlotOptions>();
  CLI::App* cmd = app.add_subcommand(
      "plot",
      "Draw a sweep's figures (Elk Fig. 18a-24: breakdown, latency and utilisation vs HBM "
      "bandwidth, interconnect x HBM heat map, cores, FLOP/s) as PNG and SVG with matplotlib");
  cmd->add_option("RUN_DIR", o->run_dir, "Run directory of tessera sweep")->required();
  cmd->add_option("--out", o->output, "Directory for the figures (default: RUN_DIR/plots)")
      ->type_name("DIR");
  cmd->add_option("--metric", o->metric,
                  "simulated or planned figures (auto: simulated when the sweep simulated)")
      ->check(CLI::IsMember({"auto", "planned", "simulated"}))
      ->capture_default_str();
  cmd->add_option("--only", o->only, "Comma-separated plot names (default: the sweep's plots)");
  cmd->add_option("--x", o->x,
                  "The axis the energy and tokens_per_joule plots draw against (a swept path; "
                  "default: the first numeric one)");
  cmd->add_option("--formats", o->formats, "Comma-separated: png, svg")->capture_default_str();
  cmd->callback([&action, o] { action = [o] { return run_plot(*o); }; });
}

}  // namespace tessera::cli
