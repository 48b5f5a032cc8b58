// `tessera conformance`: the conformance suite on one plugin, several, or all that are found.
#include <tessera/conformance.hpp>

#include "framework/cli/number_checks.hpp"
#include "framework/cli/options.hpp"

namespace tessera::cli {

void add_conformance_command(CLI::App& app, const GlobalOptions& global, Action& action) {
  auto options = std::make_shared<conformance::Options>();
  CLI::App* cmd = app.add_subcommand(
      "conformance", "Check that plugins honour the Tessera plugin ABI and interface contracts");
  auto* plugin = cmd->add_option("-p,--plugin", options->plugins,
                                 "Plugin to check: name, alias or path to NAME.so (repeatable)");
  auto* all = cmd->add_flag("--all", options->all, "Check every plugin on the search path");
  plugin->excludes(all);
  cmd->add_option("--gtest", options->gtest_args,
                  "Pass an option to GoogleTest, e.g. --gtest=--gtest_filter=*Topology*");
  cmd->add_option("--deadline", options->deadline_s,
                  "Seconds each plugin may take; past them its test process is killed and the "
                  "plugin reported as failed")
      ->capture_default_str()
      ->check(bounded("conformance", "--deadline"));
  cmd->callback([&global, &action, options] {
    if (options->plugins.empty() && !options->all)
      throw CLI::RequiredError("conformance needs --plugin NAME|PATH or --all");
    action = [&global, options] {
      options->plugin_dirs.assign(global.plugin_paths.begin(), global.plugin_paths.end());
      return conformance::run(*options);
    };
  });
}

}  // namespace tessera::cli
