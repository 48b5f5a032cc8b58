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

}  // namespace
}  // namespace tessera
