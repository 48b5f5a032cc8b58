// Deliberately broken plugins (built by tests/abi/CMakeLists.txt from broken/broken_plugin.cpp) are
// refused by the host, each with its own message naming the plugin, the file and the fix, and the
// process survives every one of them. (The plugins that kill the process that loads them are
// tested through `tessera conformance` and `tessera targets`, which load them in a child.)
// `control` is the same code without a fault, so each refusal is caused by its one fault and not by
// the harness.
#include <gtest/gtest.h>

#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

#include "framework/plugin/library.hpp"
#include "framework/plugin/manifest.hpp"
#include "framework/plugin/objects.hpp"
#include "framework/plugin/registry.hpp"

namespace tessera {
namespace {

namespace fs = std::filesystem;

const fs::path kDir = TESSERA_BROKEN_PLUGIN_DIR;

std::string manifest_of(const std::string& plugin) {
  return (kDir / (plugin + ".plugin.yaml")).string();
}
std::string library_of(const std::string& plugin) {
  return (kDir / (plugin + ".so")).string();
}

// Where the host refuses a plugin.
enum class Stage { load, create };

struct Case {
  std::string plugin;
  Stage stage;
  std::vector<std::string> expected;  // substrings of the message, in order
  StatusCode code = StatusCode::failed_precondition;
};

void PrintTo(const Case& c, std::ostream* os) {
  *os << c.plugin;
}

// The host's answer for `c`: the load error, or (when it loads) the create_topology error.
Error refusal(const Case& c) {
  auto manifest = read_manifest(manifest_of(c.plugin));
  if (!manifest) return manifest.error();
  auto library = PluginLibrary::load(*manifest);
  if (!library) return library.error();
  EXPECT_EQ(c.stage, Stage::create) << "loaded, but the fault should have stopped the load";
  auto topology = create_topology(*library, ParamList{});
  if (!topology) return topology.error();
  ADD_FAILURE() << "a topology was created";
  return Error{};
}

class Refused : public testing::TestWithParam<Case> {};

TEST_P(Refused, WithItsOwnMessage) {
  const Case& c = GetParam();
  Error e = refusal(c);
  EXPECT_EQ(e.kind, ErrorKind::plugin) << e.message;
  EXPECT_STREQ(to_string(e.code), to_string(c.code)) << e.message;
  size_t at = 0;
  for (const auto& part : c.expected) {
    size_t found = e.message.find(part, at);
    ASSERT_NE(found, std::string::npos) << "missing \"" << part << "\" in: " << e.message;
    at = found + part.size();
  }
}

std::string who(const std::string& plugin) {
  return "plugin '" + plugin + "' ('" + library_of(plugin) + "'): ";
}

const std::vector<Case> kCases = {
    {"manifest_abi_2",
     Stage::load,
     {"plugin 'manifest_abi_2' ('" + manifest_of("manifest_abi_2") + "') uses plugin ABI 2." +
      std::to_string(TESSERA_ABI_MINOR) + ", but this host speaks ABI 1." +
      std::to_string(TESSERA_ABI_MINOR) + ": rebuild the plugin against TesseraSDK 1.x"}},
    {"manifest_abi_1_9",
     Stage::load,
     {who("manifest_abi_1_9") + "descriptor reports ABI 1." + std::to_string(TESSERA_ABI_MINOR) +
      ", but the manifest '" + manifest_of("manifest_abi_1_9") +
      "' says 1.9; regenerate the manifest with tessera_add_plugin"}},
    {"no_integrity",
     Stage::load,
     {"plugin 'no_integrity': library '" + library_of("no_integrity") +
      "' cannot be verified: its manifest '" + manifest_of("no_integrity") +
      "' records no library_size and library_sha256; regenerate the manifest with "
      "tessera_add_plugin"}},
    {"missing_dependency",
     Stage::load,
     {"plugin 'missing_dependency': cannot load '" + library_of("missing_dependency") +
      "': libabi_broken_dependency.so: cannot open shared object file: No such file or "
      "directory"}},
    {"wrong_platform",
     Stage::load,
     {"plugin 'wrong_platform' ('" + manifest_of("wrong_platform") +
      "') is built for platform 'plan9-mips', but this host is '" + host_platform() +
      "': install the plugin built for " + host_platform()}},
    {"no_entry_point",
     Stage::load,
     {"plugin 'no_entry_point': '" + library_of("no_entry_point") +
      "' does not export 'tessera_plugin_query' (build it with tessera_add_plugin and "
      "TESSERA_DEFINE_PLUGIN)"}},
    {"query_returns_null",
     Stage::load,
     {"plugin 'query_returns_null': tessera_plugin_query returned NULL for ABI 1." +
      std::to_string(TESSERA_ABI_MINOR) +
      " (the plugin "
      "cannot serve this host; rebuild it against this SDK)"}},
    {"descriptor_abi_2",
     Stage::load,
     {who("descriptor_abi_2") + "descriptor reports ABI major 2, the host asked for 1"}},
    {"short_descriptor",
     Stage::load,
     {who("short_descriptor") + "descriptor is too short: struct_size " +
      std::to_string(offsetof(tessera_plugin_descriptor, reserved)) + ", ABI 1.0 needs at least " +
      std::to_string(sizeof(tessera_plugin_descriptor)) + " bytes"}},
    {"null_constructor",
     Stage::load,
     {who("null_constructor") +
      "the manifest says it provides topology, but the descriptor's create_topology is NULL"}},
    {"name_differs",
     Stage::load,
     {who("name_differs") + "descriptor name 'someone_else' disagrees with the manifest '" +
      manifest_of("name_differs") +
      "' (name 'name_differs'); regenerate the manifest with tessera_add_plugin"}},
    {"version_differs",
     Stage::load,
     {who("version_differs") + "descriptor version '2.0.0' disagrees with the manifest '" +
      manifest_of("version_differs") + "' (version '1.0.0')"}},
    {"unlisted_interface",
     Stage::load,
     {who("unlisted_interface") + "the descriptor provides cost_model, but the manifest '" +
      manifest_of("unlisted_interface") + "' does not list it under 'provides'"}},
    {"throwing_constructor",
     Stage::create,
     {"plugin 'throwing_constructor': create_topology threw an exception across the C ABI (the "
      "topology constructor exploded); a plugin must return a status (the SDK trampolines do "
      "this)"},
     StatusCode::internal},
    {"no_object",
     Stage::create,
     {"plugin 'no_object': create_topology returned OK but no object"},
     StatusCode::internal},
    {"short_object",
     Stage::create,
     {"plugin 'short_object': the topology object is malformed: struct_size " +
      std::to_string(offsetof(tessera_topology, get_info)) + " (ABI 1.0 needs " +
      std::to_string(sizeof(tessera_topology)) + "), release NULL"},
     StatusCode::internal},
};

// A named function, not a lambda: gtest's macro already has a parameter called `info`.
std::string plugin_name(const testing::TestParamInfo<Case>& param) {
  return param.param.plugin;
}

INSTANTIATE_TEST_SUITE_P(Broken, Refused, testing::ValuesIn(kCases), plugin_name);

TEST(Broken, NoManifestIsRefusedBeforeLoading) {
  Registry registry = Registry::discover({kDir});
  auto manifest = registry.resolve(library_of("no_manifest"));
  ASSERT_FALSE(manifest);
  EXPECT_EQ(manifest.error().message,
            "plugin '" + library_of("no_manifest") + "' has no manifest: expected '" +
                manifest_of("no_manifest") + "' beside it (tessera_add_plugin generates it)");
}

TEST(Broken, ControlLoadsAndItsConstructorReportsAStatus) {
  auto manifest = read_manifest(manifest_of("control"));
  ASSERT_TRUE(manifest) << manifest.error().message;
  auto library = PluginLibrary::load(*manifest);
  ASSERT_TRUE(library) << library.error().message;
  auto topology = create_topology(*library, ParamList{});
  ASSERT_FALSE(topology);
  EXPECT_STREQ(to_string(topology.error().code), "UNIMPLEMENTED");
  EXPECT_EQ(topology.error().message,
            "plugin 'control': create_topology: a broken test plugin builds nothing");
}

TEST(Broken, TheHostStillWorksAfterEveryRefusal) {
  for (const Case& c : kCases) (void)refusal(c);
  for (int round = 0; round < 2; ++round) {
    auto library = PluginLibrary::load(*read_manifest(manifest_of("control")));
    ASSERT_TRUE(library) << library.error().message;
    EXPECT_STREQ(library.value()->descriptor().name, "control");
  }
}

}  // namespace
}  // namespace tessera
