#include "channel.hpp"

#include <algorithm>

namespace tessera::hbm {

namespace {

// DRAMsim3 lets a row serve this many hits before an older request may close it.
constexpr uint32_t kStarvationCap = 4;

}  // namespace

Channel::Channel(const DramConfig& config, const Timing& timing, const EnergyModel& energy)
    : state_(config, timing, energy),
      timing_(timing),
      config_(config),
      queues_(config.queue_structure == QueueStructure::per_bank ? state_.banks() : config.ranks),
      queued_(state_.banks(), 0),
      next_check_(queues_.size(), 0),
      refreshes_owed_(config.ranks, 0),
      refresh_due_(config.ranks, 0),
      bank_refresh_owed_(state_.banks(), false) {
  for (auto& q : queues_) q.reserve(static_cast<size_t>(config.keys.cmd_queue_size));
  // Ranks refresh one after another within tREFI (staggered) or all at once.
  for (uint32_t r = 0; r < config.ranks; ++r)
    refresh_due_[r] = config.refresh_policy == RefreshPolicy::rank_staggered
                          ? uint64_t{timing.refresh_interval} * (r + 1) / config.ranks
                          : timing.refresh_interval;
  bank_refresh_due_ = timing.refresh_bank_interval;
}

bool Channel::accept(const Transaction& t, uint64_t now) {
  if (!t.is_write && buffered_writes_.count(t.line) != 0) {
    forwarded_.push_back({t.id, now, now + 1});
    return true;
  }
  auto& queue = (config_.keys.unified_queue || !t.is_write) ? read_q_ : write_q_;
  if (queue.size() >= static_cast<size_t>(config_.keys.trans_queue_size)) return false;
  queue.push_back(t);
  if (t.is_write) ++buffered_writes_[t.line];
  moves_blocked_ = false;
  wake_ = std::min(wake_, now);
  return true;
}

size_t Channel::queue_of(uint32_t bank) const {
  return config_.queue_structure == QueueStructure::per_bank ? bank : state_.rank_of(bank);
}

// ---- refresh ----------------------------------------------------------------------------------

void Channel::note_refresh_due(uint64_t now) {
  if (config_.refresh_policy == RefreshPolicy::bank_staggered) {
    while (now >= bank_refresh_due_) {
      if (!bank_refresh_owed_[bank_refresh_cursor_]) {
        bank_refresh_owed_[bank_refresh_cursor_] = true;
        banks_to_refresh_.push_back(bank_refresh_cursor_);
        recheck_bank(bank_refresh_cursor_);
      }
      bank_refresh_cursor_ = (bank_refresh_cursor_ + 1) % state_.banks();
      bank_refresh_due_ += timing_.refresh_bank_interval;
    }
    return;
  }
  for (size_t r = 0; r < refresh_due_.size(); ++r)
    while (now >= refresh_due_[r]) {
      ++refreshes_owed_[r];
      refresh_due_[r] += timing_.refresh_interval;
      recheck_rank(static_cast<uint32_t>(r));
    }
}

uint64_t Channel::next_refresh_due() const {
  if (config_.refresh_policy == RefreshPolicy::bank_staggered) return bank_refresh_due_;
  return *std::min_element(refresh_due_.begin(), refresh_due_.end());
}

bool Channel::refresh_blocks(uint32_t bank) const {
  return refreshes_owed_[state_.rank_of(bank)] > 0 || bank_refresh_owed_[bank];
}

bool Channel::try_issue(Command command, uint32_t bank, uint64_t now, uint64_t& soonest) {
  uint64_t ready = state_.ready_cycle(command, bank);
  if (ready > now) {
    soonest = std::min(soonest, ready);
    return false;
  }
  state_.issue(command, bank, 0, now, stats_);
  if (command == Command::refresh)
    recheck_rank(state_.rank_of(bank));
  else
    recheck_bank(bank);
  return true;
}

void Channel::recheck_rank(uint32_t rank) {
  const uint32_t per_rank = state_.banks_per_rank();
  for (uint32_t b = rank * per_rank; b < (rank + 1) * per_rank; ++b) recheck_bank(b);
}

// Precharges the banks of a rank (or bank) owing a refresh, then refreshes it. At most one command.
bool Channel::refresh_work(uint64_t now, uint64_t& soonest) {
  const uint32_t per_rank = state_.banks_per_rank();
  for (uint32_t r = 0; r < refreshes_owed_.size(); ++r) {
    if (refreshes_owed_[r] == 0) continue;
    if (state_.open_banks(r) == 0) {
      if (!try_issue(Command::refresh, r * per_rank, now, soonest)) continue;
      --refreshes_owed_[r];
      return true;
    }
    for (uint32_t b = r * per_rank; b < (r + 1) * per_rank; ++b)
      if (state_.open_row(b) != ChannelState::kClosed &&
          try_issue(Command::precharge, b, now, soonest))
        return true;
  }
  if (banks_to_refresh_.empty()) return false;
  const uint32_t bank = banks_to_refresh_.front();
  if (state_.open_row(bank) != ChannelState::kClosed)
    return try_issue(Command::precharge, bank, now, soonest);
  if (!try_issue(Command::refresh_bank, bank, now, soonest)) return false;
  bank_refresh_owed_[bank] = false;
  banks_to_refresh_.pop_front();
  return true;
}

// ---- scheduling -------------------------------------------------------------------------------

Channel::RowDemand Channel::row_demand(const std::vector<Transaction>& queue, uint32_t bank) const {
  RowDemand demand;
  const uint32_t open = state_.open_row(bank);
  for (const Transaction& t : queue) {
    if (t.bank != bank) continue;
    (t.row == open ? demand.hits : demand.misses) = true;
  }
  return demand;
}

// FR-FCFS within one queue: requests in arrival order, each needing a column command (row hit),
// an activate (bank closed) or a precharge (another row open). Hits go first, but once the open
// row has served kStarvationCap hits while another row waits, it closes: no more hits, precharge.
// The first request whose command can issue now wins.
Channel::Pick Channel::pick_in_queue(size_t q, uint64_t now, bool row_free,
                                     bool column_free) const {
  const auto& queue = queues_[q];
  const bool close_page = config_.row_policy == RowBufferPolicy::close_page;
  Pick pick;
  uint32_t bank = ChannelState::kClosed, open = 0;
  bool blocked = false, hits_allowed = true, close_allowed = false;
  // Requests of one bank needing the same command are equally ready: ask the state once.
  Command last_command{};
  uint64_t ready = kNever;
  for (size_t i = 0; i < queue.size(); ++i) {
    const Transaction& t = queue[i];
    if (t.bank != bank) {
      bank = t.bank;
      blocked = refresh_blocks(bank);
      open = state_.open_row(bank);
      if (open != ChannelState::kClosed) {
        const RowDemand demand = row_demand(queue, bank);
        const bool capped = state_.hits(bank) >= kStarvationCap;
        hits_allowed = !(capped && demand.misses);
        close_allowed = capped || !demand.hits;
      }
      ready = kNever;
    }
    if (blocked) continue;
    Command command = Command::activate;
    if (open == t.row) {
      if (!hits_allowed) continue;
      command = t.is_write ? (close_page ? Command::write_precharge : Command::write)
                           : (close_page ? Command::read_precharge : Command::read);
    } else if (open != ChannelState::kClosed) {
      if (!close_allowed) continue;
      command = Command::precharge;
    }
    if (ready == kNever || command != last_command) {
      last_command = command;
      ready = state_.ready_cycle(command, bank);
      // Ready, but its command bus is taken this cycle: the next cycle, then.
      if (ready <= now && !(is_column(command) ? column_free : row_free)) ready = now + 1;
    }
    if (ready <= now) return {i, command, ready};
    pick.ready = std::min(pick.ready, ready);
  }
  return pick;
}

void Channel::schedule(uint64_t now, bool& row_used, bool& column_used, uint64_t& soonest) {
  // One command per cycle, or (HBM dual issue) one row plus one column command.
  auto full = [&] {
    return config_.dual_command ? (row_used && column_used) : (row_used || column_used);
  };
  if (full()) return;
  if (now < queues_ready_at_) {
    soonest = std::min(soonest, queues_ready_at_);
    return;
  }
  const size_t n = queues_.size();
  uint64_t pass_soonest = kNever;
  bool issued = false;
  size_t next_start = round_robin_;
  for (size_t k = 0, q = round_robin_; k < n; ++k, q = q + 1 == n ? 0 : q + 1) {
    if (now < next_check_[q]) {
      pass_soonest = std::min(pass_soonest, next_check_[q]);
      continue;
    }
    const Pick pick = pick_in_queue(q, now, !row_used, !column_used);
    if (pick.ready > now) {
      next_check_[q] = pick.ready;
      pass_soonest = std::min(pass_soonest, pick.ready);
      continue;
    }
    issue_request(pick.command, q, pick.index, now);
    (is_column(pick.command) ? column_used : row_used) = true;
    if (!issued) next_start = q + 1 == n ? 0 : q + 1;
    issued = true;
    if (full()) break;
  }
  round_robin_ = next_start;
  if (!issued) queues_ready_at_ = pass_soonest;
  soonest = std::min(soonest, pass_soonest);
}

void Channel::issue_request(Command command, size_t queue, size_t index, uint64_t now) {
  auto& q = queues_[queue];
  const Transaction t = q[index];
  state_.issue(command, t.bank, t.row, now, stats_);
  recheck_queue(queue);
  if (!is_column(command)) return;
  q.erase(q.begin() + static_cast<std::ptrdiff_t>(index));
  --queued_[t.bank];
  moves_blocked_ = false;
  if (t.is_write) {
    auto it = buffered_writes_.find(t.line);
    if (--it->second == 0) buffered_writes_.erase(it);
    writes_done_.push_back({t.id, t.arrival, now + timing_.write_delay});
  } else {
    --reads_queued_;
    reads_done_.push_back({t.id, t.arrival, now + timing_.read_delay});
  }
}

// Closes an open bank that no queued request wants (aggressive_precharging_enabled).
bool Channel::aggressive_precharge(uint64_t now, uint64_t& soonest) {
  for (uint32_t b = 0; b < state_.banks(); ++b)
    if (queued_[b] == 0 && state_.open_row(b) != ChannelState::kClosed && !refresh_blocks(b) &&
        try_issue(Command::precharge, b, now, soonest))
      return true;
  return false;
}

bool Channel::should_drain() const {
  const size_t writes = write_q_.size();
  if (writes >= static_cast<size_t>(config_.keys.trans_queue_size)) return true;
  if (!read_q_.empty() || writes == 0) return false;
  return writes >= static_cast<size_t>(config_.keys.write_buf_size) || reads_queued_ == 0;
}

bool Channel::move_transaction() {
  if (moves_blocked_) return false;
  std::deque<Transaction>* source = &read_q_;
  if (!config_.keys.unified_queue) {
    if (drain_left_ == 0 && should_drain()) drain_left_ = write_q_.size();
    if (drain_left_ > 0) source = &write_q_;
  }
  for (auto it = source->begin(); it != source->end(); ++it) {
    const size_t q = queue_of(it->bank);
    if (queues_[q].size() >= static_cast<size_t>(config_.keys.cmd_queue_size)) continue;
    queues_[q].push_back(*it);
    recheck_queue(q);
    ++queued_[it->bank];
    if (!it->is_write) ++reads_queued_;
    if (source == &write_q_) --drain_left_;
    source->erase(it);
    return true;
  }
  moves_blocked_ = true;
  return false;
}

void Channel::tick(uint64_t now) {
  if (now < wake_) return;
  uint64_t soonest = kNever;
  note_refresh_due(now);
  bool row_used = refresh_work(now, soonest);
  bool column_used = false;
  schedule(now, row_used, column_used, soonest);
  const bool row_slot_free = config_.dual_command ? !row_used : !(row_used || column_used);
  if (row_slot_free && config_.keys.aggressive_precharging_enabled)
    row_used = aggressive_precharge(now, soonest);
  if (row_used && column_used) ++stats_.dual_issues;
  const bool moved = move_transaction();
  wake_ = (row_used || column_used || moved) ? now + 1 : std::min(soonest, next_refresh_due());
}

// ---- completions and statistics ---------------------------------------------------------------

uint64_t Channel::next_completion() const {
  uint64_t next = kNever;
  for (const auto* d : {&reads_done_, &writes_done_, &forwarded_})
    if (!d->empty()) next = std::min(next, d->front().done);
  return next;
}

void Channel::deliver(uint64_t now, const std::function<void(const Done&)>& done) {
  for (auto* d : {&forwarded_, &reads_done_}) {
    while (!d->empty() && d->front().done <= now) {
      ++stats_.reads_done;
      if (d == &forwarded_) ++stats_.forwarded_reads;
      stats_.read_latency_sum_cycles += d->front().done - d->front().arrival;
      done(d->front());
      d->pop_front();
    }
  }
  while (!writes_done_.empty() && writes_done_.front().done <= now) {
    ++stats_.writes_done;
    done(writes_done_.front());
    writes_done_.pop_front();
  }
}

ChannelStats Channel::stats(uint64_t now) const {
  ChannelStats s = stats_;
  s.cycles = now;
  state_.settle_standby(now, s);
  return s;
}

}  // namespace tessera::hbm
