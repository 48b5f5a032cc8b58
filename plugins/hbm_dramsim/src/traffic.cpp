#include "traffic.hpp"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <sstream>
#include <tessera/sdk/error.hpp>

namespace tessera::hbm {

Pacer::Pacer(double rate_per_cycle) : rate_(rate_per_cycle) {
  if (!(rate_per_cycle >= 0) || !std::isfinite(rate_per_cycle))
    throw sdk::invalid_argument(
        "the request rate must be a finite number >= 0 (0 = as fast as "
        "accepted), got " +
        std::to_string(rate_per_cycle));
}

uint64_t Pacer::cycle_of(uint64_t index) const {
  return rate_ == 0 ? 0 : static_cast<uint64_t>(std::floor(static_cast<double>(index) / rate_));
}

namespace {

bool draw_write(std::mt19937_64& rng, double write_fraction) {
  return write_fraction > 0 && std::uniform_real_distribution<double>(0, 1)(rng) < write_fraction;
}

void check_fraction(double write_fraction) {
  if (!(write_fraction >= 0 && write_fraction <= 1))
    throw sdk::invalid_argument("the write fraction must be in [0, 1], got " +
                                std::to_string(write_fraction));
}

}  // namespace

StreamSource::StreamSource(uint64_t capacity_bytes, uint32_t request_bytes, uint32_t streams,
                           double write_fraction, double rate_per_cycle, uint64_t seed)
    : capacity_bytes_(capacity_bytes),
      request_bytes_(request_bytes),
      write_fraction_(write_fraction),
      pacer_(rate_per_cycle),
      rng_(seed) {
  check_fraction(write_fraction);
  if (streams == 0) throw sdk::invalid_argument("the number of streams must be at least 1");
  std::uniform_int_distribution<uint64_t> line(0, capacity_bytes / request_bytes - 1);
  for (uint32_t s = 0; s < streams; ++s) cursors_.push_back(line(rng_) * request_bytes);
}

std::optional<TrafficRequest> StreamSource::next() {
  uint64_t& cursor = cursors_[index_ % cursors_.size()];
  TrafficRequest r{cursor, draw_write(rng_, write_fraction_), pacer_.cycle_of(index_++)};
  cursor = (cursor + request_bytes_) % capacity_bytes_;
  return r;
}

RandomSource::RandomSource(uint64_t capacity_bytes, uint32_t request_bytes, double write_fraction,
                           double rate_per_cycle, uint64_t seed)
    : lines_(capacity_bytes / request_bytes),
      request_bytes_(request_bytes),
      write_fraction_(write_fraction),
      pacer_(rate_per_cycle),
      rng_(seed) {
  check_fraction(write_fraction);
}

std::optional<TrafficRequest> RandomSource::next() {
  uint64_t line = std::uniform_int_distribution<uint64_t>(0, lines_ - 1)(rng_);
  return TrafficRequest{line * request_bytes_, draw_write(rng_, write_fraction_),
                        pacer_.cycle_of(index_++)};
}

TraceSource::TraceSource(std::istream& in, std::string source)
    : in_(in), source_(std::move(source)) {}

void TraceSource::fail(const std::string& problem) const {
  throw sdk::invalid_argument(source_ + ":" + std::to_string(line_) + ": " + problem);
}

std::optional<TrafficRequest> TraceSource::next() {
  std::string text;
  while (std::getline(in_, text)) {
    ++line_;
    std::istringstream fields(text);
    std::string address, type, cycle, extra;
    if (!(fields >> address) || address.front() == '#') continue;
    if (!(fields >> type >> cycle) || (fields >> extra))
      fail("expected '<hex address> READ|WRITE <cycle>', got '" + text.substr(0, 60) + "'");
    TrafficRequest r;
    char* end = nullptr;
    errno = 0;
    r.address = std::strtoull(address.c_str(), &end, 16);
    if (address.rfind("-", 0) == 0 || end != address.c_str() + address.size() || errno == ERANGE)
      fail("'" + address + "' is not a hexadecimal address (e.g. 0x1f40)");
    if (type == "WRITE" || type == "P_MEM_WR")
      r.is_write = true;
    else if (type != "READ" && type != "BOFF")
      fail("unknown request type '" + type + "'; expected READ or WRITE");
    errno = 0;
    r.cycle = std::strtoull(cycle.c_str(), &end, 10);
    if (cycle.front() == '-' || end != cycle.c_str() + cycle.size() || errno == ERANGE)
      fail("'" + cycle + "' is not a cycle number (a whole number >= 0)");
    if (r.cycle < last_cycle_)
      fail("cycle " + cycle + " is earlier than the previous request's cycle " +
           std::to_string(last_cycle_) + "; a trace must be in time order");
    last_cycle_ = r.cycle;
    return r;
  }
  if (in_.bad()) fail("read error");
  return std::nullopt;
}

}  // namespace tessera::hbm
