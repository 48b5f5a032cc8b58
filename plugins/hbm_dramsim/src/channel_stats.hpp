// What one channel counted, and the sums over channels. Plain counters; energies in pJ.
#pragma once

#include <cstdint>

namespace tessera::hbm {

struct ChannelStats {
  uint64_t cycles = 0;
  uint64_t reads_done = 0, writes_done = 0;
  uint64_t forwarded_reads = 0;  // served from the write buffer, no DRAM access
  uint64_t read_cmds = 0, write_cmds = 0;
  uint64_t read_row_hits = 0, write_row_hits = 0;  // column commands to a row already open
  uint64_t activates = 0, precharges = 0;          // explicit PRE (auto-precharge not counted)
  uint64_t refreshes = 0, bank_refreshes = 0;
  uint64_t dual_issues = 0;  // cycles with a row and a column command (HBM)
  uint64_t read_latency_sum_cycles = 0;
  uint64_t active_cycles = 0, precharged_cycles = 0;  // summed over ranks (standby energy)
  double act_pj = 0, read_pj = 0, write_pj = 0, refresh_pj = 0, standby_pj = 0;

  double energy_pj() const { return act_pj + read_pj + write_pj + refresh_pj + standby_pj; }
  uint64_t row_hits() const { return read_row_hits + write_row_hits; }
  uint64_t column_cmds() const { return read_cmds + write_cmds; }
  double avg_read_latency_cycles() const {
    return reads_done == 0 ? 0.0 : static_cast<double>(read_latency_sum_cycles) / reads_done;
  }

  // Adds every counter of `other`; `cycles` is the longest of the two (channels run in parallel).
  ChannelStats& operator+=(const ChannelStats& other);
};

}  // namespace tessera::hbm
