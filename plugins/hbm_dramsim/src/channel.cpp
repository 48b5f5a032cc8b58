#include "channel.hpp"

#include <algorithm>
#include <bit>

namespace tessera::hbm {

namespace {

// DRAMsim3 lets a row serve this many hits before an older request may close it.
constexpr uint32_t kStarvationCap = 4;
// DRAMsim3 drains a partly filled write buffer once it holds more than this many writes and the
// command queues have run dry (a constant in src/controller.cc; write_buf_size is read but unused).
constexpr size_t kDrainLowThreshold = 8;
// DRAMsim3 leaves up to 8 writes in an idle channel's buffer for ever (it reports writes done when
// accepted). Here a write is done when written, so a channel with nothing else to do writes them
// once no request has arrived for this long [U]: longer than the gaps of the traffic of the
// DRAMsim3 comparison (docs/memory.md), whose figures it leaves unchanged (100 would not).
constexpr uint64_t kIdleFlushCycles = 250;
// DRAMsim3 lets row hits overtake an older miss of their bank without limit (the 4-hit cap only
// permits the miss's precharge, which back-to-back hits keep pushing out by tRTP). Past this many
// hits to the open row, hits wait for the older miss instead [U], so it cannot starve.
constexpr uint32_t kHitsBeforeAMissMustGo = 16;

}  // namespace

Channel::Channel(const DramConfig& config, const Timing& timing, const EnergyModel& energy)
    : state_(config, timing, energy),
      timing_(timing),
      config_(config),
      queues_(config.queue_structure == QueueStructure::per_bank ? state_.banks() : config.ranks),
      queued_(state_.banks(), 0),
      next_check_(queues_.size(), 0),
      waiting_(queues_.size()),
      track_rechecked_(queues_.size() <= 64),
      timed_(track_rechecked_ ? ~uint64_t{0} >> (64 - queues_.size()) : 0),
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
  refresh_due_at_ = next_refresh_due();
}

bool Channel::accept(const Transaction& t, uint64_t now) {
  if (!t.is_write && buffered_writes_.contains(t.line)) {
    finish(forwarded_, {t.id, now, now + 1});
    return true;
  }
  auto& queue = (config_.keys.unified_queue || !t.is_write) ? read_q_ : write_q_;
  if (queue.size() >= static_cast<size_t>(config_.keys.trans_queue_size)) return false;
  queue.push_back(t);
  if (t.is_write) buffered_writes_.add(t.line);
  moves_blocked_ = false;
  last_arrival_ = now;
  wake_ = std::min(wake_, now);
  return true;
}

size_t Channel::queue_of(uint32_t bank) const {
  return config_.queue_structure == QueueStructure::per_bank ? bank : state_.rank_of(bank);
}

// ---- refresh ----------------------------------------------------------------------------------

void Channel::note_refresh_due(uint64_t now) {
  if (now < refresh_due_at_) return;
  if (config_.refresh_policy == RefreshPolicy::bank_staggered) {
    while (now >= bank_refresh_due_) {
      if (!bank_refresh_owed_[bank_refresh_cursor_]) {
        bank_refresh_owed_[bank_refresh_cursor_] = true;
        banks_to_refresh_.push_back(bank_refresh_cursor_);
        ++refreshes_owed_total_;
        recheck_bank(bank_refresh_cursor_);
      }
      bank_refresh_cursor_ = (bank_refresh_cursor_ + 1) % state_.banks();
      bank_refresh_due_ += timing_.refresh_bank_interval;
    }
    refresh_due_at_ = next_refresh_due();
    return;
  }
  for (size_t r = 0; r < refresh_due_.size(); ++r)
    while (now >= refresh_due_[r]) {
      ++refreshes_owed_[r];
      ++refreshes_owed_total_;
      refresh_due_[r] += timing_.refresh_interval;
      recheck_rank(static_cast<uint32_t>(r));
    }
  refresh_due_at_ = next_refresh_due();
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
      --refreshes_owed_total_;
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
  --refreshes_owed_total_;
  return true;
}

// ---- scheduling -------------------------------------------------------------------------------

