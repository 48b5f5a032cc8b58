#include "framework/common/histogram.hpp"

#include <gtest/gtest.h>

#include <cstdint>

namespace tessera {
namespace {

TEST(Histogram, EmptyIsAllZero) {
  Histogram h;
  EXPECT_EQ(h.count(), 0u);
  EXPECT_EQ(h.min(), 0u);
  EXPECT_EQ(h.max(), 0u);
  EXPECT_EQ(h.percentile(0.5), 0u);
  EXPECT_DOUBLE_EQ(h.mean(), 0.0);
  EXPECT_TRUE(h.bins(10).empty());
}

// Small values are counted in a vector, huge ones in a map: percentiles, bins and merges see one
// ordered set of values either way.
TEST(Histogram, SmallAndHugeValuesKeepTheirOrder) {
  const uint64_t huge = uint64_t{1} << 40;
  Histogram h;
  h.add(300);
  h.add(7, 2);
  h.add(huge);
  h.add(70000);
  h.add(5, 0);  // nothing
  EXPECT_EQ(h.count(), 5u);
  EXPECT_EQ(h.min(), 7u);
  EXPECT_EQ(h.max(), huge);
  EXPECT_EQ(h.percentile(0.0), 7u);
  EXPECT_EQ(h.percentile(0.4), 7u);
  EXPECT_EQ(h.percentile(0.6), 300u);
  EXPECT_EQ(h.percentile(0.8), 70000u);
  EXPECT_EQ(h.percentile(1.0), huge);
  EXPECT_DOUBLE_EQ(h.mean(), (7.0 * 2 + 300 + 70000 + static_cast<double>(huge)) / 5);

  Histogram other;
  other.add(3);
  other.add(huge, 3);
  other.merge(h);
  EXPECT_EQ(other.count(), 9u);
  EXPECT_EQ(other.min(), 3u);
  EXPECT_EQ(other.percentile(0.5), 70000u);  // 3 7 7 300 70000 huge x4: the 5th of 9
}

TEST(Histogram, BinsCoverEveryValue) {
  Histogram h;
  for (uint64_t v = 100; v < 200; ++v) h.add(v);
  const auto bins = h.bins(10);
  ASSERT_EQ(bins.size(), 10u);
  EXPECT_EQ(bins.front().low, 100u);
  EXPECT_EQ(bins.back().high, 200u);
  for (const auto& b : bins) EXPECT_EQ(b.count, 10u);
}

}  // namespace
}  // namespace tessera
