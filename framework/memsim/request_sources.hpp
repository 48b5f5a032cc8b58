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

// splitmix64 (Steele, Lea, Flood 2014): the generator of docs/memory.md's DRAMsim3 comparison
// traces. The trace script, the agreement test and the paired benchmark draw the same requests
// from it with the same seed, so they stay one sequence.
struct SplitMix64 {
  uint64_t x;
  uint64_t next() {
    uint64_t z = (x += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
};

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
  // The next line, without its '\n', as getline would split them; false at the end.
  bool next_line(std::string_view& line);
  std::istream& in_;
  // The input is read in blocks and split in place (getline cost more than parsing the line):
  // the unread text is block_[unread_..].
  std::string block_;
  size_t unread_ = 0;
  std::string source_;
  int line_ = 0;
  uint64_t last_cycle_ = 0;
};

}  // namespace tessera::memsim
