#include "framework/plugin/registry.hpp"

#include <gtest/gtest.h>

#include "tests/unit/temp_dir.hpp"

namespace tessera {
namespace {

namespace fs = std::filesystem;
using testing::TempDir;

std::string manifest(const std::string& name, const std::string& aliases = "") {
  return "name: " + name + "\nversion: \"1.0.0\"\nlibrary: " + name +
         ".so\nabi: {major: 1, minor: 0}\nplatform: linux-x86_64\nprovides: [topology]\n" +
         "aliases: [" + aliases + "]\n";
}

class RegistryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir.write("ipu_alltoall.plugin.yaml", manifest("ipu_alltoall", "ipu"));
    dir.write("tree_simd.plugin.yaml", manifest("tree_simd"));
    dir.write("mesh_tenstorrent.plugin.yaml", manifest("mesh_tenstorrent"));
    dir.write("broken.plugin.yaml", "name: [oops\n");
    other.write("tree_simd.plugin.yaml", manifest("tree_simd"));
    registry = Registry::discover({dir.path(), other.path()});
  }
  TempDir dir, other;
  Registry registry;
};

TEST_F(RegistryTest, FindsManifestsSortedAndKeepsBrokenOnesAside) {
  ASSERT_EQ(registry.manifests().size(), 3u);
  EXPECT_EQ(registry.manifests()[0].name, "ipu_alltoall");
  EXPECT_EQ(registry.manifests()[2].name, "tree_simd");
  ASSERT_EQ(registry.broken().size(), 1u);
  EXPECT_EQ(registry.broken()[0].file.filename(), "broken.plugin.yaml");
}

TEST_F(RegistryTest, FirstDirectoryWinsAndLaterOnesAreShadowed) {
  ASSERT_EQ(registry.shadowed().size(), 1u);
  EXPECT_EQ(registry.shadowed()[0].file.parent_path(), other.path());
  EXPECT_EQ(registry.resolve("tree_simd")->file.parent_path(), dir.path());
}

TEST_F(RegistryTest, ResolvesNamesAndAliases) {
  EXPECT_EQ(registry.resolve("ipu")->name, "ipu_alltoall");
  EXPECT_EQ(registry.resolve("mesh_tenstorrent")->name, "mesh_tenstorrent");
}

TEST_F(RegistryTest, TypoSuggestsTheNearestTarget) {
  auto r = registry.resolve("tree_simdd");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().kind, ErrorKind::input);
  EXPECT_EQ(r.error().message.rfind("unknown target 'tree_simdd'; did you mean 'tree_simd'? "
                                    "Available targets: ipu_alltoall, mesh_tenstorrent, "
                                    "tree_simd. Searched: ",
                                    0),
            0u)
      << r.error().message;
}

TEST_F(RegistryTest, FarOffNameListsTargetsWithoutAGuess) {
  auto r = registry.resolve("quantum_annealer");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message.find("did you mean"), std::string::npos) << r.error().message;
}

TEST_F(RegistryTest, PathToALibraryUsesTheManifestBesideIt) {
  dir.write("ipu_alltoall.so", "not really a library");
  auto r = registry.resolve((dir.path() / "ipu_alltoall.so").string());
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->name, "ipu_alltoall");
  auto missing = registry.resolve((dir.path() / "nothing.so").string());
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().message,
            "plugin file '" + (dir.path() / "nothing.so").string() + "' does not exist");
}

TEST_F(RegistryTest, APathThatIsALoopOfLinksResolvesToTheManifestBesideIt) {
  // The library is refused when it is loaded (library_file.hpp); resolving must not throw.
  fs::create_symlink("ipu_alltoall.so", dir.path() / "ipu_alltoall.so");
  auto r = registry.resolve((dir.path() / "ipu_alltoall.so").string());
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->name, "ipu_alltoall");
}

