// The requests `tessera memsim` offers a memory model. Three sources, each yielding requests in
// order with the earliest cycle (of the model's clock) each may be offered:
//   stream  StreamSource (<tessera/sdk/traffic.hpp>): sequential streams, interleaved; the
//           workload MemoryModel::sustained is defined by, so it lives in the SDK for plugins too
//   random  RandomSource: uniformly random request-aligned addresses below the capacity
//   trace   TraceSource: a DRAMsim3 trace file
// Generated requests write with a probability (WriteMix) and are spaced by a rate (Pacer);
// drive_requests offers any source to a model through an in-order front end.
#pragma once

#include <cstdint>
#include <istream>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <tessera/sdk/traffic.hpp>

namespace tessera::memsim {

using sdk::drive_requests;
using sdk::Pacer;
using sdk::StreamSource;
using sdk::TrafficRequest;
using sdk::TrafficSource;
using sdk::WriteMix;

// Uniformly random `request_bytes`-aligned addresses below `capacity_bytes`, a write with
// probability `write_fraction`, `rate_per_cycle` requests per cycle (0 = as fast as accepted),
// all drawn from `seed`. Endless. Throws sdk::Error(INVALID_ARGUMENT) for impossible arguments.
class RandomSource : public TrafficSource {
 public:
  RandomSource(uint64_t capacity_bytes, uint32_t request_bytes, double write_fraction,
               double rate_per_cycle, uint64_t seed);
  std::optional<TrafficRequest> next() override;

 private:
  uint64_t slots_, request_bytes_;
  WriteMix writes_;
  Pacer pacer_;
  std::mt19937_64 rng_;
  uint64_t index_ = 0;
};

// DRAMsim3's trace format, one request per line: `<hex address> <type> <cycle>`, type READ or
// WRITE (also P_MEM_WR = write and BOFF = read, as DRAMsim3 reads them); the address may omit
// `0x`; cycles never decrease. Blank lines and lines starting with `#` are skipped. A malformed
// line throws Failure, an input error "SOURCE:LINE: what is wrong".
class TraceSource : public TrafficSource {
 public:
  // Reads `in` (which must outlive the source); `source` names it in errors.
  TraceSource(std::istream& in, std::string source);
  std::optional<TrafficRequest> next() override;

 private:
  [[noreturn]] void fail(const std::string& problem) const;
  TrafficRequest parse(std::string_view address, std::string_view type,
                       std::string_view cycle) const;
  std::istream& in_;
  std::string text_;  // the current line, reused: no allocation per line
  std::string source_;
  int line_ = 0;
  uint64_t last_cycle_ = 0;
};

}  // namespace tessera::memsim
