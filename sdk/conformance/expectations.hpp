// What a plugin's manifest says about the kit's tests (docs/plugin-authoring.md): tests listed as
// `unsupported` are skipped, naming the manifest line; tests listed as `expected_failures` run,
// and their failure is expected while a pass is an unexpected pass that fails the run. Both lists
// name tests as Suite.Test: gtest's name without the instantiation and the plugin.
#pragma once

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "framework/plugin/manifest.hpp"

namespace tessera::conformance {

// "CostModelContract.InfoIsSane" for Plugins/CostModelContract.InfoIsSane/tree_simd.
std::string kit_test_name(const testing::TestInfo& info);
// The label of the plugin the test was instantiated for (PluginState::label); "" for a test of
// no plugin (a vendor's own test in the same program).
std::string plugin_label(const testing::TestInfo& info);

const TestEntry* find_entry(const std::vector<TestEntry>& entries, const std::string& test);

// Every test of the kit by kit_test_name, as registered (call after InitGoogleTest).
std::set<std::string> kit_tests();

// Why `manifest`'s lists cannot be used with this kit, naming the manifest's line, or "": a test
// the kit does not have, or a Load test, which every other test depends on.
std::string check_entries(const Manifest& manifest, const std::set<std::string>& tests);

enum class Outcome { passed, failed, skipped, expected_failure, unexpected_pass };

// A finished test's outcome under `manifest`'s expected_failures (none when NULL).
Outcome classify(const testing::TestInfo& info, const Manifest* manifest);

}  // namespace tessera::conformance
