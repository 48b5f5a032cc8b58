// The least a memory model can be, for tests of the host's side of the MemoryModel ABI: every
// request finishes `latency_cycles` (parameter, default 20) after it was accepted, at most `queue`
// (default 8) at a time, whatever its address. 1 GHz, `channels` (default 1) channels of 64 B
// requests, each able to move one request a cycle, 1 MiB. Behind a raw ABI 1.0 vtable
// (memory_1_0_plugin.cpp) and behind the SDK without the 1.1 overrides (sdk_defaults_plugin.cpp).
#pragma once

#include <tessera/plugin_abi.h>

#include <cstddef>
#include <cstdint>
#include <deque>
#include <tessera/sdk/params.hpp>
#include <utility>

namespace tessera::abi_test {

class FixedLatencyMemory {
 public:
  explicit FixedLatencyMemory(const sdk::Params& p)
      : latency_cycles_(static_cast<uint64_t>(p.get_int("latency_cycles", 20, 1, 1 << 20))),
        queue_(static_cast<size_t>(p.get_int("queue", 8, 1, 1 << 16))),
        // 0 is allowed: a model hosts must refuse (memsim does).
        channels_(static_cast<uint32_t>(p.get_int("channels", 1, 0, 64))) {}

  // The 1.0 fields; the 1.1 ones stay NULL.
  tessera_memory_info info() const {
    tessera_memory_info info{};
    info.struct_size = sizeof(info);
    info.clock_hz = kClockHz;
    info.peak_bytes_per_s = channels_ * kBurstBytes * kClockHz;
    info.channels = channels_;
    info.burst_bytes = kBurstBytes;
    info.capacity_bytes = kCapacityBytes;
    return info;
  }

  size_t submit(const tessera_memory_request* requests, size_t count) {
    size_t taken = 0;
    for (; taken < count && in_flight_.size() < queue_; ++taken)
      in_flight_.push_back(
          {{requests[taken].id, now_, now_ + latency_cycles_}, requests[taken].is_write != 0});
    return taken;
  }

  // Calls done(completion) for every request finished in the next `cycles` cycles, in order.
  template <class Done>
  void advance(uint64_t cycles, Done&& done) {
    now_ += cycles;
    while (!in_flight_.empty() && in_flight_.front().done.done_cycle <= now_) {
      const Pending p = in_flight_.front();
      in_flight_.pop_front();
      if (p.is_write) {
        ++writes_;
      } else {
        ++reads_;
        read_latency_sum_ += p.done.done_cycle - p.done.issue_cycle;
      }
      done(p.done);
    }
  }

  tessera_memory_stats stats() const {
    tessera_memory_stats s{};
    s.struct_size = sizeof(s);
    s.cycles = now_;
    s.reads = reads_;
    s.writes = writes_;
    const double seconds = static_cast<double>(now_) / kClockHz;
    s.bytes_per_s =
        seconds > 0 ? static_cast<double>(reads_ + writes_) * kBurstBytes / seconds : 0.0;
    s.avg_read_latency_cycles =
        reads_ > 0 ? static_cast<double>(read_latency_sum_) / static_cast<double>(reads_) : 0.0;
    return s;
  }

  // A full queue finishes `queue` requests every `latency_cycles`; bytes/s and seconds.
  std::pair<double, double> sustained() const {
    return {
        static_cast<double>(queue_ * kBurstBytes) * kClockHz / static_cast<double>(latency_cycles_),
        static_cast<double>(latency_cycles_) / kClockHz};
  }

 private:
  static constexpr double kClockHz = 1e9;
  static constexpr uint32_t kBurstBytes = 64;
  static constexpr uint64_t kCapacityBytes = uint64_t{1} << 20;
  struct Pending {
    tessera_memory_completion done;
    bool is_write = false;
  };

  uint64_t latency_cycles_;
  size_t queue_;
  uint32_t channels_;
  uint64_t now_ = 0;
  std::deque<Pending> in_flight_;  // accepted in order, so finished in order
  uint64_t reads_ = 0, writes_ = 0, read_latency_sum_ = 0;
};

}  // namespace tessera::abi_test
