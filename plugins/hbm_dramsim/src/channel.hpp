// One channel's memory controller (DRAMsim3's design, src/controller.cc and command_queue.cc):
//  - a read queue and a write buffer of trans_queue_size requests each (one queue if
//    unified_queue); a read of a line with a write still buffered is answered from the buffer;
//  - write draining: the buffer drains (the writes it holds then, and nothing else moves) when
//    full, or when it holds more than 8 writes and the command queues are empty;
//  - one request per cycle moves into the command queues (per bank or per rank, cmd_queue_size);
//  - FR-FCFS-like scheduling: queues are scanned round-robin, each in arrival order, and the first
//    command that is ready issues; a row hit may always overtake an older row miss, and the oldest
//    request of a bank precharges its open row once no later request hits it or the row has
//    served 4 hits (starvation cap);
//  - open or closed page; optional aggressive precharging of banks nobody waits for;
//  - refresh: all-bank per rank (staggered or simultaneous) every tREFI, or one bank every tREFIb;
//    a rank (bank) owing a refresh takes no new ACT or column command until it is done;
//  - HBM dual command issue: after the first command, the next ready one in round-robin order
//    issues too if it is of the other kind (row vs column).
// Reads complete when their last data beat arrives (issue + AL + CL + burst), writes when theirs is
// written (issue + AL + CWL + burst).
#pragma once

#include <tessera/plugin_abi.h>

#include <algorithm>
#include <deque>
#include <functional>
#include <vector>

#include "channel_state.hpp"
#include "line_counts.hpp"
#include "ring.hpp"

namespace tessera::hbm {

struct Transaction {
  uint64_t id = 0;
  uint64_t line = 0;     // address / request bytes: identifies the data for write forwarding
  uint64_t arrival = 0;  // cycle the channel accepted it
  uint32_t bank = 0;     // channel-wide bank number (ChannelState numbering)
  uint32_t row = 0;
  bool is_write = false;
};

struct Done {
  uint64_t id = 0, arrival = 0, done = 0;
};

class Channel {
 public:
  Channel(const DramConfig& config, const Timing& timing, const EnergyModel& energy);

  // Queues `t` at cycle `now`; false when its queue is full (offer it again later).
  bool accept(const Transaction& t, uint64_t now);
  // Runs cycle `now` if anything can happen in it (now >= wake()); cycles must not go backwards.
  void tick(uint64_t now);
  // The first cycle at which tick can do anything, unless a request arrives first.
  uint64_t wake() const { return wake_; }
  uint64_t next_completion() const { return next_done_; }
  // Calls `done` for every request finished at or before `now`, counting it. The ABI's completion
  // straight away: a std::function converting a Done, built per advance (each cycle of a trace),
  // cost a call and a construction more.
  void deliver(uint64_t now, const std::function<void(const tessera_memory_completion&)>& done);
  // The counts up to cycle `now` (standby time included).
  ChannelStats stats(uint64_t now) const;

 private:
  // The first request of a queue whose command can issue now, or the soonest cycle one can.
  // 16 bytes, so that it is returned in registers (a larger one went through the stack and stalled
  // on store forwarding, several times a cycle).
  struct Pick {
    uint64_t ready = kNever;
    uint32_t index = 0;
    Command command{};
    bool only = false;  // none is ready, and every candidate needs `command` of request `index`
  };
  // A queue asked in vain whose requests all wait for one command (of its request `index`): it is
  // answered from the state alone until the queue or its banks change.
  struct Waiting {
    uint32_t index = 0;
    uint32_t bank = 0;
    Command command{};
    bool known = false;
  };

