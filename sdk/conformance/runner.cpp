// `tessera conformance` and the kit's run(): resolves the plugins (reading manifests, running no
// plugin code), then tests each in a child process of its own (framework/plugin/child_process.hpp)
// that loads it, checks what its manifest says about the tests, hands it to GoogleTest and reports
// every test to the parent. A plugin that crashes ends its child, not the run: the parent prints
// one summary line per plugin, saying how a child died and in which test.
// gtest registers parameterised tests only on its first InitGoogleTest, which each child makes
// (the parent never initialises gtest), so every plugin gets a fresh registry.
#include <cctype>
#include <iostream>
#include <set>
#include <tessera/conformance.hpp>

#include "framework/plugin/registry.hpp"
#include "sdk/conformance/expectations.hpp"
#include "sdk/conformance/plugin_under_test.hpp"
#include "sdk/conformance/records.hpp"
#include "sdk/conformance/report.hpp"
#include "sdk/conformance/suites.hpp"
#include "sdk/conformance/summary.hpp"

namespace tessera::conformance {

namespace {

// gtest accepts only [A-Za-z0-9_] in a parameter's name.
std::string sanitize(const std::string& text) {
  std::string out;
  for (char c : text) out += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  return out.empty() ? "plugin" : out;
}

// A plugin to test: its manifest, or why it has none.
struct Candidate {
  std::shared_ptr<PluginState> state;
  std::optional<Error> unresolved;
};

Candidate resolve(const Registry& registry, const std::string& target) {
  auto state = std::make_shared<PluginState>();
  state->target = target;
  auto manifest = registry.resolve(target);
  if (!manifest) return {state, manifest.error()};
  state->manifest = *manifest;
  return {state, std::nullopt};
}

// Every target given, then (for --all) every manifest on the search path, unreadable ones too: a
// plugin that cannot be found or loaded must fail the run, not vanish from it.
std::vector<Candidate> resolve_all(const Options& options) {
  Registry registry = Registry::discover(plugin_search_dirs(options.plugin_dirs));
  std::vector<Candidate> candidates;
  for (const auto& target : options.plugins) candidates.push_back(resolve(registry, target));
  if (options.all) {
    for (const auto& m : registry.manifests())
      candidates.push_back(resolve(registry, m.file.string()));
    for (const auto& b : registry.broken()) {
      auto state = std::make_shared<PluginState>();
      state->target = b.file.string();
      candidates.push_back({state, plugin_error(b.reason)});
    }
  }
  std::set<std::string> labels;
  for (auto& c : candidates) {
    PluginState& s = *c.state;
    std::string base = s.manifest ? s.manifest->name
                                  : sanitize(std::filesystem::path(s.target).filename().string());
    s.label = base;
    for (int n = 2; !labels.insert(s.label).second; ++n) s.label = base + "_" + std::to_string(n);
  }
  return candidates;
}

// gtest evaluates the INSTANTIATE_TEST_SUITE_P generators here, so plugins() is filled first.
void init_googletest(const std::vector<std::string>& gtest_args) {
  std::vector<std::string> args = {"tessera conformance"};
  args.insert(args.end(), gtest_args.begin(), gtest_args.end());
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  int argc = static_cast<int>(args.size());
  testing::InitGoogleTest(&argc, argv.data());
}

// The child's work: load the plugin (its initialisers run here, not in the parent), then run the
// suites on it with the kit's printer. Returns the child's exit status: 0 when every test passed
// or failed as expected.
int test_in_child(const std::shared_ptr<PluginState>& state, const Options& options,
                  const ChildReporter& reporter) {
  reporter.send({record::kLoading});
  auto library = PluginLibrary::load(*state->manifest);
  if (!library) {
    reporter.send({record::kLoadFailed, std::to_string(static_cast<int>(library.error().kind)),
                   library.error().message});
    return 1;
  }
  state->library = std::move(library).value();  // the only reference: Lifetime unloads it
  plugins() = {PluginParam{state}};
  init_googletest(options.gtest_args);
  // A manifest whose lists name tests the kit does not have makes its plugin untestable: the lists
  // would silently skip or excuse nothing. Needs the registered tests, so after InitGoogleTest.
  state->error = check_entries(*state->manifest, kit_tests());
  if (!state->error.empty()) reporter.send({record::kUntested});

  // The kit prints its own results: gtest's printer would count expected failures as failures.
  testing::TestEventListeners& listeners = testing::UnitTest::GetInstance()->listeners();
  delete listeners.Release(listeners.default_result_printer());
  auto* printer = new ResultPrinter(state, reporter);  // owned by gtest's listener list
  listeners.Append(printer);
  // gtest's verdict counts expected failures as failures; the printer's does not.
  [[maybe_unused]] const int gtest_verdict = RUN_ALL_TESTS();
  // A failure outside any test (a global set-up) belongs to no test but fails the run.
  const bool outside = testing::UnitTest::GetInstance()->ad_hoc_test_result().Failed();
  if (outside) reporter.send({record::kOutsideFailure});
  reporter.send({record::kDone});
  return printer->all_passed() && state->error.empty() && !outside ? 0 : 1;
}

PluginResult test(const Candidate& candidate, const Options& options) {
  if (candidate.unresolved) return not_loaded(*candidate.state, *candidate.unresolved);
  auto outcome = run_in_child(
      [&](const ChildReporter& reporter) {
        return test_in_child(candidate.state, options, reporter);
      },
      options.deadline_s);
  if (!outcome) return not_loaded(*candidate.state, outcome.error());
  return from_child(*candidate.state, *outcome);
}

}  // namespace

int run(const Options& options) {
  link_load_suite();
  link_lifetime_suite();
  link_errors_suite();
  link_topology_suite();
  link_cost_model_suite();
  link_partitioner_suite();
  link_layout_mapper_suite();
  link_memory_model_suite();
  link_codegen_suite();
  link_peak_suite();

  std::vector<Candidate> candidates = resolve_all(options);
  if (candidates.empty()) {
    std::cerr << "conformance: no plugins to test: give --plugin NAME|PATH or --all (searched: ";
    for (const auto& d : plugin_search_dirs(options.plugin_dirs)) std::cerr << d.string() << " ";
    std::cerr << ")\n";
    return 1;
  }
  std::vector<PluginResult> results;
  for (const auto& c : candidates) results.push_back(test(c, options));
  for (const auto& r : results) std::cout << summary_line(r) << "\n";
  return exit_code(results);
}

}  // namespace tessera::conformance
