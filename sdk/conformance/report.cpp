#include "sdk/conformance/report.hpp"

#include <iostream>

#include "sdk/conformance/records.hpp"

namespace tessera::conformance {

namespace {

std::string full_name(const testing::TestInfo& info) {
  return std::string(info.test_suite_name()) + "." + info.name();
}

std::string milliseconds(const testing::TestInfo& info) {
  return " (" + std::to_string(info.result()->elapsed_time()) + " ms)";
}

int count(const int (&counts)[5], Outcome o) {
  return counts[static_cast<int>(o)];
}

}  // namespace

const Manifest* ResultPrinter::manifest_of(const testing::TestInfo& info) const {
  return plugin_label(info) == state_->label && state_->manifest ? &*state_->manifest : nullptr;
}

void ResultPrinter::OnTestIterationStart(const testing::UnitTest& unit, int) {
  std::cout << "[==========] Running " << unit.test_to_run_count() << " tests from "
            << unit.test_suite_to_run_count() << " test suites.\n";
}

void ResultPrinter::OnTestStart(const testing::TestInfo& info) {
  std::cout << "[ RUN      ] " << full_name(info) << "\n";
  // Flushed before the test runs: if it crashes the child, its output so far is not lost.
  std::cout.flush();
  reporter_.send({record::kStart, kit_test_name(info)});
}

void ResultPrinter::OnTestPartResult(const testing::TestPartResult& result) {
  if (result.type() == testing::TestPartResult::kSuccess) return;
  if (result.file_name() != nullptr)
    std::cout << result.file_name() << ":" << result.line_number() << ": ";
  std::cout << (result.skipped() ? "Skipped" : "Failure") << "\n" << result.message() << "\n";
}

std::string ResultPrinter::verdict(const testing::TestInfo& info, Outcome outcome) const {
  const Manifest* manifest = manifest_of(info);
  const TestEntry* entry =
      manifest != nullptr ? find_entry(manifest->expected_failures, kit_test_name(info)) : nullptr;
  std::string where =
      entry == nullptr ? "" : manifest->file.string() + ":" + std::to_string(entry->line);
  switch (outcome) {
    case Outcome::passed:
      return "[       OK ] " + full_name(info) + milliseconds(info);
    case Outcome::skipped:
      return "[  SKIPPED ] " + full_name(info) + milliseconds(info);
    case Outcome::failed: {
      std::string param =
          info.value_param() ? std::string(", where GetParam() = ") + info.value_param() : "";
      return "[  FAILED  ] " + full_name(info) + param + milliseconds(info);
    }
    case Outcome::expected_failure:
      return "[    XFAIL ] " + full_name(info) + milliseconds(info) +
             ": failed as expected (expected_failures, " + where + ")";
    case Outcome::unexpected_pass:
      return "[    XPASS ] " + full_name(info) + milliseconds(info) +
             ": UNEXPECTED PASS: the test passes but " + where +
             " lists it in expected_failures; remove that entry";
  }
  return "";
}

void ResultPrinter::OnTestEnd(const testing::TestInfo& info) {
  Outcome outcome = classify(info, manifest_of(info));
  ++counts_[static_cast<int>(outcome)];
  if (outcome == Outcome::failed) failures_.push_back("[  FAILED  ] " + full_name(info));
  if (outcome == Outcome::unexpected_pass) failures_.push_back("[    XPASS ] " + full_name(info));
  std::cout << verdict(info, outcome) << "\n";
  reporter_.send({record::kEnd, plugin_label(info), std::to_string(static_cast<int>(outcome))});
}

void ResultPrinter::OnTestIterationEnd(const testing::UnitTest& unit, int) {
  std::cout << "[==========] " << unit.test_to_run_count() << " tests ran. (" << unit.elapsed_time()
            << " ms total)\n"
            << "[  PASSED  ] " << count(counts_, Outcome::passed) << " tests.\n";
  if (int skipped = count(counts_, Outcome::skipped))
    std::cout << "[  SKIPPED ] " << skipped << " tests.\n";
  if (int xfail = count(counts_, Outcome::expected_failure))
    std::cout << "[    XFAIL ] " << xfail << " tests failed as expected.\n";
  if (!failures_.empty()) {
    std::cout << "[  FAILED  ] " << failures_.size() << " tests, listed below:\n";
    for (const auto& f : failures_) std::cout << f << "\n";
  }
}

}  // namespace tessera::conformance
