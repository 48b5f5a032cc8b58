// The kit's output in the child process that tests one plugin, in place of gtest's printer:
// gtest's lines for each test, with expected failures and unexpected passes (the manifest's
// `expected_failures`) told apart from plain failures. It also reports each test's start and
// outcome to the parent (records.hpp), which prints the summary line (summary.hpp).
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "framework/plugin/child_process.hpp"
#include "sdk/conformance/expectations.hpp"
#include "sdk/conformance/plugin_under_test.hpp"

namespace tessera::conformance {

class ResultPrinter : public testing::EmptyTestEventListener {
 public:
  ResultPrinter(std::shared_ptr<const PluginState> state, const ChildReporter& reporter)
      : state_(std::move(state)), reporter_(reporter) {}

  void OnTestIterationStart(const testing::UnitTest& unit, int iteration) override;
  void OnTestStart(const testing::TestInfo& info) override;
  void OnTestPartResult(const testing::TestPartResult& result) override;
  void OnTestEnd(const testing::TestInfo& info) override;
  void OnTestIterationEnd(const testing::UnitTest& unit, int iteration) override;

  // No test failed or passed unexpectedly.
  bool all_passed() const { return failures_.empty(); }

 private:
  // The plugin's manifest for a test of the plugin, NULL for a test of the program's own.
  const Manifest* manifest_of(const testing::TestInfo& info) const;
  // What OnTestEnd prints after the test's name for `outcome`.
  std::string verdict(const testing::TestInfo& info, Outcome outcome) const;

  std::shared_ptr<const PluginState> state_;
  const ChildReporter& reporter_;
  int counts_[5] = {};                 // by Outcome
  std::vector<std::string> failures_;  // "[  FAILED  ] name" lines for the end
};

}  // namespace tessera::conformance
