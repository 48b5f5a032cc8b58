// The controller's policies: queues, write draining, forwarding, refresh, dual issue, starvation
// cap, and channels modelled one at a time.
#include <gtest/gtest.h>

#include <map>
#include <tessera/sdk/error.hpp>

#include "test_support.hpp"

namespace tessera::hbm {
namespace {

using testing::config_with;
using testing::device_from_file;
using testing::device_from_text;

CompletionSink keep_into(std::vector<tessera_memory_completion>& out) {
  return [&out](const tessera_memory_completion& c) { out.push_back(c); };
}

TEST(Controller, AFullQueueRefusesAndAcceptsAgainLater) {
  auto device = device_from_file("hbm2_8gb_x128.ini");
  MemorySystem system(device, 1);
  // Channel 0, one row: 32 reads fill the read queue (trans_queue_size 32).
  for (uint64_t i = 0; i < 32; ++i) EXPECT_TRUE(system.submit(i, i * 64 % 2048, false));
  EXPECT_FALSE(system.submit(99, 0, false));
  EXPECT_TRUE(system.submit(100, 0x800, false));  // another channel has room
  std::vector<tessera_memory_completion> done;
  system.advance(10, keep_into(done));
  EXPECT_TRUE(system.submit(99, 0, false));
}

TEST(Controller, EveryWriteIsEventuallyWrittenAndEveryReadAnswered) {
  auto device = device_from_file("hbm3e_8hi.ini");
  MemorySystem system(device, 1);
  testing::Run r = testing::run_on(
      system, {.random = true, .rate_per_cycle = 0.5, .seed = 11, .write_fraction = 0.5}, 20000);
  std::vector<tessera_memory_completion> rest;
  system.advance(20000, keep_into(rest));  // nothing new arrives: the buffers drain
  EXPECT_EQ(r.finished.size() + rest.size(), r.offered);
  const ChannelStats total = system.total();
  EXPECT_EQ(total.reads_done + total.writes_done, r.offered);
  EXPECT_EQ(total.write_cmds, total.writes_done);
  EXPECT_GT(total.writes_done, r.offered / 3);
}

TEST(Controller, AReadOfABufferedWriteIsAnsweredFromTheBuffer) {
  auto device = device_from_file("hbm2_8gb_x128.ini");
  MemorySystem system(device, 1);
  ASSERT_TRUE(system.submit(1, 0x1000, true));
  ASSERT_TRUE(system.submit(2, 0x1000, false));
  std::vector<tessera_memory_completion> done;
  // The lone write stays buffered until the channel has been idle for 250 cycles.
  system.advance(400, keep_into(done));
  ASSERT_EQ(done.size(), 2u);
  EXPECT_EQ(done[0].id, 2u);
  EXPECT_EQ(done[0].done_cycle, 1u);
  EXPECT_EQ(system.total().forwarded_reads, 1u);
  EXPECT_EQ(system.total().read_cmds, 0u);
}

// DRAMsim3's thresholds (src/controller.cc): the write buffer drains when full, or when it holds
// more than 8 writes and the command queues are empty; 8 or fewer wait, here until the channel has
// been idle for 250 cycles (DRAMsim3 keeps them for ever).
TEST(Controller, TheWriteBufferDrainsAtDramsim3sThresholds) {
  auto device = device_from_file("hbm2_8gb_x128.ini");
  auto written_after = [&](uint64_t writes, uint64_t cycles) {
    MemorySystem system(device, 1);
    for (uint64_t i = 0; i < writes; ++i) EXPECT_TRUE(system.submit(i, i * 64, true));
    std::vector<tessera_memory_completion> done;
    system.advance(cycles, keep_into(done));
    return system.total().write_cmds;
  };
  EXPECT_EQ(written_after(9, 200), 9u);
  EXPECT_EQ(written_after(8, 240), 0u);
  EXPECT_EQ(written_after(8, 400), 8u);
}

TEST(Controller, RefreshesEveryRankOncePerInterval) {
  auto device = device_from_file("hbm3e_8hi.ini");  // 2 ranks x 32 channels
  MemorySystem system(device, 1);
  std::vector<tessera_memory_completion> done;
  // Rank 0 is due at 0.5, 1.5, ... tREFI (staggered), rank 1 at 1, 2, ... tREFI.
  system.advance(10 * uint64_t{device->timing.refresh_interval} + 100, keep_into(done));
  EXPECT_EQ(system.total().refreshes, 10u * 2 * 32);
  // Idle: refresh is the only energy beside standby.
  const ChannelStats t = system.total();
  EXPECT_DOUBLE_EQ(t.energy_pj(), t.refresh_pj + t.standby_pj);
}

TEST(Controller, PerBankRefreshVisitsOneBankPerInterval) {
  auto device =
      device_from_text(config_with("hbm2_8gb_x128.ini", "refresh_policy", "BANK_LEVEL_STAGGERED"));
  MemorySystem system(device, 1);
  std::vector<tessera_memory_completion> done;
  system.advance(128 * 100 + 64, keep_into(done));  // tREFIb = 128: due at 128, 256, ...
  const ChannelStats t = system.total();
  EXPECT_EQ(t.refreshes, 0u);
  EXPECT_EQ(t.bank_refreshes, 100u * 8);
}

TEST(Controller, HbmIssuesARowAndAColumnCommandInOneCycleOthersDoNot) {
  auto stream_dual_issues = [](const std::shared_ptr<const Device>& device) {
    return testing::run_fresh(device, {.random = true, .seed = 4}, 5000).total.dual_issues;
  };
  EXPECT_GT(stream_dual_issues(device_from_file("hbm2_8gb_x128.ini")), 500u);
  EXPECT_EQ(stream_dual_issues(
                device_from_text(config_with("hbm2_8gb_x128.ini", "hbm_dual_cmd", "false"))),
            0u);
  EXPECT_EQ(stream_dual_issues(
                device_from_text(config_with("hbm2_8gb_x128.ini", "protocol", "HBM2") + "\n")),
            stream_dual_issues(device_from_file("hbm2_8gb_x128.ini")));
}

TEST(Controller, ARowMissWaitsForAtMostSixteenHitsToItsBank) {
  auto device = device_from_file("hbm2_8gb_x128.ini");
  MemorySystem system(device, 1);
  const uint64_t row = 0x40000;  // bank 0 of channel 0, next row
  std::vector<tessera_memory_completion> done;
  // One read opens row 0, a read of row 1 arrives, then a long run of row-0 hits keeps coming.
  ASSERT_TRUE(system.submit(0, 0, false));
  ASSERT_TRUE(system.submit(1, row, false));
  uint64_t id = 2;
  for (int cycle = 0; cycle < 400; ++cycle) {
    if (system.submit(id, (id % 32) * 64, false)) ++id;
    system.advance(1, keep_into(done));
  }
  auto miss = std::find_if(done.begin(), done.end(), [](const auto& c) { return c.id == 1; });
  ASSERT_NE(miss, done.end());
  // DRAMsim3 would let the hits go on as long as they come (each pushes the precharge out by
  // tRTP); here at most 16 hits, then PRE, tRP, tRCD, CL, burst.
  EXPECT_LT(miss->done_cycle - miss->issue_cycle, 100u);
  EXPECT_GT(id, 150u);
}

TEST(Controller, ChannelsModelledOneAtATimeMatchTheWholeSystem) {
  auto device = device_from_file("hbm2_8gb_x128.ini");
  const uint64_t cycles = 6000;
  MemorySystem whole(device, 1);
  testing::Run r =
      testing::run_on(whole, {.random = true, .seed = 8, .write_fraction = 0.3}, cycles);

  // The same requests, routed to single-channel systems at the cycles they are offered.
  std::vector<std::unique_ptr<MemorySystem>> slices;
  for (uint32_t ch = 0; ch < 8; ++ch)
    slices.push_back(std::make_unique<MemorySystem>(device, 1, ch));
  RandomSource b(whole.address_map().capacity_bytes(), 64, 0.3, 0.0, 8);
  std::vector<tessera_memory_completion> ignored;
  uint64_t id = 0;
  drive_requests(b, cycles, [&](const TrafficRequest& req, uint64_t cycle) {
    MemorySystem& s = *slices[whole.address_map().locate(req.address).channel];
    if (cycle > s.now()) s.advance(cycle - s.now(), keep_into(ignored));
    return s.submit(id++, req.address, req.is_write);
  });
  for (uint32_t ch = 0; ch < 8; ++ch) {
    MemorySystem& s = *slices[ch];
    s.advance(cycles - s.now(), keep_into(ignored));
    const ChannelStats one = s.total(), part = r.channels[ch];
    EXPECT_EQ(one.reads_done, part.reads_done) << ch;
    EXPECT_EQ(one.writes_done, part.writes_done) << ch;
    EXPECT_EQ(one.activates, part.activates) << ch;
    EXPECT_EQ(one.row_hits(), part.row_hits()) << ch;
    EXPECT_EQ(one.read_latency_sum_cycles, part.read_latency_sum_cycles) << ch;
    EXPECT_DOUBLE_EQ(one.energy_pj(), part.energy_pj()) << ch;
    EXPECT_EQ(s.info().channels, 1u);
  }
  EXPECT_THROW(slices[0]->submit(1, 0x800, false), sdk::Error);
  EXPECT_THROW(MemorySystem(device, 1, 8), sdk::Error);
}

}  // namespace
}  // namespace tessera::hbm