// FR-FCFS within one queue, as DRAMsim3's CommandQueue::GetFirstReadyInQueue and
// ArbitratePrecharge (src/command_queue.cc) decide it: requests in arrival order, each needing a
// column command (row hit), an activate (bank closed) or a precharge (another row open); the first
// whose command can issue now wins. A row hit may always go. A precharge may only come from the
// oldest request of its bank in the queue, and only when no later request of the queue hits the
// open row or that row has already served kStarvationCap hits.
Channel::Pick Channel::pick_in_queue(size_t q, uint64_t now) const {
  const auto& queue = queues_[q];
  const bool per_bank = config_.queue_structure == QueueStructure::per_bank;
  Pick pick;
  uint32_t bank = ChannelState::kClosed, open = 0;
  bool blocked = false;
  // Requests of one bank needing the same command are equally ready: ask the state once.
  Command last_command{};
  uint64_t ready = kNever;
  size_t asked = 0;  // times the state was asked
  for (size_t i = 0; i < queue.size(); ++i) {
    const Transaction& t = queue[i];
    bool first_of_bank = false;
    if (t.bank != bank) {
      bank = t.bank;
      blocked = refresh_blocks(bank);
      open = state_.open_row(bank);
      ready = kNever;
      first_of_bank =
          per_bank || std::none_of(queue.begin(), queue.begin() + static_cast<std::ptrdiff_t>(i),
                                   [&](const Transaction& e) { return e.bank == bank; });
    }
    if (blocked) continue;
    Command command = Command::activate;
    if (open == t.row) {
      if (state_.hits(bank) >= kHitsBeforeAMissMustGo &&
          std::any_of(queue.begin(), queue.begin() + static_cast<std::ptrdiff_t>(i),
                      [&](const Transaction& e) { return e.bank == bank && e.row != open; }))
        continue;
      command = column_command(t);
    } else if (open != ChannelState::kClosed) {
      if (!first_of_bank) continue;
      if (state_.hits(bank) < kStarvationCap &&
          std::any_of(queue.begin() + static_cast<std::ptrdiff_t>(i), queue.end(),
                      [&](const Transaction& e) { return e.bank == bank && e.row == open; }))
        continue;
      command = Command::precharge;
    }
    if (ready == kNever || command != last_command) {
      last_command = command;
      ready = state_.ready_cycle(command, bank);
      if (asked++ == 0) {
        pick.index = static_cast<uint32_t>(i);
        pick.command = command;
      }
    }
    if (ready <= now)
      return {.ready = ready, .index = static_cast<uint32_t>(i), .command = command};
    pick.ready = std::min(pick.ready, ready);
    // A bank queue whose bank is closed: every request needs this same activate, none is ready.
    if (per_bank && command == Command::activate) break;
  }
  pick.only = asked == 1;
  return pick;
}

Command Channel::column_command(const Transaction& t) const {
  const bool close_page = config_.row_policy == RowBufferPolicy::close_page;
  return t.is_write ? (close_page ? Command::write_precharge : Command::write)
                    : (close_page ? Command::read_precharge : Command::read);
}

// Whether queue q's known wait holds with `t` just appended, so that its pick need not be made
// again (two of them per request otherwise). In a bank queue a request behind others that misses
// the open row cannot be chosen (only a bank's first request may precharge or activate), and a
// row hit needing the command waited for adds none.
bool Channel::wait_survives(size_t q, const Transaction& t) const {
  if (!waiting_[q].known || config_.queue_structure != QueueStructure::per_bank) return false;
  return state_.open_row(t.bank) != t.row || column_command(t) == waiting_[q].command;
}

// Asks queue q (due: next_check_[q] <= now) for a command ready at `now` (then pick.ready <= now);
// records its bound if it has none.
Channel::Pick Channel::ask(size_t q, uint64_t now) {
  Waiting& waiting = waiting_[q];
  Pick pick;
  if (waiting.known) {
    pick = {.ready = state_.ready_cycle(waiting.command, waiting.bank),
            .index = waiting.index,
            .command = waiting.command};
  } else {
    pick = pick_in_queue(q, now);
    if (pick.only) know(q, {pick.index, queues_[q][pick.index].bank, pick.command, true});
  }
  if (pick.ready <= now) {
    if (track_rechecked_) rechecked_ |= uint64_t{1} << q;  // still due
    return pick;
  }
  bound_queue(q, pick.ready);
  return pick;
}

void Channel::bound_queue(size_t q, uint64_t ready) {
  next_check_[q] = ready;
  if (track_rechecked_) {
    rechecked_ &= ~(uint64_t{1} << q);
    // Exactly the finite bounds: an emptied queue's bit left set would be visited by every pass.
    timed_ = (timed_ & ~(uint64_t{1} << q)) | uint64_t{ready != kNever} << q;
    others_ready_at_ = std::min(others_ready_at_, ready);
  }
}

