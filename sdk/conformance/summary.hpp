// The parent's side of `tessera conformance`: what each plugin's child process reported
// (records.hpp) and how it ended, as one summary line per plugin and the run's exit code.
//   conformance: NAME VERSION — N passed, M failed, K skipped[, E failed as expected, U passed
//   unexpectedly]                       (the last two when the manifest lists expected failures;
//                                        M counts the unexpected passes)
//   conformance: NAME VERSION (not tested) — ...   its manifest names tests the kit does not have
//   conformance: NAME VERSION — did not load: REASON
//   conformance: NAME VERSION — crashed with SIGSEGV (Segmentation fault) while running
//   Suite.Test, after N passed, M failed, K skipped
#pragma once

#include <string>
#include <vector>

#include "framework/common/status.hpp"
#include "framework/plugin/child_process.hpp"
#include "sdk/conformance/plugin_under_test.hpp"

namespace tessera::conformance {

struct PluginResult {
  enum class End { tested, untested, not_loaded, died };

  std::string title;  // "NAME VERSION", or the target as given when it did not resolve
  bool lists_expected_failures = false;
  End end = End::tested;
  int counts[5] = {};           // by Outcome, of the plugin's tests
  bool other_failures = false;  // a test of the program's own, or outside any test, failed
  // not_loaded: why, and whom it blames; died: how and when ("crashed with SIGSEGV (...) while
  // running Suite.Test").
  std::string problem;
  ErrorKind problem_kind = ErrorKind::plugin;
};

// A plugin that did not resolve or load, with the reason.
PluginResult not_loaded(const PluginState& state, const Error& error);
// What the child testing `state` reported and how it ended.
PluginResult from_child(const PluginState& state, const ChildOutcome& outcome);

std::string summary_line(const PluginResult& result);

// 4 when a plugin could not be loaded or its child died, else 3 when a target was not found,
// else 1 when a test failed (or passed unexpectedly) or a plugin was not tested, else 0.
int exit_code(const std::vector<PluginResult>& results);

}  // namespace tessera::conformance
