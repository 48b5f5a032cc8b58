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
  // Seconds each plugin's child process may run; past it the child is killed and the plugin
  // reported as failed (a plugin that loops forever). 0: no deadline.
  int deadline_s = 300;
};

// Runs the suites on each plugin in a child process of its own (fork), so that a plugin that
// crashes is reported, with its signal and the test it was in, and the others are still tested.
// Call it once per process, before GoogleTest is initialised: each child initialises it, and any
// other gtest test linked into the program runs in every child with the plugin's tests. Prints one
// summary line per plugin and returns the process exit code (docs/cli.md): 0 when every test
// passed or failed as its manifest expects; 4 when a plugin did not load or its child died; else 3
// when a target was not found; else 1 (a test failed or passed unexpectedly, or a manifest names
// tests the kit does not have). Never throws for a plugin's fault.
int run(const Options& options);

}  // namespace tessera::conformance