// The first cycle after `now` at which a queue may have a command, once this cycle's commands are
// issued: the queues they changed are asked for cycle now + 1 already (nothing changes them before
// it), so that the cycles in which no queue can issue are skipped.
uint64_t Channel::next_queue_cycle(uint64_t now) {
  if (!track_rechecked_) return now + 1;
  for (uint64_t part = rechecked_; part != 0; part &= part - 1)
    if (ask(static_cast<size_t>(std::countr_zero(part)), now + 1).ready <= now + 1) return now + 1;
  queues_ready_at_ = std::max(now + 1, others_ready_at_);
  return queues_ready_at_;
}

// DRAMsim3's Controller::ClockTick (src/controller.cc) with CommandQueue::GetCommandToIssue
// (src/command_queue.cc): the queues are scanned round-robin from the one after the last that gave
// a command, and the first ready command issues (unless refresh work already took this cycle's
// command). With HBM dual issue the scan goes on once more from there: its first ready command
// issues only if it is of the other kind (row vs column); either way the next cycle's scan starts
// after it.
void Channel::schedule(uint64_t now, bool& row_used, bool& column_used, uint64_t& soonest) {
  const bool refresh_issued = row_used;
  if (refresh_issued && !config_.dual_command) return;
  if (now < queues_ready_at_) {
    soonest = std::min(soonest, queues_ready_at_);
    return;
  }
  const size_t n = queues_.size();
  Pick pick;  // the last queue's answer
  auto ready_in = [&](size_t q) {
    pick = ask(q, now);
    return pick.ready <= now;
  };
  // The first queue with a ready command (in `pick`) from round_robin_ on, asking every due queue
  // in round-robin order until one has it; n with `pass_soonest` (the least bound of every queue)
  // when none has.
  auto scan = [&](uint64_t& pass_soonest) -> size_t {
    if (track_rechecked_) {
      // Bit sets instead of a walk over every queue (16-32 per channel, twice a cycle): until
      // others_ready_at_ only the rechecked queues can be due; once it has come, a branch-free
      // pass over the finite bounds (the others are empty or wait for a refresh) marks the due
      // ones rechecked and bounds the others again. Either way only the due queues are asked,
      // in round-robin order; those a scan does not reach stay rechecked for the next.
      if (now >= others_ready_at_) {
        uint64_t rest = kNever, due_queues = 0;  // locals: no store per queue
        for (uint64_t part = timed_; part != 0; part &= part - 1) {
          const int q = std::countr_zero(part);
          const uint64_t bound = next_check_[static_cast<size_t>(q)];
          due_queues |= uint64_t{bound <= now} << q;
          rest = std::min(rest, bound <= now ? kNever : bound);
        }
        rechecked_ |= due_queues;
        timed_ &= ~due_queues;
        others_ready_at_ = rest;
      }
      // The due queues from round_robin_ on, then those before it (two plain loops: a loop over
      // an initializer list of the two halves built it in memory on every scan).
      auto first_ready = [&](uint64_t part) {
        for (; part != 0; part &= part - 1)
          if (const auto q = static_cast<size_t>(std::countr_zero(part)); ready_in(q)) return q;
        return n;
      };
      const uint64_t from = ~uint64_t{0} << round_robin_;  // round_robin_ < queues <= 64
      const uint64_t before = rechecked_ & ~from;
      if (const size_t q = first_ready(rechecked_ & from); q != n) return q;
      if (const size_t q = first_ready(before); q != n) return q;
      // Every due queue was asked and is rechecked no more: others_ready_at_ bounds them all.
      pass_soonest = others_ready_at_;
      return n;
    }
    for (size_t k = 0, q = round_robin_; k < n; ++k, q = q + 1 == n ? 0 : q + 1) {
      if (now < next_check_[q]) {
        pass_soonest = std::min(pass_soonest, next_check_[q]);
        continue;
      }
      if (ready_in(q)) return q;
      pass_soonest = std::min(pass_soonest, next_check_[q]);
    }
    return n;
  };
  auto take = [&](size_t q) {
    issue_request(pick.command, q, pick.index, now);
    (is_column(pick.command) ? column_used : row_used) = true;
  };
  uint64_t pass_soonest = kNever;
  if (!refresh_issued) {
    const size_t first = scan(pass_soonest);
    if (first == n) {
      queues_ready_at_ = pass_soonest;
      soonest = std::min(soonest, pass_soonest);
      return;
    }
    round_robin_ = first + 1 == n ? 0 : first + 1;
    take(first);
    if (!config_.dual_command) return;
  }
  pass_soonest = kNever;
  const size_t second = scan(pass_soonest);
  soonest = std::min(soonest, pass_soonest);
  if (second == n) return;
  round_robin_ = second + 1 == n ? 0 : second + 1;
  if (is_column(pick.command) ? !column_used : !row_used) take(second);
}

