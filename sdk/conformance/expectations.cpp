#include "sdk/conformance/expectations.hpp"

#include <tessera/sdk/nearest.hpp>

namespace tessera::conformance {

namespace {

// TESSERA_INSTANTIATE_FOR_PLUGINS names its instantiation "Plugins": Plugins/Suite.Test/label.
constexpr std::string_view kInstantiation = "Plugins/";

bool is_kit_test(const testing::TestInfo& info) {
  return std::string_view(info.test_suite_name()).substr(0, kInstantiation.size()) ==
         kInstantiation;
}

std::string problem_with(const Manifest& manifest, const char* list, const TestEntry& entry,
                         const std::set<std::string>& tests) {
  std::string where = manifest.file.string() + ":" + std::to_string(entry.line) + ": " + list +
                      ": '" + entry.test + "' ";
  if (entry.test.rfind("Load.", 0) == 0)
    return where + "cannot be skipped or expected to fail: every other test depends on it";
  if (tests.count(entry.test)) return "";
  std::string near = sdk::nearest(entry.test, {tests.begin(), tests.end()});
  return where + "is not a test of this conformance kit" +
         (near.empty() ? "" : " (did you mean '" + near + "'?)");
}

}  // namespace

std::string kit_test_name(const testing::TestInfo& info) {
  std::string suite = info.test_suite_name(), name = info.name();
  if (is_kit_test(info)) suite.erase(0, kInstantiation.size());
  return suite + "." + name.substr(0, name.rfind('/'));
}

std::string plugin_label(const testing::TestInfo& info) {
  std::string name = info.name();
  return is_kit_test(info) ? name.substr(name.rfind('/') + 1) : "";
}

const TestEntry* find_entry(const std::vector<TestEntry>& entries, const std::string& test) {
  for (const TestEntry& e : entries)
    if (e.test == test) return &e;
  return nullptr;
}

std::set<std::string> kit_tests() {
  std::set<std::string> tests;
  const testing::UnitTest& unit = *testing::UnitTest::GetInstance();
  for (int i = 0; i < unit.total_test_suite_count(); ++i) {
    const testing::TestSuite& suite = *unit.GetTestSuite(i);
    for (int j = 0; j < suite.total_test_count(); ++j)
      if (is_kit_test(*suite.GetTestInfo(j))) tests.insert(kit_test_name(*suite.GetTestInfo(j)));
  }
  return tests;
}

std::string check_entries(const Manifest& manifest, const std::set<std::string>& tests) {
  for (const auto& [list, entries] : {std::pair{"unsupported", &manifest.unsupported},
                                      std::pair{"expected_failures", &manifest.expected_failures}})
    for (const TestEntry& entry : *entries)
      if (std::string problem = problem_with(manifest, list, entry, tests); !problem.empty())
        return problem;
  return "";
}

Outcome classify(const testing::TestInfo& info, const Manifest* manifest) {
  const testing::TestResult& result = *info.result();
  bool expected =
      manifest != nullptr && find_entry(manifest->expected_failures, kit_test_name(info));
  if (result.Skipped()) return Outcome::skipped;
  if (result.Failed()) return expected ? Outcome::expected_failure : Outcome::failed;
  return expected ? Outcome::unexpected_pass : Outcome::passed;
}

}  // namespace tessera::conformance
