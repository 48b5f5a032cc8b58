#include "channel_stats.hpp"

#include <algorithm>

namespace tessera::hbm {

ChannelStats& ChannelStats::operator+=(const ChannelStats& o) {
  cycles = std::max(cycles, o.cycles);
  reads_done += o.reads_done;
  writes_done += o.writes_done;
  forwarded_reads += o.forwarded_reads;
  read_cmds += o.read_cmds;
  write_cmds += o.write_cmds;
  read_row_hits += o.read_row_hits;
  write_row_hits += o.write_row_hits;
  activates += o.activates;
  precharges += o.precharges;
  refreshes += o.refreshes;
  bank_refreshes += o.bank_refreshes;
  dual_issues += o.dual_issues;
  read_latency_sum_cycles += o.read_latency_sum_cycles;
  active_cycles += o.active_cycles;
  precharged_cycles += o.precharged_cycles;
  act_pj += o.act_pj;
  read_pj += o.read_pj;
  write_pj += o.write_pj;
  refresh_pj += o.refresh_pj;
  standby_pj += o.standby_pj;
  return *this;
}

}  // namespace tessera::hbm
