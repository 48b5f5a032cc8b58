// The DRAM side of one channel: which row each bank has open, the earliest cycle each command may
// issue to each bank (from the Timing relations, kept per bank, per bank group and per rank), the
// four-activate window, and what every issued command costs (counts and energy into ChannelStats).
// Knows nothing about requests or queues (channel.hpp schedules); never issues on its own.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <limits>
#include <vector>

#include "channel_stats.hpp"
#include "dram_config.hpp"
#include "energy.hpp"
#include "timing.hpp"

namespace tessera::hbm {

enum class Command : uint8_t {
  activate,
  precharge,
  read,
  write,
  read_precharge,   // read with auto-precharge (closed-page policy)
  write_precharge,  // write with auto-precharge
  refresh,          // all banks of a rank
  refresh_bank,
};

inline bool is_column(Command c) {
  return c == Command::read || c == Command::write || c == Command::read_precharge ||
         c == Command::write_precharge;
}
// Whether issuing `c` closes its bank's row (at once, or by auto-precharge after the burst).
inline bool closes_row(Command c) {
  return c == Command::precharge || c == Command::read_precharge || c == Command::write_precharge;
}
inline bool is_read(Command c) {
  return c == Command::read || c == Command::read_precharge;
}

inline constexpr uint64_t kNever = std::numeric_limits<uint64_t>::max();

class ChannelState {
 public:
  static constexpr uint32_t kClosed = std::numeric_limits<uint32_t>::max();

  ChannelState(const DramConfig& config, const Timing& timing, const EnergyModel& energy);

  // Banks are numbered across the channel: (rank * bankgroups + group) * banks_per_group + bank.
  uint32_t banks() const { return static_cast<uint32_t>(banks_.size()); }
  uint32_t banks_per_rank() const { return banks_per_rank_; }
  uint32_t rank_of(uint32_t bank) const { return banks_[bank].rank; }
  uint32_t open_row(uint32_t bank) const { return banks_[bank].open_row; }
  // Column commands to the open row since it was activated.
  uint32_t hits(uint32_t bank) const { return banks_[bank].hits; }
  uint32_t open_banks(uint32_t rank) const { return ranks_[rank].open_banks; }

  // The earliest cycle `command` may issue to `bank` (any bank of the rank for `refresh`).
  uint64_t ready_cycle(Command command, uint32_t bank) const;

  // Issues `command` at cycle `now` (the caller checked ready_cycle): updates rows, timing, the
  // activate window, and the counts and energies in `stats`. `row` is used by activate only.
  void issue(Command command, uint32_t bank, uint32_t row, uint64_t now, ChannelStats& stats);
  // The same for a command whose kind the caller has already told apart (the scheduler issues
  // requests' commands through these, so that the kind is tested once, not once more here).
  void activate(uint32_t bank, uint32_t row, uint64_t now, ChannelStats& stats);
  void precharge(uint32_t bank, uint64_t now, ChannelStats& stats);
  void column(Command command, uint32_t bank, uint64_t now, ChannelStats& stats);

  // Standby cycles and energy from the last change up to `now`, added to `stats`.
  void settle_standby(uint64_t now, ChannelStats& stats) const;

 private:
  enum Slot { kAct, kPre, kRd, kWr, kRef, kSlots };
  struct Bank {
    uint32_t open_row = kClosed;
    uint32_t hits = 0;
    uint32_t group = 0, rank = 0;  // channel-wide numbers, kept: a division costs more than a load
    uint64_t act_cycle = 0;
    std::array<uint64_t, kSlots> ready{};
  };
  struct Rank {
    std::array<uint64_t, kSlots> ready{};
    std::array<uint64_t, 4> last_acts{};  // ring of the last four activates (tFAW)
    uint32_t acts_seen = 0;
    uint32_t open_banks = 0;
    uint64_t standby_since = 0;
  };

  static void at_least(uint64_t& slot, uint64_t cycle) {
    if (slot < cycle) slot = cycle;
  }
  uint32_t group_of(uint32_t bank) const { return banks_[bank].group; }
  uint64_t refresh_ready(uint32_t bank) const;
  void count_activate(Rank& r, uint64_t now);
  void close(uint32_t bank, uint64_t precharge_cycle, uint64_t now, ChannelStats& stats);
  void change_standby(uint32_t rank, int delta, uint64_t now, ChannelStats& stats);

  const Timing& t_;
  const EnergyModel& e_;
  uint32_t banks_per_group_ = 1, banks_per_rank_ = 1;
  std::vector<Bank> banks_;
  std::vector<std::array<uint64_t, kSlots>> groups_;
  std::vector<Rank> ranks_;
};

// In the header: the scheduler asks it for every command it considers, several times a cycle.
// Every command but a refresh is the max of its slot's bounds (bank, bank group, rank; the group
// bound of a precharge is never set, so 0; the rank's activate bound holds the four-activate
// window): a table instead of a switch, whose jump mispredicted on about half the asks (the
// command asked changes from one to the next).
inline uint64_t ChannelState::ready_cycle(Command command, uint32_t bank) const {
  if (command == Command::refresh) return refresh_ready(bank);
  static constexpr Slot kSlotOf[] = {kAct, kPre, kRd, kWr, kRd, kWr, kRef, kAct};
  // The table follows Command's order: one entry per command, refresh_bank last.
  static_assert(std::size(kSlotOf) == static_cast<size_t>(Command::refresh_bank) + 1);
  static_assert(static_cast<size_t>(Command::read_precharge) == 4 &&
                static_cast<size_t>(Command::refresh) == 6);
  const Slot slot = kSlotOf[static_cast<size_t>(command)];
  const Bank& b = banks_[bank];
  const auto& g = groups_[group_of(bank)];
  const Rank& r = ranks_[rank_of(bank)];
  return std::max({b.ready[slot], g[slot], r.ready[slot]});
}

// Every bank of the rank must be precharged for tRP (and past tRC, tRFCb) first.
inline uint64_t ChannelState::refresh_ready(uint32_t bank) const {
  uint64_t ready = ranks_[rank_of(bank)].ready[kRef];
  const uint32_t first = rank_of(bank) * banks_per_rank_;
  for (uint32_t i = first; i < first + banks_per_rank_; ++i)
    ready = std::max(ready, banks_[i].ready[kAct]);
  return ready;
}

}  // namespace tessera::hbm