// A broken plugin found first is the match: the command that needs it fails with the reason,
// and a later plugin of that name does not stand in for it.
TEST(RegistryBroken, ABrokenManifestFirstOnThePathIsAnErrorNotAFallBack) {
  TempDir first, later;
  first.write("tree_simd.plugin.yaml", "name: [oops\n");
  later.write("tree_simd.plugin.yaml", manifest("tree_simd"));
  Registry registry = Registry::discover({first.path(), later.path()});
  auto r = registry.resolve("tree_simd");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().kind, ErrorKind::plugin);
  const std::string file = (first.path() / "tree_simd.plugin.yaml").string();
  EXPECT_EQ(r.error().message,
            "target 'tree_simd' is broken: " + file +
                ":2:1: invalid YAML: end of sequence flow not found (it comes first on the plugin "
                "search path, so no later plugin of that name stands in for it; fix or remove it)");
  ASSERT_EQ(registry.shadowed().size(), 1u);
  EXPECT_EQ(registry.shadowed()[0].file.parent_path(), later.path());
}

TEST(RegistryBroken, ABrokenManifestAfterAGoodOneIsOnlyListed) {
  TempDir first, later;
  first.write("tree_simd.plugin.yaml", manifest("tree_simd"));
  later.write("tree_simd.plugin.yaml", "name: [oops\n");
  Registry registry = Registry::discover({first.path(), later.path()});
  ASSERT_TRUE(registry.resolve("tree_simd").ok());
  ASSERT_EQ(registry.broken().size(), 1u);
  EXPECT_EQ(registry.broken()[0].name, "tree_simd");
}

TEST(RegistryBroken, ALibraryNoManifestNamesIsABrokenPlugin) {
  TempDir dir;
  dir.write("tree_simd.plugin.yaml", manifest("tree_simd"));
  dir.write("tree_simd.so", "named by its manifest");
  dir.write("orphan.so", "no manifest names it");
  Registry registry = Registry::discover({dir.path()});
  ASSERT_EQ(registry.broken().size(), 1u);
  const std::string orphan = (dir.path() / "orphan.so").string();
  EXPECT_EQ(registry.broken()[0].name, "orphan");
  EXPECT_EQ(registry.broken()[0].reason,
            orphan +
                ": no manifest in its directory names this library (orphan.plugin.yaml is missing; "
                "tessera_add_plugin writes it beside the library)");
  auto r = registry.resolve("orphan");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message.rfind("target 'orphan' is broken: " + orphan + ": no manifest", 0),
            0u)
      << r.error().message;
}

TEST(RegistryBroken, AManifestThatIsNotARegularFileIsBrokenNotSkipped) {
  TempDir dir;
  fs::create_directory(dir.path() / "a.plugin.yaml");
  fs::create_symlink("b.plugin.yaml", dir.path() / "b.plugin.yaml");
  fs::create_symlink("gone", dir.path() / "c.plugin.yaml");
  Registry registry = Registry::discover({dir.path()});
  ASSERT_EQ(registry.broken().size(), 3u);
  std::vector<std::string> reasons;
  for (const auto& b : registry.broken()) reasons.push_back(b.reason);
  const std::string d = dir.path().string();
  EXPECT_EQ(reasons,
            (std::vector<std::string>{
                d + "/a.plugin.yaml: is a directory, not a plugin manifest",
                d + "/b.plugin.yaml: is a loop of symbolic links, not a plugin manifest",
                d + "/c.plugin.yaml: is a dangling symbolic link, not a plugin manifest"}));
}

TEST(PluginSearchDirs, CommandLineThenEnvironmentThenInstallThenBuildTree) {
  setenv("TESSERA_PLUGIN_PATH", "/opt/a:/opt/b", 1);
  auto dirs = plugin_search_dirs({"/cli/dir"});
  unsetenv("TESSERA_PLUGIN_PATH");
  ASSERT_GE(dirs.size(), 4u);
  EXPECT_EQ(dirs[0], "/cli/dir");
  EXPECT_EQ(dirs[1], "/opt/a");
  EXPECT_EQ(dirs[2], "/opt/b");
  EXPECT_EQ(dirs[3].filename(), "plugins");
}

}  // namespace
}  // namespace tessera
