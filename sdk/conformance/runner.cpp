// `tessera conformance`: resolves and loads the plugins, hands them to GoogleTest, and prints one
// summary line per plugin. Runs once per process: gtest registers parameterised tests only on its
// first InitGoogleTest.
#include <cctype>
#include <iostream>
#include <map>
#include <set>
#include <tessera/conformance.hpp>

#include "framework/plugin/registry.hpp"
#include "sdk/conformance/plugin_under_test.hpp"
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

struct Tally {
  int passed = 0, failed = 0, skipped = 0;
};

// Counts results per plugin: a test's name ends with "/<label>" (PluginName).
class TallyListener : public testing::EmptyTestEventListener {
 public:
  void OnTestEnd(const testing::TestInfo& info) override {
    std::string name = info.name();
    Tally& t = tallies_[name.substr(name.rfind('/') + 1)];
    if (info.result()->Skipped())
      ++t.skipped;
    else if (info.result()->Failed())
      ++t.failed;
    else
      ++t.passed;
  }
  const Tally& of(const std::string& label) { return tallies_[label]; }

 private:
  std::map<std::string, Tally> tallies_;
};

void print_summary(const std::vector<std::shared_ptr<PluginState>>& states, TallyListener& tally) {
  for (const auto& s : states) {
    const Tally& t = tally.of(s->label);
    std::cout << "conformance: "
              << (s->manifest ? s->manifest->name + " " + s->manifest->version : s->target)
              << (s->library ? "" : " (did not load)") << " \u2014 " << t.passed << " passed, "
              << t.failed << " failed, " << t.skipped << " skipped\n";
  }
}

}  // namespace

int run(const Options& options) {
  link_load_suite();
  link_lifetime_suite();
  link_errors_suite();
  link_topology_suite();

  std::vector<std::shared_ptr<PluginState>> states = load_all(options);
  if (states.empty()) {
    std::cerr << "conformance: no plugins to test: give --plugin NAME|PATH or --all (searched: ";
    for (const auto& d : plugin_search_dirs(options.plugin_dirs)) std::cerr << d.string() << " ";
    std::cerr << ")\n";
    return 1;
  }
  plugins().clear();
  for (const auto& s : states) plugins().push_back(PluginParam{s});

  // gtest evaluates the INSTANTIATE_TEST_SUITE_P generators here, so plugins() is filled first.
  std::vector<std::string> args = {"tessera conformance"};
  args.insert(args.end(), options.gtest_args.begin(), options.gtest_args.end());
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  int argc = static_cast<int>(args.size());
  testing::InitGoogleTest(&argc, argv.data());

  auto* tally = new TallyListener;  // owned by gtest's listener list
  testing::UnitTest::GetInstance()->listeners().Append(tally);
  int result = RUN_ALL_TESTS();
  print_summary(states, *tally);

  bool all_loaded = true;
  for (const auto& s : states) all_loaded = all_loaded && s->library != nullptr;
  return result == 0 && all_loaded ? 0 : 1;
}

}  // namespace tessera::conformance
