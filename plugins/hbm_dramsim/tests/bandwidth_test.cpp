// Bandwidth from first principles: what the timing parameters allow, not numbers the model printed.
#include <gtest/gtest.h>

#include "test_support.hpp"

namespace tessera::hbm {
namespace {

using testing::bandwidth;
using testing::config_with;
using testing::device_from_file;
using testing::device_from_text;
using testing::run_fresh;

double peak(const Device& d) {
  return d.config.channel_peak_bytes_per_s() * d.config.channels;
}

// `periods` refresh intervals and the last refresh itself: each rank is refreshed `periods` times
// (the first falls due at tREFI), tRFC each, and nothing else has to stop a sequential stream.
struct RefreshWindow {
  uint64_t cycles = 0;
  double expected_bytes_per_s = 0;  // peak x (1 - periods x tRFC / cycles)
};
RefreshWindow refresh_window(const Device& d, uint64_t periods) {
  const uint64_t cycles = periods * d.timing.refresh_interval + d.timing.refresh;
  return {cycles, peak(d) * (1 - static_cast<double>(periods * d.timing.refresh) / cycles)};
}

// A sequential stream stays in open rows; only refresh takes the data bus away, tRFC in every
// tREFI.
TEST(Bandwidth, AnInRowStreamReachesPeakLessRefresh) {
  auto device = device_from_file("hbm2_8gb_x128.ini");  // one rank: a refresh stops the channel
  const RefreshWindow w = refresh_window(*device, 10);  // about 238.9 GB/s
  testing::Run r = run_fresh(device, {}, w.cycles);
  EXPECT_NEAR(bandwidth(r, *device) / w.expected_bytes_per_s, 1.0, 0.03);
  EXPECT_LE(bandwidth(r, *device), w.expected_bytes_per_s);
  EXPECT_GT(static_cast<double>(r.total.row_hits()) / r.total.column_cmds(), 0.95);
}

TEST(Bandwidth, Hbm3eStreamWithRanksRefreshingTogetherReachesPeakLessRefresh) {
  auto device =
      device_from_text(config_with("hbm3e_8hi.ini", "refresh_policy", "RANK_LEVEL_SIMULTANEOUS"));
  const RefreshWindow w = refresh_window(*device, 2);  // about 1042 GB/s
  testing::Run r = run_fresh(device, {}, w.cycles);
  EXPECT_NEAR(bandwidth(r, *device) / w.expected_bytes_per_s, 1.0, 0.05);
  EXPECT_LE(bandwidth(r, *device), w.expected_bytes_per_s);
}

// Every random read opens a row; a rank takes at most 4 activates per tFAW window.
TEST(Bandwidth, RandomRowMissesAreBoundedByTheFourActivateWindow) {
  auto device = device_from_file("hbm2_8gb_x128.ini");
  testing::Run r = run_fresh(device, {.random = true}, 20000);
  const DramConfig& c = device->config;
  const double faw_s = device->timing.four_act_window * c.keys.tCK * 1e-9;
  const double bound = 4.0 * c.request_bytes / faw_s * c.ranks * c.channels;  // 68.3 GB/s
  EXPECT_LE(bandwidth(r, *device), bound);
  EXPECT_GT(bandwidth(r, *device), 0.8 * bound);  // DRAMsim3 reaches 89% of it (docs/memory.md)
  EXPECT_GT(r.total.activates, 0.99 * static_cast<double>(r.total.read_cmds));
  EXPECT_LT(r.total.row_hits(), r.total.column_cmds() / 100);
}

TEST(Bandwidth, Hbm3eRandomStaysUnderItsActivateWindows) {
  auto device = device_from_file("hbm3e_8hi.ini");
  testing::Run r = run_fresh(device, {.random = true}, 10000);
  const DramConfig& c = device->config;
  const double faw_s = device->timing.four_act_window * c.keys.tCK * 1e-9;
  EXPECT_LE(bandwidth(r, *device), 4.0 * c.request_bytes / faw_s * c.ranks * c.channels);
  EXPECT_GT(bandwidth(r, *device), 0.5 * 4.0 * c.request_bytes / faw_s * c.ranks * c.channels);
}

TEST(Bandwidth, NoConfigExceedsItsPeak) {
  for (const char* file : {"hbm2_8gb_x128.ini", "hbm3_6400.ini", "hbm3e_8hi.ini"}) {
    auto device =
        device_from_text(config_with(file, "tREFI", "1000000"));  // refresh out of the way
    testing::Run r = run_fresh(device, {}, 5000);
    EXPECT_LE(bandwidth(r, *device), peak(*device)) << file;
    EXPECT_GT(bandwidth(r, *device), 0.9 * peak(*device)) << file;
  }
}

}  // namespace
}  // namespace tessera::hbm
