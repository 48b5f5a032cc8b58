// tessera: one driver for compiling, mapping and simulating on ICCA chips. Subcommands live in
// cmd_*.cpp; this file owns global options, logging and exit codes.
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <cerrno>
#include <cstring>
#include <iostream>

#include "framework/cli/options.hpp"
#include "framework/common/user_text.hpp"
#include "framework/plugin/crash_report.hpp"

#ifndef TESSERA_VERSION
#error "TESSERA_VERSION must be defined by the build"
#endif

namespace tessera::cli {

int exit_code(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::usage:
      return kExitUsage;
    case ErrorKind::input:
      return kExitInput;
    case ErrorKind::plugin:
      return kExitPlugin;
    case ErrorKind::internal:
      return kExitInternal;
  }
  return kExitInternal;
}

Registry GlobalOptions::registry() const {
  std::vector<std::filesystem::path> dirs(plugin_paths.begin(), plugin_paths.end());
  return Registry::discover(plugin_search_dirs(dirs));
}

void add_chip_options(CLI::App* cmd, driver::ChipChoice& choice, bool required) {
  CLI::Option* target =
      cmd->add_option("-t,--target", choice.target, "Target plugin: name, alias or path to NAME.so")
          ->required(required);
  cmd->add_option("--chip", choice.chip, "Chip preset name or chip file (default: the target's)")
      ->needs(target);
}

namespace {

void setup_logging(const GlobalOptions& options) {
  auto logger = spdlog::stderr_color_mt("tessera");
  logger->set_pattern("%^%l%$: %v");
  spdlog::set_default_logger(logger);
  auto level = spdlog::level::from_str(options.log_level);
  if (options.verbose == 1) level = std::min(level, spdlog::level::info);
  if (options.verbose >= 2) level = spdlog::level::debug;
  if (options.verbose >= 3) level = spdlog::level::trace;
  spdlog::set_level(level);
}

int run(int argc, char** argv) {
  CLI::App app{
      "Tessera: compile and simulate deep-learning models on inter-core-connected AI chips",
      "tessera"};
  app.set_version_flag("--version", std::string("tessera " TESSERA_VERSION " (plugin ABI ") +
                                        std::to_string(TESSERA_ABI_MAJOR) + "." +
                                        std::to_string(TESSERA_ABI_MINOR) + ", " + host_platform() +
                                        ")");
  app.require_subcommand(1);
  app.fallthrough();  // global options may follow the subcommand
  GlobalOptions global;
  app.add_option("--plugin-path", global.plugin_paths,
                 "Directory searched for NAME.plugin.yaml first (repeatable)")
      ->type_name("DIR");
  app.add_option("--log-level", global.log_level, "trace, debug, info, warn, error or off")
      ->check(CLI::IsMember({"trace", "debug", "info", "warn", "error", "off"}))
      ->capture_default_str();
  app.add_flag("-v,--verbose", global.verbose, "More log output (repeat for more)");

  Action action;
  add_targets_command(app, global, action);
  add_topology_command(app, global, action);
  add_conformance_command(app, global, action);
  add_layout_command(app, global, action);
  add_memsim_command(app, global, action);
  add_inspect_command(app, global, action);
  add_map_command(app, global, action);
  add_compile_command(app, global, action);
  add_simulate_command(app, global, action);
  add_sweep_command(app, global, action);
  add_plot_command(app, global, action);
  add_serve_command(app, global, action);

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    throw Failure(usage_error(e.what()));  // one `error:` line like every other error
  }
  setup_logging(global);
  report_plugin_crashes(kExitPlugin);
  return action();
}

}  // namespace
}  // namespace tessera::cli

namespace {

// Messages quote what users gave through user_text.hpp; escaping the whole line again keeps text
// from anywhere else (a plugin's message, an exception) from breaking the one line either.
constexpr size_t kMessageChars = 4000;

// Output the command printed but the system did not take (a full disk, a closed descriptor) is an
// error, not a success.
int finish_stdout(int code) {
  errno = 0;
  std::cout.flush();
  if (std::cout) return code;
  int err = errno;
  std::cerr << "error: cannot write to standard output"
            << (err != 0 ? std::string(": ") + std::strerror(err) : std::string()) << "\n";
  return code == tessera::cli::kExitOk ? tessera::cli::kExitInput : code;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace tessera;
  try {
    return finish_stdout(cli::run(argc, argv));
  } catch (const Failure& f) {
    std::cerr << "error: " << printable(f.error().message, kMessageChars) << "\n";
    return finish_stdout(cli::exit_code(f.error().kind));
  } catch (const std::exception& e) {
    std::cerr << "error: internal error: " << printable(e.what(), kMessageChars)
              << " (this is a bug in Tessera; please report it with the command you ran)\n";
    return cli::kExitInternal;
  }
}