  void note_refresh_due(uint64_t now);
  uint64_t next_refresh_due() const;
  bool refresh_owed() const { return refreshes_owed_total_ > 0; }
  bool refresh_blocks(uint32_t bank) const;
  bool refresh_work(uint64_t now, uint64_t& soonest);
  bool try_issue(Command command, uint32_t bank, uint64_t now, uint64_t& soonest);
  Pick pick_in_queue(size_t queue, uint64_t now) const;
  Command column_command(const Transaction& t) const;  // read or write, with auto-precharge or not
  bool wait_survives(size_t queue, const Transaction& appended) const;
  // Forced inline, as bound_queue: called once or twice per command from the scans, and link-time
  // optimisation kept it out of line (its call and 16-byte result were 7 % of a trace run).
  [[gnu::always_inline]] inline Pick ask(size_t queue, uint64_t now);
  uint64_t next_queue_cycle(uint64_t now);
  void schedule(uint64_t now, bool& row_used, bool& column_used, uint64_t& soonest);
  void issue_request(Command command, size_t queue, size_t index, uint64_t now);
  void know_wait(Command command, size_t queue, uint32_t bank, uint64_t now);
  void push_activate_bounds(uint64_t now);
  void know_first_wait(size_t q, const Transaction& t, uint64_t now);
  // Records that no command of queue q can issue before `ready` (after the current cycle).
  [[gnu::always_inline]] inline void bound_queue(size_t q, uint64_t ready);
  bool aggressive_precharge(uint64_t now, uint64_t& soonest);
  bool move_transaction(uint64_t now);
  bool should_drain(uint64_t now) const;
  bool idle_flush_due(uint64_t now) const;
  size_t queue_of(uint32_t bank) const;
  // Forgets what is known about the queues of `bank` (its state changed) or of a whole rank.
  void recheck_bank(uint32_t bank) { recheck_queue(queue_of(bank)); }
  void recheck_queue(size_t queue) {
    next_check_[queue] = 0;
    waiting_[queue].known = false;
    queues_ready_at_ = 0;
    if (track_rechecked_) {
      rechecked_ |= uint64_t{1} << queue;
      activate_waits_ &= ~(uint64_t{1} << queue);
    }
  }
  void recheck_rank(uint32_t rank);
  // Records the one command every request of `queue` waits for.
  void know(size_t queue, const Waiting& wait) {
    waiting_[queue] = wait;
    if (track_rechecked_)
      activate_waits_ = (activate_waits_ & ~(uint64_t{1} << queue)) |
                        uint64_t{wait.command == Command::activate} << queue;
  }
  void finish(Ring<Done>& finished, const Done& d) {
    finished.push_back(d);
    next_done_ = std::min(next_done_, d.done);
  }

  ChannelState state_;
  const Timing& timing_;
  const DramConfig& config_;
  ChannelStats stats_;

  Ring<Transaction> read_q_, write_q_;            // read_q_ holds everything when unified
  std::vector<std::vector<Transaction>> queues_;  // command queues
  std::vector<uint32_t> queued_;                  // requests per bank in the command queues
  // Per command queue: no command of it can issue before this cycle. Issuing elsewhere only
  // delays commands, so the bound stays valid until the queue or its bank changes.
  std::vector<uint64_t> next_check_;  // kNever: empty, or waiting for a refresh
  std::vector<Waiting> waiting_;      // per command queue
  uint64_t activate_waits_ = 0;       // the queues whose known wait is an activate (<= 64 queues)
  uint64_t queues_ready_at_ = 0;      // the least of next_check_
  // With at most 64 queues, the queues whose bound was reset (or whose command is ready) and that
  // have not been asked since, as a bit set, and a lower bound on the bounds of all the others:
  // before that cycle a scan needs to ask only the rechecked queues, not walk every queue. The
  // queues asked, and their order, are the same as a full walk's.
  bool track_rechecked_ = false;
  uint64_t rechecked_ = 0;
  uint64_t others_ready_at_ = 0;
  // The queues whose finite bound a pass over the bounds has not yet found due (a superset of those
  // not rechecked whose bound is finite: a rechecked queue may keep its bit until the next pass):
  // a pass visits these, a few of the 16-32 queues, not all.
  uint64_t timed_ = 0;
  LineCounts buffered_writes_;  // line -> writes not yet issued
  uint64_t last_arrival_ = 0;
  size_t commands_queued_ = 0;  // requests in the command queues
  size_t drain_left_ = 0;
  bool moves_blocked_ = false;  // nothing could move; true until a full queue gains room, the
                                // command queues run dry, a request arrives or an idle flush is due
  size_t round_robin_ = 0;

  std::vector<uint32_t> refreshes_owed_;  // per rank
  uint32_t refreshes_owed_total_ = 0;     // of every rank and bank
  uint64_t refresh_due_at_ = 0;           // next_refresh_due()
  std::vector<uint64_t> refresh_due_;     // per rank
  std::vector<uint8_t> bank_refresh_owed_;
  std::deque<uint32_t> banks_to_refresh_;
  uint64_t bank_refresh_due_ = 0;
  uint32_t bank_refresh_cursor_ = 0;

  Ring<Done> reads_done_, writes_done_, forwarded_;
  uint64_t next_done_ = kNever;  // the least done cycle they hold
  uint64_t wake_ = 0;
};

}  // namespace tessera::hbm
