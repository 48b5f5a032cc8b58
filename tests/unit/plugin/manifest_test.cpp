#include "framework/plugin/manifest.hpp"

#include <gtest/gtest.h>

#include "tests/unit/temp_dir.hpp"

namespace tessera {
namespace {

using testing::TempDir;

const char* kGood = R"(name: demo_chip
version: "1.2.3"
description: "A demo"
aliases: [demo]
library: demo_chip.so
abi: {major: 1, minor: 0}
platform: linux-x86_64
provides: [topology, cost_model]
default_chip: "demo-1"
chips: "demo_chip.chips"
)";

TEST(Manifest, ReadsEveryField) {
  TempDir dir;
  auto m = read_manifest(dir.write("demo_chip.plugin.yaml", kGood));
  ASSERT_TRUE(m.ok()) << m.error().message;
  EXPECT_EQ(m->name, "demo_chip");
  EXPECT_EQ(m->version, "1.2.3");
  EXPECT_EQ(m->aliases, std::vector<std::string>{"demo"});
  EXPECT_EQ(m->library, dir.path() / "demo_chip.so");
  EXPECT_EQ(m->abi_major, 1u);
  EXPECT_TRUE(m->provides_interface(Interface::topology));
  EXPECT_TRUE(m->provides_interface(Interface::cost_model));
  EXPECT_FALSE(m->provides_interface(Interface::memory_model));
  EXPECT_EQ(m->default_chip, "demo-1");
  EXPECT_EQ(m->chips_dir, dir.path() / "demo_chip.chips");
}

TEST(Manifest, UnknownInterfaceIsNamedWithTheValidOnes) {
  TempDir dir;
  std::string text = kGood;
  text.replace(text.find("cost_model]"), 11, "cost_modle]");
  auto m = read_manifest(dir.write("x.plugin.yaml", text));
  ASSERT_FALSE(m.ok());
  EXPECT_NE(m.error().message.find(":8: 'provides[1]': unknown interface 'cost_modle'; valid: "
                                   "topology, cost_model"),
            std::string::npos)
      << m.error().message;
}

TEST(Manifest, BadNameIsRejected) {
  TempDir dir;
  std::string text = kGood;
  text.replace(0, 15, "name: Demo-Chip");
  auto m = read_manifest(dir.write("x.plugin.yaml", text));
  ASSERT_FALSE(m.ok());
  EXPECT_NE(m.error().message.find("plugin names use only a-z, 0-9 and _, got 'Demo-Chip'"),
            std::string::npos)
      << m.error().message;
}

TEST(Manifest, MissingAbiIsAnError) {
  TempDir dir;
  std::string text = kGood;
  text.erase(text.find("abi:"), std::string("abi: {major: 1, minor: 0}\n").size());
  auto m = read_manifest(dir.write("x.plugin.yaml", text));
  ASSERT_FALSE(m.ok());
  EXPECT_NE(m.error().message.find("missing required key 'abi'"), std::string::npos);
}

// kGood (10 lines) followed by `extra`, parsed as x.plugin.yaml: the error message, or "".
std::string conformance_error(const std::string& extra) {
  auto m = parse_manifest(std::string(kGood) + extra, "x.plugin.yaml");
  return m ? "" : m.error().message;
}

TEST(Manifest, ReadsTheConformanceKeys) {
  auto m = parse_manifest(
      std::string(kGood) +
          "unsupported: [TopologyContract.LevelsAreConsistent]\n"
          "expected_failures:\n"
          "  - CostModelContract.InfoIsSane\n"
          "  - Errors.ConstructorsRejectNullOut\n"
          "conformance:\n"
          "  layouts:\n"
          "    - {shape: 100x100, text: \"((4_A:1, 25_Addr:25), (4_B:1, 25_Addr:1))\"}\n"
          "  malformed_layouts: [{shape: 8, text: \"((4_A\"}]\n",
      "x.plugin.yaml");
  ASSERT_TRUE(m.ok()) << m.error().message;
  ASSERT_EQ(m->unsupported.size(), 1u);
  EXPECT_EQ(m->unsupported[0].test, "TopologyContract.LevelsAreConsistent");
  EXPECT_EQ(m->unsupported[0].line, 11);
  ASSERT_EQ(m->expected_failures.size(), 2u);
  EXPECT_EQ(m->expected_failures[1].test, "Errors.ConstructorsRejectNullOut");
  EXPECT_EQ(m->expected_failures[1].line, 14);
  ASSERT_EQ(m->conformance_layouts.size(), 1u);
  EXPECT_EQ(m->conformance_layouts[0].text, "((4_A:1, 25_Addr:25), (4_B:1, 25_Addr:1))");
  EXPECT_EQ(m->conformance_layouts[0].shape, (std::vector<uint64_t>{100, 100}));
  EXPECT_EQ(m->conformance_layouts[0].line, 17);
  ASSERT_EQ(m->conformance_malformed_layouts.size(), 1u);
  EXPECT_EQ(m->conformance_malformed_layouts[0].shape, std::vector<uint64_t>{8});
}

TEST(Manifest, TheConformanceKeysAreOptionalAndMayBeEmpty) {
  for (const char* extra : {"", "unsupported: []\nexpected_failures:\nconformance:\n",
                            "conformance:\n  layouts:\n  malformed_layouts: []\n"}) {
    auto m = parse_manifest(std::string(kGood) + extra, "x.plugin.yaml");
    ASSERT_TRUE(m.ok()) << m.error().message;
    EXPECT_TRUE(m->unsupported.empty());
    EXPECT_TRUE(m->expected_failures.empty());
    EXPECT_TRUE(m->conformance_layouts.empty());
    EXPECT_TRUE(m->conformance_malformed_layouts.empty());
  }
}

TEST(Manifest, ConformanceTestNamesAreSuiteDotTestOncePerList) {
  EXPECT_EQ(conformance_error("unsupported: [CostModelContract]\n"),
            "x.plugin.yaml:11: 'unsupported[0]': expected a conformance test as Suite.Test (e.g. "
            "CostModelContract.InfoIsSane), got 'CostModelContract'");
  EXPECT_EQ(conformance_error("expected_failures: [\"Plugins/Abi.Query/x\"]\n"),
            "x.plugin.yaml:11: 'expected_failures[0]': expected a conformance test as Suite.Test "
            "(e.g. CostModelContract.InfoIsSane), got 'Plugins/Abi.Query/x'");
  EXPECT_EQ(conformance_error("unsupported:\n  - A.B\n  - A.B\n"),
            "x.plugin.yaml:13: 'unsupported[1]': 'A.B' is listed twice (also on line 12)");
}

TEST(Manifest, ATestIsEitherUnsupportedOrExpectedToFail) {
  EXPECT_EQ(conformance_error("unsupported: [A.B]\nexpected_failures: [C.D, A.B]\n"),
            "x.plugin.yaml:12: 'expected_failures[1]': 'A.B' is also listed as unsupported (line "
            "11); a test is either skipped or expected to fail");
}

TEST(Manifest, SampleLayoutsNeedAShapeAndAText) {
  EXPECT_EQ(conformance_error("conformance: {layouts: [{shape: 100x, text: \"(x)\"}]}\n"),
            "x.plugin.yaml:11: 'conformance.layouts[0].shape': expected the tensor's extents like "
            "100x100, got '100x'");
  EXPECT_EQ(conformance_error("conformance: {layouts: [{shape: 0x4, text: \"(x)\"}]}\n"),
            "x.plugin.yaml:11: 'conformance.layouts[0].shape': expected the tensor's extents like "
            "100x100, got '0x4'");
  EXPECT_EQ(conformance_error("conformance:\n  layouts:\n    - {shape: 4}\n"),
            "x.plugin.yaml:13: 'conformance.layouts[0]': missing required key 'text'");
  EXPECT_EQ(conformance_error("conformance: {layout: []}\n"),
            "x.plugin.yaml:11: 'conformance.layout': unknown key 'layout' (did you mean "
            "'layouts'?); valid keys: layouts, malformed_layouts");
  EXPECT_EQ(conformance_error("conformance: {layouts: [\"((4_A:1))\"]}\n"),
            "x.plugin.yaml:11: 'conformance.layouts[0]': expected {shape: 100x100, text: "
            "\"LAYOUT\"}");
}

// What tessera_add_plugin appends after the link (TesseraPluginManifest.cmake).
constexpr const char* kDigest = "9F86D081884C7D659A2FEAA0C55AD015A3BF4F1B2B0B822CD15D6C15B0F00A08";

TEST(Manifest, ReadsTheLibrarySizeAndDigestInLowerCase) {
  auto m = parse_manifest(
      std::string(kGood) + "library_size: 12345\nlibrary_sha256: \"" + kDigest + "\"\n",
      "x.plugin.yaml");
  ASSERT_TRUE(m.ok()) << m.error().message;
  EXPECT_EQ(m->library_size, 12345u);
  EXPECT_EQ(m->library_sha256, "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08");
}

TEST(Manifest, WithoutSizeAndDigestTheManifestReadsButRecordsNone) {
  auto m = parse_manifest(kGood, "x.plugin.yaml");
  ASSERT_TRUE(m.ok()) << m.error().message;
  EXPECT_FALSE(m->library_size);
  EXPECT_EQ(m->library_sha256, "");
}

TEST(Manifest, SizeAndDigestGoTogetherAndMustBeWellFormed) {
  EXPECT_EQ(conformance_error("library_size: 10\n"),
            "x.plugin.yaml:1: missing required key 'library_sha256'");
  EXPECT_EQ(conformance_error("library_size: 10\nlibrary_sha256: abc\n"),
            "x.plugin.yaml:12: 'library_sha256': expected a SHA-256 as 64 hex digits, got 'abc'");
  EXPECT_EQ(
      conformance_error("library_size: 0\nlibrary_sha256: \"" + std::string(kDigest) + "\"\n"),
      "x.plugin.yaml:11: 'library_size': must be in [1, 9223372036854775807], got 0");
}

}  // namespace
}  // namespace tessera
