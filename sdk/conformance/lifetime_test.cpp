// Lifetime: objects are created and released many times, from many threads, and the library can be
// unloaded and loaded again. Leaks and use-after-free show up when the suite runs under ASan.
#include <mutex>
#include <thread>

#include "sdk/conformance/plugin_under_test.hpp"
#include "sdk/conformance/suites.hpp"

namespace tessera::conformance {

void link_lifetime_suite() {}

namespace {

constexpr int kCycles = 1000;
constexpr int kThreads = 4, kCyclesPerThread = 25;

// Creates and releases an object of `i` (default chip parameters) `cycles` times; "" when every
// cycle worked, else the first failure.
std::string create_release(const PluginLibrary& library, Interface i, int cycles) {
  auto params = default_params(library.manifest(), i);
  if (!params) return params.error().message;
  std::string problem;
  visit_interface(i, [&](auto tag) {
    using CApi = typename decltype(tag)::Type;
    for (int n = 0; n < cycles && problem.empty(); ++n) {
      auto object = create_raw<CApi>(library, *params);
      if (!object) problem = "cycle " + std::to_string(n) + ": " + object.error().message;
    }
  });
  return problem;
}

class Lifetime : public PluginTest {};

TEST_P(Lifetime, CreatesAndReleasesEachObject1000Times) {
  for (Interface i : provided())
    EXPECT_EQ(create_release(library(), i, kCycles), "") << to_string(i);
}

TEST_P(Lifetime, CreatesAndReleasesFromManyThreads) {
  // Constructors are [concurrent]: distinct objects built at once must not share mutable state.
  for (Interface i : provided()) {
    std::mutex mutex;
    std::vector<std::string> problems;
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t)
      threads.emplace_back([&] {
        std::string problem = create_release(library(), i, kCyclesPerThread);
        std::lock_guard lock(mutex);
        if (!problem.empty()) problems.push_back(problem);
      });
    for (auto& t : threads) t.join();
    EXPECT_TRUE(problems.empty()) << to_string(i) << ": " << problems.front();
  }
}

TEST_P(Lifetime, UnloadsAndReloads) {
  // Twice: the second load must not depend on state the first unload left behind.
  for (int round = 1; round <= 2; ++round) {
    SCOPED_TRACE("round " + std::to_string(round));
    std::weak_ptr<const PluginLibrary> old = state().library;
    state().library.reset();
    ASSERT_TRUE(old.expired()) << "a test or the host still holds the library";
    auto reloaded = PluginLibrary::load(manifest());
    if (!reloaded) state().error = reloaded.error().message;
    ASSERT_TRUE(reloaded) << state().error;
    state().library = *reloaded;
    EXPECT_EQ(library().query_function()(TESSERA_ABI_MAJOR, TESSERA_ABI_MINOR, host_api()),
              &descriptor());
    for (Interface i : provided()) EXPECT_EQ(create_release(library(), i, 1), "") << to_string(i);
  }
}

}  // namespace

TESSERA_INSTANTIATE_FOR_PLUGINS(Lifetime);

}  // namespace tessera::conformance
