// Request sources for driving a memory model: sequential streams, uniform random addresses, and
// DRAMsim3 trace files. Each yields requests in order with the earliest cycle each may be offered;
// drive_requests() offers them to a model in order, holding back every later request while one is
// refused (an in-order front end, like DRAMsim3's CPUs).
#pragma once

#include <algorithm>
#include <cstdint>
#include <istream>
#include <optional>
#include <random>
#include <string>
#include <vector>

namespace tessera::hbm {

struct TrafficRequest {
  uint64_t address = 0;
  bool is_write = false;
  uint64_t cycle = 0;  // earliest cycle to offer it
};

class TrafficSource {
 public:
  virtual ~TrafficSource() = default;
  // The next request, or nullopt when the source is exhausted.
  virtual std::optional<TrafficRequest> next() = 0;
};

// Spacing of generated requests: `rate` requests per cycle (> 0), or as fast as accepted when 0.
class Pacer {
 public:
  explicit Pacer(double rate_per_cycle);
  uint64_t cycle_of(uint64_t index) const;

 private:
  double rate_ = 0;
};

// `streams` sequential streams of `request_bytes` steps, interleaved round-robin, each starting at
// a base drawn from `seed` (aligned to `request_bytes`, anywhere below `capacity_bytes`), like
// DRAMsim3's stream generator. A request is a write with probability `write_fraction`.
class StreamSource : public TrafficSource {
 public:
  StreamSource(uint64_t capacity_bytes, uint32_t request_bytes, uint32_t streams,
               double write_fraction, double rate_per_cycle, uint64_t seed);
  std::optional<TrafficRequest> next() override;

 private:
  uint64_t capacity_bytes_, request_bytes_;
  std::vector<uint64_t> cursors_;
  double write_fraction_;
  Pacer pacer_;
  std::mt19937_64 rng_;
  uint64_t index_ = 0;
};

// Uniformly random `request_bytes`-aligned addresses below `capacity_bytes`.
class RandomSource : public TrafficSource {
 public:
  RandomSource(uint64_t capacity_bytes, uint32_t request_bytes, double write_fraction,
               double rate_per_cycle, uint64_t seed);
  std::optional<TrafficRequest> next() override;

 private:
  uint64_t lines_, request_bytes_;
  double write_fraction_;
  Pacer pacer_;
  std::mt19937_64 rng_;
  uint64_t index_ = 0;
};

// DRAMsim3's trace format, one request per line: `<hex address> <type> <cycle>`, type READ or
// WRITE (also P_MEM_WR = write and BOFF = read, as DRAMsim3 reads them); the address may omit
// `0x`; cycles never decrease. Blank lines and lines starting with `#` are skipped. A malformed
// line throws sdk::Error(INVALID_ARGUMENT) "SOURCE:LINE: what is wrong".
class TraceSource : public TrafficSource {
 public:
  TraceSource(std::istream& in, std::string source);
  std::optional<TrafficRequest> next() override;

 private:
  [[noreturn]] void fail(const std::string& problem) const;
  std::istream& in_;
  std::string source_;
  int line_ = 0;
  uint64_t last_cycle_ = 0;
};

// Offers the requests of `source` in order until `end_cycle`: `offer(request, cycle)` returns
// whether it was accepted at `cycle`; a refused request is offered again at the next cycle and
// everything after it waits. The caller's `offer` advances its model to `cycle` first.
template <class Offer>
void drive_requests(TrafficSource& source, uint64_t end_cycle, Offer&& offer) {
  std::optional<TrafficRequest> pending = source.next();
  uint64_t cycle = 0;
  while (pending && cycle < end_cycle) {
    cycle = std::max(cycle, pending->cycle);
    if (cycle >= end_cycle) break;
    if (offer(*pending, cycle))
      pending = source.next();
    else
      ++cycle;
  }
}

}  // namespace tessera::hbm
