#include "sdk/conformance/report.hpp"

#include <iostream>

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

const PluginState* ResultPrinter::state_of(const std::string& label) const {
  for (const auto& s : states_)
    if (s->label == label) return s.get();
  return nullptr;
}

void ResultPrinter::OnTestIterationStart(const testing::UnitTest& unit, int) {
  std::cout << "[==========] Running " << unit.test_to_run_count() << " tests from "
            << unit.test_suite_to_run_count() << " test suites.\n";
}

void ResultPrinter::OnTestStart(const testing::TestInfo& info) {
  std::cout << "[ RUN      ] " << full_name(info) << "\n";
}

void ResultPrinter::OnTestPartResult(const testing::TestPartResult& result) {
  if (result.type() == testing::TestPartResult::kSuccess) return;
  if (result.file_name() != nullptr)
    std::cout << result.file_name() << ":" << result.line_number() << ": ";
  std::cout << (result.skipped() ? "Skipped" : "Failure") << "\n" << result.message() << "\n";
}

std::string ResultPrinter::verdict(const testing::TestInfo& info, Outcome outcome) const {
  const PluginState* state = state_of(plugin_label(info));
  const TestEntry* entry = state != nullptr && state->manifest
                               ? find_entry(state->manifest->expected_failures, kit_test_name(info))
                               : nullptr;
  std::string where =
      entry == nullptr ? "" : state->manifest->file.string() + ":" + std::to_string(entry->line);
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
  const PluginState* state = state_of(plugin_label(info));
  Outcome outcome =
      classify(info, state != nullptr && state->manifest ? &*state->manifest : nullptr);
  ++tallies_[plugin_label(info)].counts[static_cast<int>(outcome)];
  ++total_.counts[static_cast<int>(outcome)];
  if (outcome == Outcome::failed) failures_.push_back("[  FAILED  ] " + full_name(info));
  if (outcome == Outcome::unexpected_pass) failures_.push_back("[    XPASS ] " + full_name(info));
  std::cout << verdict(info, outcome) << "\n";
}

void ResultPrinter::OnTestIterationEnd(const testing::UnitTest& unit, int) {
  std::cout << "[==========] " << unit.test_to_run_count() << " tests ran. (" << unit.elapsed_time()
            << " ms total)\n"
            << "[  PASSED  ] " << count(total_.counts, Outcome::passed) << " tests.\n";
  if (int skipped = count(total_.counts, Outcome::skipped))
    std::cout << "[  SKIPPED ] " << skipped << " tests.\n";
  if (int xfail = count(total_.counts, Outcome::expected_failure))
    std::cout << "[    XFAIL ] " << xfail << " tests failed as expected.\n";
  if (!failures_.empty()) {
    std::cout << "[  FAILED  ] " << failures_.size() << " tests, listed below:\n";
    for (const auto& f : failures_) std::cout << f << "\n";
  }
}

void ResultPrinter::print_summary() const {
  for (const auto& s : states_) {
    auto it = tallies_.find(s->label);
    const Tally tally = it != tallies_.end() ? it->second : Tally{};
    const auto& c = tally.counts;
    std::cout << "conformance: "
              << (s->manifest ? s->manifest->name + " " + s->manifest->version : s->target)
              << (!s->library        ? " (did not load)"
                  : s->error.empty() ? ""
                                     : " (not tested)")
              << " \u2014 " << count(c, Outcome::passed) << " passed, "
              << count(c, Outcome::failed) + count(c, Outcome::unexpected_pass) << " failed, "
              << count(c, Outcome::skipped) << " skipped";
    if (s->manifest && !s->manifest->expected_failures.empty())
      std::cout << ", " << count(c, Outcome::expected_failure) << " failed as expected, "
                << count(c, Outcome::unexpected_pass) << " passed unexpectedly";
    std::cout << "\n";
  }
}

}  // namespace tessera::conformance
