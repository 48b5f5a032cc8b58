// The Tessera conformance kit: the conformance suites as a library. `tessera conformance`, the
// CTest entries `conformance.NAME` of tessera_add_plugin and a vendor's own test program
// (find_package(TesseraSDK COMPONENTS conformance), target TesseraSDK::conformance) all run it.
// Suites are GoogleTest value-parameterised tests, written once and instantiated for every plugin
// given, each test gated by what the plugin provides and by what its manifest says about the
// tests (unsupported, expected_failures: docs/plugin-authoring.md).
//
// C++17, no dependencies: a vendor's program includes only this header.
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

// Runs the suites, once per process (GoogleTest registers them on its first initialisation; other
// gtest tests linked into the program run with them). Returns the process exit code: 0 when every
// test passed or failed as its manifest expects, 1 otherwise. A plugin that cannot be resolved or
// loaded is a failed test (with the reason), not an exception.
int run(const Options& options);

}  // namespace tessera::conformance