void Channel::issue_request(Command command, size_t queue, size_t index, uint64_t now) {
  auto& q = queues_[queue];
  const Transaction t = q[index];
  recheck_queue(queue);
  if (command == Command::activate) {
    state_.activate(t.bank, t.row, now, stats_);
    if (track_rechecked_) push_activate_bounds(now);
  } else if (command == Command::precharge) {
    state_.precharge(t.bank, now, stats_);
  } else {  // a column command (a request's commands are these three kinds)
    state_.column(command, t.bank, now, stats_);
    // A blocked move can go again only if this queue was full (a request may wait for it) or the
    // command queues ran dry (the write buffer may start draining); otherwise it would fail again.
    if (q.size() >= static_cast<size_t>(config_.keys.cmd_queue_size) || commands_queued_ == 1)
      moves_blocked_ = false;
    q.erase(q.begin() + static_cast<std::ptrdiff_t>(index));
    --queued_[t.bank];
    --commands_queued_;
    if (t.is_write) {
      buffered_writes_.remove(t.line);
      finish(writes_done_, {t.id, t.arrival, now + timing_.write_delay});
    } else {
      finish(reads_done_, {t.id, t.arrival, now + timing_.read_delay});
    }
  }
  if (q.empty())
    bound_queue(queue, kNever);  // as an ask would find it (a request per random-traffic request)
  else
    know_wait(command, queue, t.bank, now);
}

// An activate delays the activates of the other banks (tRRD, tFAW): the queues known to wait for
// one, due now or later, get their new ready cycle as bound at once, as the ask each would have
// (and fail) when its old bound came. Under random traffic several banks wait for the same
// activate slot, and all but one were asked in vain.
void Channel::push_activate_bounds(uint64_t now) {
  for (uint64_t part = activate_waits_; part != 0; part &= part - 1) {
    const auto q = static_cast<size_t>(std::countr_zero(part));
    if (const uint64_t ready = state_.ready_cycle(Command::activate, waiting_[q].bank); ready > now)
      bound_queue(q, ready);
  }
}

// A bank queue that a command of its own has just changed, in the two common cases where its next
// pick is known without walking it, as pick_in_queue would find it: its bank closed (a precharge,
// or a column command with auto-precharge), so every request needs an activate and only the first
// may issue it; or every request hits the open row with the same column command. The queue's next
// ask then reads that command's ready cycle (under random traffic twice per request, in a
// sequential stream once per request, instead of a walk of the queue each time). When that cycle is
// after `now` (a bank's next command waits at least tRP, tRCD or tCCD), the queue is bounded by it
// at once, as the ask it would have in this cycle's second scan or the next would find.
void Channel::know_wait(Command command, size_t queue, uint32_t bank, uint64_t now) {
  const auto& q = queues_[queue];  // not empty
  if (config_.queue_structure != QueueStructure::per_bank) return;
  Command next = Command::activate;
  if (!closes_row(command)) {
    // Equal column commands: equal is_write (column_command depends on nothing else).
    const uint32_t open = state_.open_row(bank);
    const bool is_write = q.front().is_write;
    for (const Transaction& t : q)
      if (t.row != open || t.is_write != is_write) return;
    next = column_command(q.front());
  }
  if (refresh_blocks(bank)) return;
  know(queue, {0, bank, next, true});
  if (const uint64_t ready = state_.ready_cycle(next, bank); ready > now && track_rechecked_)
    bound_queue(queue, ready);
}

// A bank queue that `t` has just entered empty: its pick is t's command, as pick_in_queue would
// find it (with no other request, a row hit has no older miss to wait for and a miss may
// precharge), unless a refresh blocks the bank. Known, it is not walked when asked, and bounded at
// once when it cannot issue in the next cycle.
void Channel::know_first_wait(size_t q, const Transaction& t, uint64_t now) {
  if (config_.queue_structure != QueueStructure::per_bank || refresh_blocks(t.bank)) return;
  const uint32_t open = state_.open_row(t.bank);
  const Command command = open == t.row                   ? column_command(t)
                          : open == ChannelState::kClosed ? Command::activate
                                                          : Command::precharge;
  know(q, {0, t.bank, command, true});
  if (const uint64_t ready = state_.ready_cycle(command, t.bank);
      ready > now + 1 && track_rechecked_)
    bound_queue(q, ready);
}

