// Load and ABI: the library loads, its entry point behaves as plugin_abi.h says, and its
// descriptor agrees with the manifest the host read before loading it.
#include <cstddef>
#include <thread>

#include "sdk/conformance/plugin_under_test.hpp"
#include "sdk/conformance/suites.hpp"

namespace tessera::conformance {

void link_load_suite() {}

namespace {

// Size of the descriptor of ABI 1.0: everything up to the last constructor slot.
constexpr size_t kDescriptorSize10 =
    offsetof(tessera_plugin_descriptor, create_memory_model) + sizeof(void*);

const tessera_plugin_descriptor* query(const PluginLibrary& library, uint32_t major,
                                       uint32_t minor) {
  return library.query_function()(major, minor, host_api());
}

// Not a PluginTest: a plugin that did not load fails here instead of being skipped.
class Load : public testing::TestWithParam<PluginParam> {};

TEST_P(Load, Loads) {
  const PluginState& s = *GetParam().state;
  ASSERT_TRUE(s.library != nullptr) << s.error;
  EXPECT_TRUE(s.error.empty()) << s.error;  // e.g. its manifest lists tests the kit does not have
}

class Abi : public PluginTest {};

TEST_P(Abi, QueryReturnsTheSameDescriptorEveryTime) {
  for (int i = 0; i < 3; ++i)
    EXPECT_EQ(query(library(), TESSERA_ABI_MAJOR, TESSERA_ABI_MINOR), &descriptor());
}

TEST_P(Abi, QueryReturnsTheSameDescriptorFromManyThreads) {
  constexpr int kThreads = 8, kCalls = 200;
  std::vector<const tessera_plugin_descriptor*> seen(kThreads * kCalls);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      for (int i = 0; i < kCalls; ++i)
        seen[t * kCalls + i] = query(library(), TESSERA_ABI_MAJOR, TESSERA_ABI_MINOR);
    });
  for (auto& t : threads) t.join();
  for (const auto* d : seen) ASSERT_EQ(d, &descriptor());
}

TEST_P(Abi, QueryServesEveryMinorOfItsMajor) {
  // "same major, any minor": an older or newer host of major 1 gets the descriptor.
  EXPECT_EQ(query(library(), TESSERA_ABI_MAJOR, 0), &descriptor());
  EXPECT_EQ(query(library(), TESSERA_ABI_MAJOR, TESSERA_ABI_MINOR + 1), &descriptor());
}

TEST_P(Abi, QueryReturnsNullForOtherMajors) {
  EXPECT_EQ(query(library(), TESSERA_ABI_MAJOR + 1, 0), nullptr);
  EXPECT_EQ(query(library(), 0, 0), nullptr);
}

TEST_P(Abi, DescriptorMatchesManifest) {
  const tessera_plugin_descriptor& d = descriptor();
  EXPECT_GE(d.struct_size, kDescriptorSize10);
  EXPECT_EQ(d.abi_major, uint32_t{TESSERA_ABI_MAJOR});
  ASSERT_NE(d.name, nullptr);
  EXPECT_EQ(std::string(d.name), manifest().name);
  ASSERT_NE(d.version, nullptr);
  EXPECT_EQ(std::string(d.version), manifest().version);
  EXPECT_NE(d.description, nullptr);
  for (size_t i = 0; i < std::size(d.reserved); ++i)
    EXPECT_EQ(d.reserved[i], nullptr) << "reserved[" << i << "] must be zero";
  for (Interface i : kAllInterfaces) {
    bool in_binary = false;
    visit_interface(
        i, [&](auto tag) { in_binary = d.*Api<typename decltype(tag)::Type>::kSlot != nullptr; });
    EXPECT_EQ(in_binary, manifest().provides_interface(i)) << to_string(i);
  }
}

}  // namespace

TESSERA_INSTANTIATE_FOR_PLUGINS(Load);
TESSERA_INSTANTIATE_FOR_PLUGINS(Abi);

}  // namespace tessera::conformance
