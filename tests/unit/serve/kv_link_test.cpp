// KV links (kv_link.hpp): the shipped presets as their files state them, a user's file, and each
// bad value named with its file, line and key.
#include "framework/serve/kv_link.hpp"

#include <gtest/gtest.h>

#include <fstream>

#include "tests/unit/temp_dir.hpp"

namespace tessera::serve {
namespace {

TEST(KvLink, PresetsReadAsTheirFilesStateThem) {
  KvLink gbe = read_kv_link("100gbe").take();
  EXPECT_EQ(gbe.name, "100gbe");
  EXPECT_DOUBLE_EQ(gbe.bytes_per_s, 12.5e9);
  EXPECT_DOUBLE_EQ(gbe.latency_s, 1e-6);
  ASSERT_TRUE(gbe.j_per_byte.has_value());
  EXPECT_NEAR(*gbe.j_per_byte, 25e-12, 1e-24);
  EXPECT_NEAR(gbe.transfer_s(12.5e6), 1e-3 + 1e-6, 1e-15);
  KvLink pcie = read_kv_link("pcie4-x16").take();
  EXPECT_DOUBLE_EQ(pcie.bytes_per_s, 31.5e9);
  EXPECT_FALSE(pcie.j_per_byte.has_value());
  EXPECT_DOUBLE_EQ(read_kv_link("400gbe").take().bytes_per_s, 50e9);
}

using testing::TempDir;

std::string written(const TempDir& dir, const std::string& text) {
  const auto file = dir.path() / "link.yaml";
  std::ofstream(file) << text;
  return file.string();
}

TEST(KvLink, BadFilesSayWhereAndWhat) {
  TempDir dir;
  std::string file = written(dir, "bytes_per_s: 1e9\nlatency_s: -1\n");
  EXPECT_EQ(read_kv_link(file).error().message,
            file + ":2: 'latency_s': expected a number >= 0 (seconds), got '-1'");
  file = written(dir, "latency_s: 0\n");
  EXPECT_EQ(read_kv_link(file).error().message, file + ":1: missing required key 'bytes_per_s'");
  file = written(dir, "bytes_per_s: fast\nlatency_s: 0\n");
  EXPECT_EQ(read_kv_link(file).error().message,
            file + ":1: 'bytes_per_s': expected a number > 0 (bytes per second), got 'fast'");
  EXPECT_EQ(read_kv_link(written(dir, "bytes_per_s: 2e9\nlatency_s: 0\n")).take().name, "link");
}

}  // namespace
}  // namespace tessera::serve
