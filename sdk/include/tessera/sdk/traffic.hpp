// Request streams for driving a MemoryModel, shared by memory-model plugins and the host.
//
// MemoryModel::sustained (plugin_abi.h) is defined by a workload: long sequential read streams,
// interleaved request by request and offered in order as fast as the model accepts them.
// StreamSource is that workload and drive_requests the in-order front end, so a plugin that
// measures its fast mode by simulating (as hbm_dramsim does) and the host's `tessera memsim
// --gen stream` offer the same requests. The host's other sources (uniform random addresses,
// DRAMsim3 traces) are in framework/memsim/request_sources.hpp; they implement TrafficSource too.
// offer_requests is MemoryModel::offer's front end (ABI 1.4), run inside a plugin or by the host.
//
// Every source yields requests in order, each with the earliest cycle it may be offered.
// Constructors throw sdk::Error(INVALID_ARGUMENT) for impossible arguments.
#pragma once

#include <tessera/plugin_abi.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <tessera/sdk/error.hpp>
#include <vector>

namespace tessera::sdk {

struct TrafficRequest {
  uint64_t address = 0;  // bytes
  bool is_write = false;
  uint64_t cycle = 0;  // earliest cycle to offer it, in the model's clock
};

class TrafficSource {
 public:
  virtual ~TrafficSource() = default;
  // The next request, or nullopt when the source is exhausted.
  virtual std::optional<TrafficRequest> next() = 0;
};

// Spacing of generated requests: request i may be offered from cycle floor(i / rate), `rate`
// requests per cycle (> 0), or as fast as accepted when the rate is 0.
class Pacer {
 public:
  explicit Pacer(double rate_per_cycle) : rate_(rate_per_cycle) {
    if (!(rate_per_cycle >= 0) || !std::isfinite(rate_per_cycle))
      throw invalid_argument(
          "the request rate must be a finite number >= 0 (0 = as fast as accepted), got " +
          std::to_string(rate_per_cycle));
  }
  uint64_t cycle_of(uint64_t index) const {
    return rate_ == 0 ? 0 : static_cast<uint64_t>(std::floor(static_cast<double>(index) / rate_));
  }

 private:
  double rate_ = 0;
};

// Which generated requests write: each with probability `write_fraction` in [0, 1], drawn from
// the source's generator; at 0 nothing is drawn.
class WriteMix {
 public:
  explicit WriteMix(double write_fraction) : fraction_(write_fraction) {
    if (!(write_fraction >= 0 && write_fraction <= 1))
      throw invalid_argument("the write fraction must be in [0, 1], got " +
                             std::to_string(write_fraction));
  }
  bool draw(std::mt19937_64& rng) const {
    return fraction_ > 0 && std::uniform_real_distribution<double>(0, 1)(rng) < fraction_;
  }

 private:
  double fraction_ = 0;
};

// How many `request_bytes`-aligned requests fit below `capacity_bytes`: where generated addresses
// may go. At least one, or sdk::Error(INVALID_ARGUMENT).
inline uint64_t request_slots(uint64_t capacity_bytes, uint32_t request_bytes) {
  if (request_bytes == 0 || capacity_bytes < request_bytes)
    throw invalid_argument(
        "traffic needs requests of at least 1 byte and a capacity of at least "
        "one request, got " +
        std::to_string(request_bytes) + " B requests and " + std::to_string(capacity_bytes) + " B");
  return capacity_bytes / request_bytes;
}

// `streams` sequential streams of `request_bytes` steps, interleaved round-robin, each starting at
// a base drawn from `seed` (aligned to `request_bytes`, anywhere below `capacity_bytes`) and
// wrapping at `capacity_bytes`, like DRAMsim3's stream generator. Endless.
class StreamSource : public TrafficSource {
 public:
  StreamSource(uint64_t capacity_bytes, uint32_t request_bytes, uint32_t streams,
               double write_fraction, double rate_per_cycle, uint64_t seed)
      : capacity_bytes_(capacity_bytes),
        request_bytes_(request_bytes),
        writes_(write_fraction),
        pacer_(rate_per_cycle),
        rng_(seed) {
    if (streams == 0) throw invalid_argument("the number of streams must be at least 1");
    std::uniform_int_distribution<uint64_t> line(0,
                                                 request_slots(capacity_bytes, request_bytes) - 1);
    for (uint32_t s = 0; s < streams; ++s) cursors_.push_back(line(rng_) * request_bytes);
  }
  std::optional<TrafficRequest> next() override {
    uint64_t& cursor = cursors_[index_ % cursors_.size()];
    TrafficRequest r{cursor, writes_.draw(rng_), pacer_.cycle_of(index_++)};
    cursor = (cursor + request_bytes_) % capacity_bytes_;
    return r;
  }

 private:
  uint64_t capacity_bytes_, request_bytes_;
  std::vector<uint64_t> cursors_;
  WriteMix writes_;
  Pacer pacer_;
  std::mt19937_64 rng_;
  uint64_t index_ = 0;
};

// Offers the requests of `source` in order until `end_cycle`: `offer(request, cycle)` returns
// whether the model accepted it at `cycle`; a refused request is offered again at the next cycle
// and everything after it waits (an in-order front end, like DRAMsim3's CPUs). The caller's
// `offer` advances its model to `cycle` first; cycles never decrease.
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

// How far MemoryModel::offer (plugin_abi.h, ABI 1.4) got: the requests queued (a prefix), and the
// cycles the model ran, counted from the call's start.
struct OfferProgress {
  size_t accepted = 0;
  uint64_t cycles_run = 0;
};

// MemoryModel::offer's front end over a model's own submit and advance: its one definition, run
// by the SDK's default offer (inside the plugin, no boundary crossed per cycle) and by a host
// driving a plugin built before 1.4 (through the ABI). `submit(request)` queues one request at
// the current cycle or returns false; `advance(cycles)` runs the model; `channel(address)` is
// asked for each accepted request only when `channels` is not null. `progress` (zero at the start)
// is kept current, so that it says how far the call got when one of them throws.
template <class Submit, class Advance, class Channel>
void offer_requests(const tessera_memory_request* requests, const uint64_t* offer_cycles,
                    size_t count, uint64_t spacing, uint64_t last_cycle, uint32_t* channels,
                    OfferProgress& progress, Submit&& submit, Advance&& advance,
                    Channel&& channel) {
  uint64_t& now = progress.cycles_run;  // the model's cycle: where the last offer was made
  for (size_t i = 0; i < count; ++i) {
    uint64_t at = offer_cycles[i];
    if (i > 0) {  // at or after t_(i-1) + spacing, t_(i-1) = now; no overflow past last_cycle
      if (spacing > last_cycle - now) return;
      at = std::max(at, now + spacing);
    }
    if (at > last_cycle) return;
    for (;;) {
      if (at > now) {
        advance(at - now);
        now = at;
      }
      if (submit(requests[i])) break;
      if (at == last_cycle) return;
      ++at;  // refused: offered again after one more cycle
    }
    ++progress.accepted;
    if (channels != nullptr) channels[i] = channel(requests[i].address);
  }
}

}  // namespace tessera::sdk
