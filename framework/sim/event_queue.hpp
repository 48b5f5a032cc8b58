// The discrete-event clock: events ordered by time, ties broken by the order they were scheduled,
// so a simulation gives the same answer on every run and machine.
#pragma once

#include <cstdint>
#include <queue>
#include <vector>

namespace tessera::sim {

struct Event {
  double time_s = 0;
  uint64_t seq = 0;      // scheduling order: the tie-breaker
  uint32_t kind = 0;     // the caller's meaning
  uint32_t payload = 0;  // the caller's meaning
};

class EventQueue {
 public:
  void schedule(double time_s, uint32_t kind, uint32_t payload) {
    heap_.push(Event{time_s, next_seq_++, kind, payload});
  }
  bool empty() const { return heap_.empty(); }
  // The earliest event; the queue must not be empty.
  const Event& top() const { return heap_.top(); }
  Event pop() {
    Event e = heap_.top();
    heap_.pop();
    return e;
  }
  uint64_t scheduled() const { return next_seq_; }

 private:
  struct Later {
    bool operator()(const Event& a, const Event& b) const {
      return a.time_s != b.time_s ? a.time_s > b.time_s : a.seq > b.seq;
    }
  };
  std::priority_queue<Event, std::vector<Event>, Later> heap_;
  uint64_t next_seq_ = 0;
};

}  // namespace tessera::sim
