// The conformance suite as a library: `tessera conformance` and the CTest entries
// `conformance.NAME` both run it. Suites are GoogleTest value-parameterised tests, written once and
// instantiated for every plugin given, each test gated by what the plugin provides.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace tessera::conformance {

struct Options {
  std::vector<std::string> plugins;                // names, aliases or paths (.so/.plugin.yaml)
  bool all = false;                                // every plugin on the search path
  std::vector<std::filesystem::path> plugin_dirs;  // --plugin-path
  std::vector<std::string> gtest_args;             // passed through (e.g. --gtest_filter=...)
};

// Runs the suite. Returns the process exit code: 0 all passed, 1 some test failed. A plugin that
// cannot be resolved or loaded is a failed test (with the reason), not an exception.
int run(const Options& options);

}  // namespace tessera::conformance
