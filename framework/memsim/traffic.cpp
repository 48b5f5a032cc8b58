#include "framework/memsim/traffic.hpp"

#include <cerrno>
#include <cstdlib>
#include <sstream>

#include "framework/common/status.hpp"

namespace tessera::memsim {

RandomSource::RandomSource(uint64_t capacity_bytes, uint32_t request_bytes, double write_fraction,
                           double rate_per_cycle, uint64_t seed)
    : slots_(sdk::request_slots(capacity_bytes, request_bytes)),
      request_bytes_(request_bytes),
      writes_(write_fraction),
      pacer_(rate_per_cycle),
      rng_(seed) {}

std::optional<TrafficRequest> RandomSource::next() {
  uint64_t slot = std::uniform_int_distribution<uint64_t>(0, slots_ - 1)(rng_);
  return TrafficRequest{slot * request_bytes_, writes_.draw(rng_), pacer_.cycle_of(index_++)};
}

TraceSource::TraceSource(std::istream& in, std::string source)
    : in_(in), source_(std::move(source)) {}

void TraceSource::fail(const std::string& problem) const {
  throw Failure(input_error(source_ + ":" + std::to_string(line_) + ": " + problem));
}

TrafficRequest TraceSource::parse(const std::string& address, const std::string& type,
                                  const std::string& cycle) const {
  TrafficRequest r;
  char* end = nullptr;
  errno = 0;
  r.address = std::strtoull(address.c_str(), &end, 16);
  if (address.front() == '-' || end != address.c_str() + address.size() || errno == ERANGE)
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
  return r;
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
    TrafficRequest r = parse(address, type, cycle);
    last_cycle_ = r.cycle;
    return r;
  }
  if (in_.bad()) fail("read error");
  return std::nullopt;
}

}  // namespace tessera::memsim
