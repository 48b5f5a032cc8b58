// `tessera conformance` and the kit's run(): resolves and loads the plugins, checks what their
// manifests say about the tests, hands them to GoogleTest, and prints one summary line per plugin.
// Runs once per process: gtest registers parameterised tests only on its first InitGoogleTest.
#include <cctype>
#include <iostream>
#include <set>
#include <tessera/conformance.hpp>

#include "framework/plugin/registry.hpp"
#include "sdk/conformance/expectations.hpp"
#include "sdk/conformance/plugin_under_test.hpp"
#include "sdk/conformance/report.hpp"
#include "sdk/conformance/suites.hpp"

namespace tessera::conformance {

namespace {

// gtest accepts only [A-Za-z0-9_] in a parameter's name.
std::string sanitize(const std::string& text) {
  std::string out;
  for (char c : text) out += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  return out.empty() ? "plugin" : out;
}

std::shared_ptr<PluginState> failed(std::string target, std::string error) {
  auto state = std::make_shared<PluginState>();
  state->target = std::move(target);
  state->error = std::move(error);
  return state;
}

std::shared_ptr<PluginState> load(const Registry& registry, const std::string& target) {
  auto manifest = registry.resolve(target);
  if (!manifest) return failed(target, manifest.error().message);
  auto state = failed(target, "");
  state->manifest = *manifest;
  auto library = PluginLibrary::load(*manifest);
  if (library)
    state->library = *library;
  else
    state->error = library.error().message;
  return state;
}

// Every target given, then (for --all) every manifest on the search path, unreadable ones too: a
// plugin that cannot be found or loaded must fail the run, not vanish from it.
std::vector<std::shared_ptr<PluginState>> load_all(const Options& options) {
  Registry registry = Registry::discover(plugin_search_dirs(options.plugin_dirs));
  std::vector<std::shared_ptr<PluginState>> states;
  for (const auto& target : options.plugins) states.push_back(load(registry, target));
  if (options.all) {
    for (const auto& m : registry.manifests()) states.push_back(load(registry, m.file.string()));
    for (const auto& b : registry.broken()) states.push_back(failed(b.file.string(), b.reason));
  }
  std::set<std::string> labels;
  for (auto& s : states) {
    std::string base = s->manifest ? s->manifest->name
                                   : sanitize(std::filesystem::path(s->target).filename().string());
    s->label = base;
    for (int n = 2; !labels.insert(s->label).second; ++n) s->label = base + "_" + std::to_string(n);
  }
  return states;
}

// A manifest whose lists name tests the kit does not have makes its plugin untestable: the lists
// would silently skip or excuse nothing. Needs the registered tests, so after InitGoogleTest.
void check_manifest_entries(const std::vector<std::shared_ptr<PluginState>>& states) {
  const std::set<std::string> tests = kit_tests();
  for (const auto& s : states)
    if (s->manifest && s->error.empty()) s->error = check_entries(*s->manifest, tests);
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

  std::vector<std::shared_ptr<PluginState>> states = load_all(options);
  if (states.empty()) {
    std::cerr << "conformance: no plugins to test: give --plugin NAME|PATH or --all (searched: ";
    for (const auto& d : plugin_search_dirs(options.plugin_dirs)) std::cerr << d.string() << " ";
    std::cerr << ")\n";
    return 1;
  }
  plugins().clear();
  for (const auto& s : states) plugins().push_back(PluginParam{s});

  init_googletest(options.gtest_args);
  check_manifest_entries(states);

  // The kit prints its own results: gtest's printer would count expected failures as failures.
  testing::TestEventListeners& listeners = testing::UnitTest::GetInstance()->listeners();
  delete listeners.Release(listeners.default_result_printer());
  auto* printer = new ResultPrinter(states);  // owned by gtest's listener list
  listeners.Append(printer);
  // gtest's verdict counts expected failures as failures; the printer's does not.
  [[maybe_unused]] const int gtest_verdict = RUN_ALL_TESTS();
  printer->print_summary();

  bool all_tested = true;
  for (const auto& s : states) all_tested = all_tested && s->library != nullptr && s->error.empty();
  // A failure outside any test (a global set-up) belongs to no plugin but fails the run.
  bool outside = testing::UnitTest::GetInstance()->ad_hoc_test_result().Failed();
  return printer->all_passed() && all_tested && !outside ? 0 : 1;
}

}  // namespace tessera::conformance
