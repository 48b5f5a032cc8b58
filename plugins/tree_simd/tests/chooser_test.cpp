#include <gtest/gtest.h>

#include "layout_chooser.hpp"
#include "support.hpp"

namespace tessera::plugins::tree {
namespace {

constexpr const char* kFig6 = "((2_A:2, 2_B:2, 25_Addr:25), (2_A:1, 2_B:1, 25_Addr:1))";
constexpr const char* kFig7 = "((4_A:1, 25_Addr:25), (4_B:1, 25_Addr:1))";

std::vector<LayoutCandidate> choose(const std::string& pattern) {
  return choose_layouts(test::patent_chip(), {100, 100}, parse_access_pattern(pattern, 2));
}

const LayoutCandidate& find(const std::vector<LayoutCandidate>& all, const std::string& text) {
  for (const auto& c : all)
    if (c.layout->format() == text) return c;
  throw std::runtime_error("no candidate " + text);
}

std::vector<uint64_t> crossings(const LayoutCandidate& c) {
  std::vector<uint64_t> out;
  for (const auto& l : c.traffic.per_level()) out.push_back(l.crossings);
  return out;
}

// Every way to share 4 A blocks and 4 B blocks between rows and columns.
TEST(Chooser, EnumeratesEveryShareOfBothLevels) {
  EXPECT_EQ(choose("stencil3x3").size(), 9u);
}

TEST(Chooser, StencilsPickThe2DBlockedLayoutOfFig6) {
  for (const char* pattern : {"stencil3x3", "stencil5x5"}) {
    auto all = choose(pattern);
    EXPECT_EQ(all.front().layout->format(), kFig6) << pattern;
  }
  auto all = choose("stencil3x3");
  // Hand count: the A boundaries (row and column 49|50) are crossed by 596 + 596 - 4 ordered
  // neighbour pairs, the B-only boundaries by 4 x 592 - 16; each pair climbs and descends.
  EXPECT_EQ(crossings(find(all, kFig6)), (std::vector<uint64_t>{2 * 1188, 2 * (1188 + 2352)}));
  // Fig. 7 splits rows at A three times: more level-A traffic, the same level-B traffic.
  EXPECT_EQ(crossings(find(all, kFig7)), (std::vector<uint64_t>{2 * 1788, 2 * (1788 + 1752)}));
  EXPECT_LT(find(all, kFig6).seconds(), find(all, kFig7).seconds());
}

TEST(Chooser, RowStatisticsPickTheRowContiguousLayoutOfFig7) {
  auto all = choose("row-reduce");
  EXPECT_EQ(all.front().layout->format(), kFig7);
  // Each row stays in one A block: three partial sums per row cross level B only.
  EXPECT_EQ(crossings(all.front()), (std::vector<uint64_t>{0, 100 * 3 * 2}));
  // Weighted by the link cost: 600 crossings of 4 B at 32 B/ns.
  EXPECT_NEAR(all.front().traffic.per_level()[1].link_seconds, 600 * 4 / 32e9, 1e-15);
  EXPECT_NEAR(all.front().traffic.link_seconds(), 600 * 4 / 32e9, 1e-15);
  EXPECT_EQ(crossings(find(all, kFig6)), (std::vector<uint64_t>{100 * 2 * 2, 100 * 3 * 2}));
  EXPECT_LT(find(all, kFig7).seconds(), find(all, kFig6).seconds());
  // Padding costs SIMD lanes: 16 row blocks (no traffic at all) lose to Fig. 7.
  const auto& rows16 = find(all, "((4_A:1, 4_B:1, 7_Addr:100), (100_Addr:1))");
  EXPECT_EQ(rows16.traffic.crossings(), 0u);
  EXPECT_LT(all.front().seconds(), rows16.seconds());
}

TEST(Chooser, CostsAddComputeAndSpreadTraffic) {
  auto all = choose("row-reduce");
  const LayoutCandidate& fig7 = all.front();
  // 625 addresses x 1 op at 2 fp32 elements per cycle (8 B per cycle), 1 GHz.
  EXPECT_DOUBLE_EQ(fig7.compute_seconds, 625 * 0.5e-9);
  // 600 B-level crossings of 4 B, half up, half down, over 16 B links of 32 B/ns.
  EXPECT_DOUBLE_EQ(fig7.comm_seconds, 2 * (1200.0 / (16 * 32e9)));
  EXPECT_EQ(fig7.summary(), "cost 317 ns = compute 312 ns + comm 4.69 ns; crossings B 600");
}

TEST(Chooser, TooLargeTensorsAndUnknownPatternsAreErrors) {
  try {
    choose_layouts(test::patent_chip(), {1000, 1000}, parse_access_pattern("row-reduce", 2));
    FAIL();
  } catch (const sdk::Error& e) {
    EXPECT_EQ(e.code(), TESSERA_RESOURCE_EXHAUSTED);
    EXPECT_NE(std::string(e.what()).find("no layout of this tensor fits the chip's B memories"),
              std::string::npos)
        << e.what();
  }
  try {
    parse_access_pattern("stencil4x4", 2);
    FAIL();
  } catch (const sdk::Error& e) {
    EXPECT_STREQ(e.what(),
                 "unknown access pattern 'stencil4x4'; expected one of stencilKxK (odd K from 3 "
                 "to 15, e.g. stencil3x3), row-reduce, col-reduce, matmul-lhs, matmul-rhs, "
                 "elementwise");
  }
}

}  // namespace
}  // namespace tessera::plugins::tree
