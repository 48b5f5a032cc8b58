// The kit's output, in place of gtest's printer: gtest's lines for each test, expected failures
// and unexpected passes (the manifest's `expected_failures`) told apart from plain failures, and
// one summary line per plugin:
//   conformance: NAME VERSION — N passed, M failed, K skipped[, E failed as expected, U passed
//   unexpectedly]
// (the last two when the manifest lists expected failures; M counts the unexpected passes).
#pragma once

#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "sdk/conformance/expectations.hpp"
#include "sdk/conformance/plugin_under_test.hpp"

namespace tessera::conformance {

class ResultPrinter : public testing::EmptyTestEventListener {
 public:
  explicit ResultPrinter(std::vector<std::shared_ptr<PluginState>> states)
      : states_(std::move(states)) {}

  void OnTestIterationStart(const testing::UnitTest& unit, int iteration) override;
  void OnTestStart(const testing::TestInfo& info) override;
  void OnTestPartResult(const testing::TestPartResult& result) override;
  void OnTestEnd(const testing::TestInfo& info) override;
  void OnTestIterationEnd(const testing::UnitTest& unit, int iteration) override;

  void print_summary() const;
  // No test failed or passed unexpectedly.
  bool all_passed() const { return failures_.empty(); }

 private:
  struct Tally {
    int counts[5] = {};  // by Outcome
  };
  const PluginState* state_of(const std::string& label) const;
  // What OnTestEnd prints after the test's name for `outcome`.
  std::string verdict(const testing::TestInfo& info, Outcome outcome) const;

  std::vector<std::shared_ptr<PluginState>> states_;
  std::map<std::string, Tally> tallies_;  // by plugin label
  Tally total_;
  std::vector<std::string> failures_;  // "[  FAILED  ] name" lines for the end
};

}  // namespace tessera::conformance
