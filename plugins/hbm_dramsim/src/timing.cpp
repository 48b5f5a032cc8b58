#include "timing.hpp"

#include <algorithm>

namespace tessera::hbm {

namespace {

// A delay that the formulas may make negative (e.g. write-to-read across ranks when RL > WL):
// no constraint at all.
uint32_t at_least_zero(int64_t cycles) {
  return static_cast<uint32_t>(std::max<int64_t>(cycles, 0));
}

}  // namespace

Timing::Timing(const DramConfig& config) {
  const DramKeys& k = config.keys;
  const int64_t b = config.burst_cycles;
  const int64_t rl = k.AL + k.CL, wl = k.AL + k.CWL;
  burst = config.burst_cycles;
  read_delay = at_least_zero(rl + b);
  write_delay = at_least_zero(wl + b);
  rd_to_rd_l = at_least_zero(std::max(b, k.tCCD_L));
  rd_to_rd_s = at_least_zero(std::max(b, k.tCCD_S));
  rd_to_rd_o = at_least_zero(b + k.tRTRS);
  // DRAMsim3's read_to_write (src/timing.cc, Timing::Timing) has no preamble term.
  rd_to_wr = at_least_zero(rl + b - wl + k.tRTRS);
  rd_to_wr_o = at_least_zero(rl + b + k.tRTRS - wl);
  rd_to_pre = at_least_zero(k.AL + k.tRTP);
  wr_to_rd_l = at_least_zero(wl + b + k.tWTR_L);
  wr_to_rd_s = at_least_zero(wl + b + k.tWTR_S);
  wr_to_rd_o = at_least_zero(wl + b + k.tRTRS - rl);
  wr_to_wr_l = at_least_zero(std::max(b, k.tCCD_L));
  wr_to_wr_s = at_least_zero(std::max(b, k.tCCD_S));
  wr_to_wr_o = at_least_zero(b);  // DRAMsim3's write_to_write_o: the burst alone
  wr_to_pre = at_least_zero(wl + b + k.tWR);
  act_to_act = at_least_zero(k.tRAS + k.tRP);
  act_to_act_l = at_least_zero(k.tRRD_L);
  act_to_act_s = at_least_zero(k.tRRD_S);
  const bool split_rcd = config.is_hbm() || config.is_gddr();
  act_to_rd = at_least_zero(split_rcd ? k.tRCDRD : k.tRCD - k.AL);
  act_to_wr = at_least_zero(split_rcd ? k.tRCDWR : k.tRCD - k.AL);
  act_to_pre = at_least_zero(k.tRAS);
  pre_to_act = at_least_zero(k.tRP);
  // DRAMsim3 spaces precharges by tPPD on GDDR and LPDDR4 only (src/timing.cc); HBM_4Gb_x128
  // sets tPPD = 5, which DRAMsim3 therefore never applies.
  const bool uses_ppd = config.is_gddr() || config.protocol == Protocol::lpddr4;
  pre_to_pre = uses_ppd ? at_least_zero(k.tPPD) : 0;
  four_act_window = at_least_zero(k.tFAW);
  refresh = at_least_zero(k.tRFC);
  refresh_bank = at_least_zero(k.tRFCb);
  refresh_interval = at_least_zero(k.tREFI);
  refresh_bank_interval = at_least_zero(k.tREFIb);
  if (config.bankgroups == 1) {
    // No bank groups: DRAMsim3 (src/timing.cc) uses the _S values where _L ones would apply.
    rd_to_rd_l = rd_to_rd_s;
    wr_to_rd_l = wr_to_rd_s;
    wr_to_wr_l = wr_to_wr_s;
    act_to_act_l = act_to_act_s;
  }
}

}  // namespace tessera::hbm
