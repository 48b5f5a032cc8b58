#include "channel_state.hpp"

#include <algorithm>

namespace tessera::hbm {

ChannelState::ChannelState(const DramConfig& config, const Timing& timing,
                           const EnergyModel& energy)
    : t_(timing),
      e_(energy),
      banks_per_group_(config.banks_per_group),
      banks_per_rank_(config.banks),
      banks_(size_t{config.ranks} * config.banks),
      groups_(size_t{config.ranks} * config.bankgroups),
      ranks_(config.ranks) {
  for (uint32_t b = 0; b < banks(); ++b) {
    banks_[b].group = b / banks_per_group_;
    banks_[b].rank = b / banks_per_rank_;
  }
}

void ChannelState::issue(Command command, uint32_t bank, uint32_t row, uint64_t now,
                         ChannelStats& stats) {
  Rank& r = ranks_[rank_of(bank)];
  switch (command) {
    case Command::activate:
      return activate(bank, row, now, stats);
    case Command::refresh_bank:
      // Internally an activate and precharge of the bank: it spaces and counts like an ACT.
      at_least(groups_[group_of(bank)][kAct], now + t_.act_to_act_l);
      at_least(r.ready[kAct], now + t_.act_to_act_s);
      count_activate(r, now);
      at_least(banks_[bank].ready[kAct], now + t_.refresh_bank);
      ++stats.bank_refreshes;
      stats.refresh_pj += e_.refresh_bank_pj;
      return;
    case Command::precharge:
      return precharge(bank, now, stats);
    case Command::refresh:
      at_least(r.ready[kAct], now + t_.refresh);
      at_least(r.ready[kRef], now + t_.refresh);
      ++stats.refreshes;
      stats.refresh_pj += e_.refresh_pj;
      return;
    default:
      return column(command, bank, now, stats);
  }
}

void ChannelState::activate(uint32_t bank, uint32_t row, uint64_t now, ChannelStats& stats) {
  Bank& b = banks_[bank];
  Rank& r = ranks_[rank_of(bank)];
  b.open_row = row;
  b.hits = 0;
  b.act_cycle = now;
  at_least(b.ready[kAct], now + t_.act_to_act);
  at_least(b.ready[kRd], now + t_.act_to_rd);
  at_least(b.ready[kWr], now + t_.act_to_wr);
  at_least(b.ready[kPre], now + t_.act_to_pre);
  at_least(groups_[group_of(bank)][kAct], now + t_.act_to_act_l);
  at_least(r.ready[kAct], now + t_.act_to_act_s);
  count_activate(r, now);
  change_standby(rank_of(bank), +1, now, stats);
  ++stats.activates;
  stats.act_pj += e_.act_pj;
}

void ChannelState::precharge(uint32_t bank, uint64_t now, ChannelStats& stats) {
  at_least(ranks_[rank_of(bank)].ready[kPre], now + t_.pre_to_pre);
  ++stats.precharges;
  close(bank, now, now, stats);
}

// The four-activate window is folded into the rank's activate bound as each activate comes: the
// fourth activate back plus tFAW only grows, so the bound equals the window's max taken at each ask
// (which read the ring through a chain of dependent loads, a fifth of the time of an ask).
void ChannelState::count_activate(Rank& r, uint64_t now) {
  r.last_acts[r.acts_seen++ % 4] = now;
  if (r.acts_seen >= 4) at_least(r.ready[kAct], r.last_acts[r.acts_seen % 4] + t_.four_act_window);
}

void ChannelState::close(uint32_t bank, uint64_t precharge_cycle, uint64_t now,
                         ChannelStats& stats) {
  Bank& b = banks_[bank];
  b.open_row = kClosed;
  at_least(b.ready[kAct], precharge_cycle + t_.pre_to_act);
  change_standby(rank_of(bank), -1, now, stats);
}

void ChannelState::column(Command command, uint32_t bank, uint64_t now, ChannelStats& stats) {
  Bank& b = banks_[bank];
  auto& g = groups_[group_of(bank)];
  const uint32_t rank = rank_of(bank);
  Rank& r = ranks_[rank];
  const bool read = is_read(command);
  if (b.hits > 0) ++(read ? stats.read_row_hits : stats.write_row_hits);
  ++b.hits;
  if (read) {
    ++stats.read_cmds;
    stats.read_pj += e_.read_pj;
    at_least(g[kRd], now + t_.rd_to_rd_l);
    at_least(r.ready[kRd], now + t_.rd_to_rd_s);
    at_least(r.ready[kWr], now + t_.rd_to_wr);
    at_least(b.ready[kPre], now + t_.rd_to_pre);
  } else {
    ++stats.write_cmds;
    stats.write_pj += e_.write_pj;
    at_least(g[kWr], now + t_.wr_to_wr_l);
    at_least(r.ready[kWr], now + t_.wr_to_wr_s);
    at_least(g[kRd], now + t_.wr_to_rd_l);
    at_least(r.ready[kRd], now + t_.wr_to_rd_s);
    at_least(b.ready[kPre], now + t_.wr_to_pre);
  }
  for (uint32_t other = 0; other < ranks_.size(); ++other) {
    if (other == rank) continue;
    at_least(ranks_[other].ready[kRd], now + (read ? t_.rd_to_rd_o : t_.wr_to_rd_o));
    at_least(ranks_[other].ready[kWr], now + (read ? t_.rd_to_wr_o : t_.wr_to_wr_o));
  }
  if (command == Command::read_precharge || command == Command::write_precharge) {
    // Auto-precharge starts once the burst allows it and never before tRAS has passed.
    uint64_t precharge = std::max(b.ready[kPre], b.act_cycle + t_.act_to_pre);
    close(bank, precharge, now, stats);
  }
}

void ChannelState::change_standby(uint32_t rank, int delta, uint64_t now, ChannelStats& stats) {
  Rank& r = ranks_[rank];
  const bool was_active = r.open_banks > 0;
  r.open_banks = static_cast<uint32_t>(static_cast<int>(r.open_banks) + delta);
  if (was_active == (r.open_banks > 0)) return;
  const uint64_t cycles = now - r.standby_since;
  if (was_active) {
    stats.active_cycles += cycles;
    stats.standby_pj += static_cast<double>(cycles) * e_.active_standby_pj_per_cycle;
  } else {
    stats.precharged_cycles += cycles;
    stats.standby_pj += static_cast<double>(cycles) * e_.precharge_standby_pj_per_cycle;
  }
  r.standby_since = now;
}

void ChannelState::settle_standby(uint64_t now, ChannelStats& stats) const {
  for (const Rank& r : ranks_) {
    const uint64_t cycles = now > r.standby_since ? now - r.standby_since : 0;
    if (r.open_banks > 0) {
      stats.active_cycles += cycles;
      stats.standby_pj += static_cast<double>(cycles) * e_.active_standby_pj_per_cycle;
    } else {
      stats.precharged_cycles += cycles;
      stats.standby_pj += static_cast<double>(cycles) * e_.precharge_standby_pj_per_cycle;
    }
  }
}

}  // namespace tessera::hbm