// Closes an open bank that no queued request wants (aggressive_precharging_enabled).
bool Channel::aggressive_precharge(uint64_t now, uint64_t& soonest) {
  for (uint32_t b = 0; b < state_.banks(); ++b)
    if (queued_[b] == 0 && state_.open_row(b) != ChannelState::kClosed && !refresh_blocks(b) &&
        try_issue(Command::precharge, b, now, soonest))
      return true;
  return false;
}

// DRAMsim3's two thresholds (src/controller.cc, Controller::ScheduleTransaction): the write buffer
// drains when it is full, or when it holds more than 8 writes and every command queue is empty.
// Reads never wait for a partly filled buffer otherwise.
bool Channel::should_drain(uint64_t now) const {
  const size_t writes = write_q_.size();
  if (writes >= static_cast<size_t>(config_.keys.trans_queue_size)) return true;
  return (writes > kDrainLowThreshold && commands_queued_ == 0) || idle_flush_due(now);
}

bool Channel::idle_flush_due(uint64_t now) const {
  return !write_q_.empty() && read_q_.empty() && commands_queued_ == 0 &&
         now >= last_arrival_ + kIdleFlushCycles;
}

bool Channel::move_transaction(uint64_t now) {
  if (moves_blocked_) return false;
  Ring<Transaction>* source = &read_q_;
  if (!config_.keys.unified_queue) {
    if (drain_left_ == 0 && should_drain(now)) drain_left_ = write_q_.size();
    if (drain_left_ > 0) source = &write_q_;
  }
  for (size_t i = 0; i < source->size(); ++i) {
    const Transaction& t = (*source)[i];
    const size_t q = queue_of(t.bank);
    if (queues_[q].size() >= static_cast<size_t>(config_.keys.cmd_queue_size)) continue;
    queues_[q].push_back(t);
    if (!wait_survives(q, t)) {
      recheck_queue(q);
      if (queues_[q].size() == 1) know_first_wait(q, t, now);
    }
    ++queued_[t.bank];
    ++commands_queued_;
    if (source == &write_q_) --drain_left_;
    if (i == 0)
      source->pop_front();  // the usual case, far cheaper than a general erase
    else
      source->erase(i);
    return true;
  }
  moves_blocked_ = true;
  return false;
}

void Channel::tick(uint64_t now) {
  if (now < wake_) return;
  uint64_t soonest = kNever;
  note_refresh_due(now);
  bool row_used = refresh_owed() && refresh_work(now, soonest);
  bool column_used = false;
  schedule(now, row_used, column_used, soonest);
  const bool row_slot_free = config_.dual_command ? !row_used : !(row_used || column_used);
  const bool aggressive = config_.keys.aggressive_precharging_enabled;
  if (row_slot_free && aggressive) row_used = aggressive_precharge(now, soonest);
  if (row_used && column_used) ++stats_.dual_issues;
  if (idle_flush_due(now)) moves_blocked_ = false;
  const bool moved = move_transaction(now);
  const bool issued = row_used || column_used;
  // A move may be followed by another next cycle; refresh work and aggressive precharging found
  // their bounds before this cycle's commands changed the banks: those look again next cycle.
  if (moved || (issued && (refresh_owed() || aggressive)))
    wake_ = now + 1;
  else
    wake_ = std::min(issued ? next_queue_cycle(now) : soonest, refresh_due_at_);
  if (!write_q_.empty() && read_q_.empty() && commands_queued_ == 0)
    wake_ = std::min(wake_, std::max(now + 1, last_arrival_ + kIdleFlushCycles));
}

// ---- completions and statistics ---------------------------------------------------------------

void Channel::deliver(uint64_t now,
                      const std::function<void(const tessera_memory_completion&)>& done) {
  for (auto* d : {&forwarded_, &reads_done_}) {
    while (!d->empty() && d->front().done <= now) {
      ++stats_.reads_done;
      if (d == &forwarded_) ++stats_.forwarded_reads;
      stats_.read_latency_sum_cycles += d->front().done - d->front().arrival;
      done({d->front().id, d->front().arrival, d->front().done});
      d->pop_front();
    }
  }
  while (!writes_done_.empty() && writes_done_.front().done <= now) {
    ++stats_.writes_done;
    done({writes_done_.front().id, writes_done_.front().arrival, writes_done_.front().done});
    writes_done_.pop_front();
  }
  // Each ring is in done order: its front is its least.
  next_done_ = kNever;
  for (const auto* d : {&reads_done_, &writes_done_, &forwarded_})
    if (!d->empty()) next_done_ = std::min(next_done_, d->front().done);
}

ChannelStats Channel::stats(uint64_t now) const {
  ChannelStats s = stats_;
  s.cycles = now;
  state_.settle_standby(now, s);
  return s;
}

}  // namespace tessera::hbm
