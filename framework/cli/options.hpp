// Options every subcommand shares, and the mapping of errors to exit codes (docs/cli.md).
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "framework/common/status.hpp"
#include "framework/driver/choices.hpp"
#include "framework/plugin/registry.hpp"

namespace tessera::cli {

enum ExitCode : int {
  kExitOk = 0,
  kExitCheckFailed = 1,  // the job ran and found failures (e.g. conformance tests failed)
  kExitUsage = 2,        // bad command line
  kExitInput = 3,        // a file or value the user gave is wrong
  kExitPlugin = 4,       // a plugin cannot be found, loaded or used
  kExitInternal = 5,     // a bug in Tessera
};

int exit_code(ErrorKind kind);

struct GlobalOptions {
  std::vector<std::string> plugin_paths;
  std::string log_level = "warn";
  int verbose = 0;
  bool force = false;  // allow overwriting outputs

  Registry registry() const;
};

// --target and --chip, the same on every command that works on a chip. With `required` false the
// pair is optional (`inspect`), and --chip needs --target.
void add_chip_options(CLI::App* cmd, driver::ChipChoice& choice, bool required = true);

// A subcommand's action; returns an exit code or throws Failure.
using Action = std::function<int()>;

void add_targets_command(CLI::App& app, const GlobalOptions& global, Action& action);
void add_topology_command(CLI::App& app, const GlobalOptions& global, Action& action);
void add_conformance_command(CLI::App& app, const GlobalOptions& global, Action& action);
void add_layout_command(CLI::App& app, const GlobalOptions& global, Action& action);
void add_memsim_command(CLI::App& app, const GlobalOptions& global, Action& action);
void add_inspect_command(CLI::App& app, const GlobalOptions& global, Action& action);
void add_map_command(CLI::App& app, const GlobalOptions& global, Action& action);
void add_compile_command(CLI::App& app, const GlobalOptions& global, Action& action);
void add_simulate_command(CLI::App& app, const GlobalOptions& global, Action& action);
void add_sweep_command(CLI::App& app, const GlobalOptions& global, Action& action);
void add_plot_command(CLI::App& app, const GlobalOptions& global, Action& action);
void add_serve_command(CLI::App& app, const GlobalOptions& global, Action& action);

}  // namespace tessera::cli
