#include "framework/common/units.hpp"

#include <gtest/gtest.h>

namespace tessera {
namespace {

TEST(Units, BytesUseBinaryPrefixes) {
  EXPECT_EQ(format_bytes(512), "512 B");
  EXPECT_EQ(format_bytes(624 * 1024.0), "624.0 KiB");
  EXPECT_EQ(format_bytes(1499136), "1.4 MiB");
  EXPECT_EQ(format_bytes(624.0 * 1024 * 5888), "3.5 GiB");
}

TEST(Units, RatesUseDecimalPrefixes) {
  EXPECT_EQ(format_bytes_per_s(4 * 1.325e9), "5.30 GB/s");
  EXPECT_EQ(format_bytes_per_s(16e12), "16.00 TB/s");
  EXPECT_EQ(format_flops_per_s(128 * 1.325e9), "169.6 GFLOP/s");
  EXPECT_EQ(format_hz(1.325e9), "1.325 GHz");
}

TEST(Units, SecondsPickAReadableScale) {
  EXPECT_EQ(format_seconds(9e-9), "9.00 ns");
  EXPECT_EQ(format_seconds(2.5e-6), "2.50 us");
  EXPECT_EQ(format_seconds(0.0125), "12.50 ms");
  EXPECT_EQ(format_seconds(3), "3.000 s");
  EXPECT_EQ(format_seconds(0), "0 s");
}

TEST(Units, JoulesUseSiPrefixesFromFemtoToGiga) {
  EXPECT_EQ(format_joules(4.8696e-5), "48.7 uJ");
  EXPECT_EQ(format_joules(0.2849), "284.9 mJ");
  EXPECT_EQ(format_joules(2.255), "2.255 J");
  EXPECT_EQ(format_joules(0), "0 J");
  EXPECT_EQ(format_joules(3e-18), "0.003 fJ") << "below femto: still femto";
}

}  // namespace
}  // namespace tessera
