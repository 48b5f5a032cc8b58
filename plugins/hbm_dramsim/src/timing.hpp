// Command-to-command delays of one channel, in cycles of tCK, derived from a DramConfig with the
// relations DRAMsim3 uses (src/timing.cc): e.g. read-to-read on the same bank group is
// max(burst, tCCD_L), read-to-write is RL + burst - WL + tRPRE + tRTRS, write-to-read is
// WL + burst + tWTR. "_l" applies within a bank group, "_s" across bank groups of one rank,
// "_o" across ranks (data-bus turnaround).
#pragma once

#include <cstdint>

#include "dram_config.hpp"

namespace tessera::hbm {

struct Timing {
  explicit Timing(const DramConfig& config);

  uint32_t burst = 0;        // data-bus cycles of one request
  uint32_t read_delay = 0;   // RD issue -> last data beat: AL + CL + burst
  uint32_t write_delay = 0;  // WR issue -> last data beat: AL + CWL + burst
  uint32_t rd_to_rd_l = 0, rd_to_rd_s = 0, rd_to_rd_o = 0;
  uint32_t rd_to_wr = 0, rd_to_wr_o = 0, rd_to_pre = 0;
  uint32_t wr_to_rd_l = 0, wr_to_rd_s = 0, wr_to_rd_o = 0;
  uint32_t wr_to_wr_l = 0, wr_to_wr_s = 0, wr_to_wr_o = 0, wr_to_pre = 0;
  uint32_t act_to_act = 0;                                   // same bank: tRC
  uint32_t act_to_act_l = 0, act_to_act_s = 0;               // tRRD_L, tRRD_S
  uint32_t act_to_rd = 0, act_to_wr = 0, act_to_pre = 0;     // tRCD(RD/WR), tRAS
  uint32_t pre_to_act = 0, pre_to_pre = 0;                   // tRP, tPPD
  uint32_t four_act_window = 0;                              // tFAW
  uint32_t refresh = 0, refresh_bank = 0;                    // tRFC, tRFCb
  uint32_t refresh_interval = 0, refresh_bank_interval = 0;  // tREFI, tREFIb
};

}  // namespace tessera::hbm
