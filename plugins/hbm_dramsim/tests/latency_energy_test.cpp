// Latency floors, energy and determinism from first principles.
#include <gtest/gtest.h>

#include <algorithm>

#include "test_support.hpp"

namespace tessera::hbm {
namespace {

using testing::config_with;
using testing::device_from_file;
using testing::device_from_text;
using testing::run_fresh;

uint64_t min_read_latency(const testing::Run& r) {
  uint64_t least = kNever;
  for (const auto& f : r.finished)
    if (!f.is_write) least = std::min(least, f.latency());
  return least;
}

// A read that must open its row waits tRCD for the activate, CL for the data, and the burst.
TEST(Latency, NoReadCompletesBeforeActivateCasAndBurst) {
  for (const char* file : {"hbm2_8gb_x128.ini", "hbm3e_8hi.ini"}) {
    // Closed page: every read activates its row.
    auto device = device_from_text(config_with(file, "row_buf_policy", "CLOSE_PAGE"));
    testing::Run r = run_fresh(device, {.random = true, .rate_per_cycle = 0.05, .seed = 3}, 20000);
    const DramKeys& k = device->config.keys;
    const uint64_t floor = k.tRCDRD + k.CL + device->timing.burst;  // 30 (HBM2), 152 (HBM3E)
    ASSERT_GT(r.finished.size(), 500u) << file;
    EXPECT_GE(min_read_latency(r), floor) << file;
    EXPECT_LE(min_read_latency(r), floor + 2) << file;  // lightly loaded: the floor is reached
    EXPECT_EQ(r.total.row_hits(), 0u) << file;
  }
}

TEST(Latency, RowHitsStillWaitForCasAndBurst) {
  auto device = device_from_file("hbm2_8gb_x128.ini");
  testing::Run r = run_fresh(device, {.rate_per_cycle = 0.02, .seed = 5}, 20000);
  ASSERT_GT(r.total.row_hits(), 300u);
  EXPECT_GE(min_read_latency(r), uint64_t(device->config.keys.CL) + device->timing.burst);
  // The very first read found every bank closed.
  EXPECT_GE(r.finished.front().latency(),
            uint64_t(device->config.keys.tRCDRD + device->config.keys.CL) + device->timing.burst);
}

// The same reads cost more energy when each opens a row: exactly one ACT+PRE energy per activate.
TEST(Energy, GrowsWithActivations) {
  auto device = device_from_file("hbm2_8gb_x128.ini");
  // One read per 50 cycles and time to finish: both runs serve exactly the same reads.
  auto finish = [&](const testing::Traffic& traffic) {
    MemorySystem system(device, 1);
    EXPECT_EQ(testing::run_on(system, traffic, 20000).offered, 400u);
    system.advance(1000, [](const tessera_memory_completion&) {});
    return system.total();
  };
  ChannelStats few = finish({.rate_per_cycle = 0.02, .seed = 9});
  ChannelStats many = finish({.random = true, .rate_per_cycle = 0.02, .seed = 9});
  ASSERT_EQ(few.read_cmds, many.read_cmds);
  EXPECT_GT(many.activates, 10 * few.activates);
  EXPECT_GT(many.energy_pj(), few.energy_pj());
  const EnergyModel e(device->config);
  const double dynamic_few = few.energy_pj() - few.standby_pj;
  const double dynamic_many = many.energy_pj() - many.standby_pj;
  EXPECT_NEAR(dynamic_many - dynamic_few,
              static_cast<double>(many.activates - few.activates) * e.act_pj, 1e-6);
  EXPECT_DOUBLE_EQ(few.act_pj, few.activates * e.act_pj);
  EXPECT_DOUBLE_EQ(few.read_pj, few.read_cmds * e.read_pj);
  EXPECT_DOUBLE_EQ(few.refresh_pj, few.refreshes * e.refresh_pj);
}

TEST(Energy, StandbyCoversEveryRankCycle) {
  auto device = device_from_file("hbm3e_8hi.ini");
  testing::Run r = run_fresh(
      device, {.random = true, .rate_per_cycle = 0.2, .seed = 2, .write_fraction = 0.3}, 10000);
  const DramConfig& c = device->config;
  EXPECT_EQ(r.total.active_cycles + r.total.precharged_cycles, 10000ull * c.ranks * c.channels);
  EXPECT_GT(r.total.active_cycles, 0u);
}

TEST(Determinism, IdenticalSeedsGiveIdenticalResults) {
  auto device = device_from_file("hbm3_6400.ini");
  auto once = [&](uint64_t seed) {
    return run_fresh(device, {.random = true, .seed = seed, .write_fraction = 0.3}, 2000);
  };
  testing::Run a = once(42), b = once(42), c = once(43);
  ASSERT_EQ(a.finished.size(), b.finished.size());
  for (size_t i = 0; i < a.finished.size(); ++i) {
    EXPECT_EQ(a.finished[i].address, b.finished[i].address);
    EXPECT_EQ(a.finished[i].done, b.finished[i].done);
  }
  EXPECT_EQ(a.total.activates, b.total.activates);
  EXPECT_DOUBLE_EQ(a.total.energy_pj(), b.total.energy_pj());
  EXPECT_NE(a.finished.front().address, c.finished.front().address);
}

}  // namespace
}  // namespace tessera::hbm
