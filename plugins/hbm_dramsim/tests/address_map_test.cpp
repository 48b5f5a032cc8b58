#include "address_map.hpp"

#include <gtest/gtest.h>

#include <tessera/sdk/error.hpp>

#include "test_support.hpp"

namespace tessera::hbm {
namespace {

using testing::device_from_file;

// DRAMsim3's address mapping (docs/memory.md): with `rorabgbachco` on HBM2_8Gb the 64 B requests
// of one row are columns [6,11), then the channel [11,14), bank [14,16), bank group [16,18), and
// the row above.
TEST(AddressMap, Hbm2FieldsSitWhereDramsim3PutsThem) {
  auto device = device_from_file("hbm2_8gb_x128.ini");
  AddressMap map(device->config, 1);
  EXPECT_EQ(map.locate(0x40).column, 1u);
  EXPECT_EQ(map.locate(0x7c0).column, 31u);
  EXPECT_EQ(map.locate(0x800).channel, 1u);
  EXPECT_EQ(map.locate(0x800).column, 0u);
  EXPECT_EQ(map.locate(0x4000).bank, 1u);
  EXPECT_EQ(map.locate(0x10000).bankgroup, 1u);
  EXPECT_EQ(map.locate(0x40000).row, 1u);
  EXPECT_EQ(map.locate(0x40000).bank, 0u);
  EXPECT_EQ(map.locate(0x12345).line, 0x12345u / 64);
  EXPECT_EQ(map.capacity_bytes(), uint64_t{8} << 30);
  EXPECT_EQ(map.total_channels(), 8u);
}

// channel_of decodes only the channel (the front end's per-request question); it must be
// locate()'s, on every config and stack count, for addresses across the whole capacity.
TEST(AddressMap, ChannelOfIsLocatesChannel) {
  for (const char* ini :
       {"hbm2_8gb_x128.ini", "hbm_4gb_x128.ini", "hbm3_6400.ini", "hbm3e_8hi.ini"})
    for (uint32_t stacks : {1u, 2u, 4u}) {
      auto device = device_from_file(ini);
      AddressMap map(device->config, stacks);
      uint64_t address = 0x9E3779B97F4A7C15ull;
      for (int i = 0; i < 20000; ++i) {
        address = address * 6364136223846793005ull + 1442695040888963407ull;
        uint64_t a = (address >> 7) % map.capacity_bytes();
        ASSERT_EQ(map.channel_of(a), map.locate(a).channel) << ini << " x" << stacks << " " << a;
      }
    }
}

TEST(AddressMap, StacksInterleaveByChannelUnit) {
  auto device = device_from_file("hbm2_8gb_x128.ini");
  AddressMap map(device->config, 2);
  // One unit = the 2 KiB that one channel takes before the next: units alternate stacks.
  EXPECT_EQ(map.locate(0).channel, 0u);
  EXPECT_EQ(map.locate(0x800).channel, 8u);   // stack 1, channel 0
  EXPECT_EQ(map.locate(0x1000).channel, 1u);  // stack 0, its second unit
  EXPECT_EQ(map.locate(0x1840).channel, 9u);
  EXPECT_EQ(map.locate(0x1840).column, 1u);
  EXPECT_EQ(map.capacity_bytes(), uint64_t{16} << 30);
  EXPECT_EQ(map.total_channels(), 16u);
}

TEST(AddressMap, AddressesWrapAtTheCapacity) {
  auto device = device_from_file("hbm2_8gb_x128.ini");
  AddressMap map(device->config, 1);
  const Location a = map.locate(0x40), b = map.locate((uint64_t{8} << 30) + 0x40);
  EXPECT_EQ(a.line, b.line);
  EXPECT_EQ(a.channel, b.channel);
  EXPECT_EQ(a.column, b.column);
}

TEST(AddressMap, ChannelBitsAtTheBottomSpreadEveryRequest) {
  // HBM3E: rorabacobgch, 32 B requests: the channel changes every request, then the bank group.
  auto device = device_from_file("hbm3e_8hi.ini");
  AddressMap map(device->config, 1);
  EXPECT_EQ(map.locate(32).channel, 1u);
  EXPECT_EQ(map.locate(32 * 31).channel, 31u);
  EXPECT_EQ(map.locate(32 * 32).channel, 0u);
  EXPECT_EQ(map.locate(32 * 32).bankgroup, 1u);
  EXPECT_EQ(map.locate(32 * 128).column, 1u);
  // 24576 rows: the last byte is in the last row, and nothing maps beyond it.
  EXPECT_EQ(map.locate(map.capacity_bytes() - 1).row, 24575u);
  EXPECT_EQ(map.capacity_bytes(), uint64_t{24} << 30);
}

TEST(AddressMap, RefusesZeroStacksAndOversizedSystems) {
  auto device = device_from_file("hbm3e_8hi.ini");
  EXPECT_THROW(AddressMap(device->config, 0), sdk::Error);
  try {
    AddressMap(device->config, 1u << 30);
    FAIL() << "expected an error";
  } catch (const sdk::Error& e) {
    EXPECT_STREQ(e.what(), "1073741824 stacks of 24576 MiB exceed the 2^62-byte address space");
  }
}

}  // namespace
}  // namespace tessera::hbm
