// Derived delays and energies against hand calculations from the HBM2 config's keys.
#include "timing.hpp"

#include <gtest/gtest.h>

#include "energy.hpp"
#include "test_support.hpp"

namespace tessera::hbm {
namespace {

using testing::device_from_file;

TEST(Timing, Hbm2DelaysFollowDramsim3Relations) {
  // CL 14, CWL 4, BL4 -> burst 2, tCCD 1/2, tRTRS 2, tRPRE 1, tWTR 6/8, tWR 16, tRTP 5.
  const Timing t(device_from_file("hbm2_8gb_x128.ini")->config);
  EXPECT_EQ(t.burst, 2u);
  EXPECT_EQ(t.read_delay, 16u);  // CL + burst
  EXPECT_EQ(t.write_delay, 6u);  // CWL + burst
  EXPECT_EQ(t.rd_to_rd_l, 2u);   // max(burst, tCCD_L)
  EXPECT_EQ(t.rd_to_rd_s, 2u);   // max(burst, tCCD_S): the burst hides tCCD_S = 1
  EXPECT_EQ(t.rd_to_wr, 14u);    // RL + burst - WL + tRTRS = 14 + 2 - 4 + 2 (no tRPRE term)
  EXPECT_EQ(t.wr_to_rd_l, 14u);  // WL + burst + tWTR_L
  EXPECT_EQ(t.wr_to_rd_s, 12u);  // WL + burst + tWTR_S
  EXPECT_EQ(t.wr_to_pre, 22u);   // WL + burst + tWR
  EXPECT_EQ(t.rd_to_pre, 5u);    // AL + tRTP
  EXPECT_EQ(t.wr_to_rd_o, 0u);   // WL + burst + tRTRS - RL < 0: no constraint
  EXPECT_EQ(t.act_to_act, 48u);  // tRC = tRAS + tRP
  EXPECT_EQ(t.act_to_rd, 14u);   // HBM uses tRCDRD
  EXPECT_EQ(t.four_act_window, 30u);
  EXPECT_EQ(t.refresh, 260u);
  EXPECT_EQ(t.refresh_interval, 3900u);
  EXPECT_EQ(t.pre_to_pre, 0u);  // no tPPD on HBM
}

// DRAMsim3 spaces precharges by tPPD on GDDR and LPDDR4 only: HBM_4Gb_x128's tPPD = 5 is unused.
TEST(Timing, TppdAppliesToGddrAndLpddr4Only) {
  EXPECT_EQ(Timing(device_from_file("hbm_4gb_x128.ini")->config).pre_to_pre, 0u);
}

TEST(Energy, Hbm2PerCommandEnergiesFromIddCurrents) {
  const EnergyModel e(device_from_file("hbm2_8gb_x128.ini")->config);
  // VDD 1.2 V, one device per channel, tCK 1 ns: V x mA x ns = pJ.
  EXPECT_DOUBLE_EQ(e.act_pj, 1.2 * (65.0 * 48 - (55.0 * 34 + 40.0 * 14)));  // 828 pJ
  EXPECT_DOUBLE_EQ(e.read_pj, 1.2 * (390.0 - 55) * 2);                      // 804 pJ
  EXPECT_DOUBLE_EQ(e.write_pj, 1.2 * (500.0 - 55) * 2);
  EXPECT_DOUBLE_EQ(e.refresh_pj, 1.2 * (250.0 - 55) * 260);
  EXPECT_DOUBLE_EQ(e.refresh_bank_pj, 0.0);  // IDD5PB 5 mA < IDD3N: clamped
  EXPECT_DOUBLE_EQ(e.active_standby_pj_per_cycle, 1.2 * 55);
  EXPECT_DOUBLE_EQ(e.precharge_standby_pj_per_cycle, 1.2 * 40);
}

TEST(Energy, ScalesWithTheClockPeriod) {
  auto device = device_from_file("hbm3e_8hi.ini");
  const DramConfig& c = device->config;
  const EnergyModel e(c);
  EXPECT_NEAR(e.read_pj, 1.1 * (97.5 - 13.75) * 4 * c.keys.tCK, 1e-9);  // 80.1 pJ per 32 B
}

}  // namespace
}  // namespace tessera::hbm
