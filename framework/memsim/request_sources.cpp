#include "framework/memsim/request_sources.hpp"

#include <array>
#include <charconv>
#include <limits>
#include <string_view>

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

namespace {

// The number `text` spells in `base`, as strtoull reads a whole token (an optional '+', then for
// base 16 an optional 0x), or nullopt when it is not one or does not fit in 64 bits. from_chars on
// the line's own characters: no copy, no locale, no errno (traces run to millions of lines).
std::optional<uint64_t> parse_number(std::string_view text, int base) {
  if (!text.empty() && text.front() == '+') text.remove_prefix(1);
  if (base == 16 && text.size() >= 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X'))
    text.remove_prefix(2);
  uint64_t value = 0;
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, value, base);
  if (text.empty() || ec != std::errc() || ptr != end) return std::nullopt;
  return value;
}

// The whitespace istream's >> skips (space, \t \n \v \f \r), one test per character.
bool is_space(char c) {
  constexpr uint64_t kSpaces = (uint64_t{1} << ' ') | (uint64_t{0x1f} << '\t');  // \t..\r: 9..13
  const auto u = static_cast<unsigned char>(c);
  return u <= ' ' && ((kSpaces >> u) & 1) != 0;
}

// The next whitespace-separated field of `rest`, removed from it; empty at the end.
std::string_view next_field(std::string_view& rest) {
  size_t begin = 0;
  while (begin < rest.size() && is_space(rest[begin])) ++begin;
  size_t end = begin;
  while (end < rest.size() && !is_space(rest[end])) ++end;
  const std::string_view field = rest.substr(begin, end - begin);
  rest.remove_prefix(end);
  return field;
}

// Each character's value as a hex digit, or -1: one lookup, not a branch on the digit's range
// (addresses mix digits and letters at random).
constexpr std::array<int8_t, 256> kHexDigits = [] {
  std::array<int8_t, 256> digits{};
  digits.fill(-1);
  for (int c = 0; c < 10; ++c) digits['0' + c] = static_cast<int8_t>(c);
  for (int c = 0; c < 6; ++c) digits['a' + c] = digits['A' + c] = static_cast<int8_t>(10 + c);
  return digits;
}();

// A line in the form dramsim3_traces.py writes, "0x<hex> READ|WRITE <cycle>" one space apart, from
// `p` (before `end`) on, in one pass with one loop per number, into `r`: where its cycle ends (the
// line must end there), or nullptr for any other line (the general parser takes it, errors
// included). Numbers that might not fit (more than 16 hex or 19 decimal digits) take the general
// parser too. The numbers are built in locals and `r` written once: a store through `r` may alias
// the characters (char aliases anything), so each would reload them. Not a std::optional:
// returned through the stack, it was read back before its stores had landed (a store-forwarding
// stall on every line).
const char* parse_common(const char* p, const char* const end, TrafficRequest& r) {
  if (end - p < 2 || p[0] != '0' || p[1] != 'x') return nullptr;
  const char* digits = p += 2;
  uint64_t address = 0;
  for (int8_t d = 0; p < end && (d = kHexDigits[static_cast<unsigned char>(*p)]) >= 0; ++p)
    address = address << 4 | static_cast<uint64_t>(d);
  if (p == digits || p - digits > 16 || p == end || *p++ != ' ') return nullptr;
  const std::string_view rest(p, static_cast<size_t>(end - p));
  const bool is_write = rest.starts_with("WRITE ");
  if (!is_write && !rest.starts_with("READ ")) return nullptr;
  digits = p += is_write ? 6 : 5;
  uint64_t cycle = 0;
  for (; p < end && static_cast<unsigned>(*p - '0') <= 9; ++p)
    cycle = cycle * 10 + static_cast<uint64_t>(*p - '0');
  if (p == digits || p - digits > std::numeric_limits<uint64_t>::digits10) return nullptr;
  r = TrafficRequest{address, is_write, cycle};
  return p;
}

}  // namespace

TrafficRequest TraceSource::parse(std::string_view address, std::string_view type,
                                  std::string_view cycle) const {
  TrafficRequest r;
  const std::optional<uint64_t> a = parse_number(address, 16);
  if (!a) fail("'" + std::string(address) + "' is not a hexadecimal address (e.g. 0x1f40)");
  r.address = *a;
  if (type == "WRITE" || type == "P_MEM_WR")
    r.is_write = true;
  else if (type != "READ" && type != "BOFF")
    fail("unknown request type '" + std::string(type) + "'; expected READ or WRITE");
  const std::optional<uint64_t> c = parse_number(cycle, 10);
  if (!c) fail("'" + std::string(cycle) + "' is not a cycle number (a whole number >= 0)");
  r.cycle = *c;
  if (r.cycle < last_cycle_)
    fail("cycle " + std::string(cycle) + " is earlier than the previous request's cycle " +
         std::to_string(last_cycle_) + "; a trace must be in time order");
  return r;
}

bool TraceSource::next_line(std::string_view& line) {
  constexpr size_t kBlockBytes = size_t{1} << 16;
  for (;;) {
    const size_t end = block_.find('\n', unread_);
    if (end != std::string::npos) {
      line = std::string_view(block_).substr(unread_, end - unread_);
      unread_ = end + 1;
      return true;
    }
    if (!in_) break;
    block_.erase(0, unread_);  // a partial line moves to the front
    unread_ = 0;
    const size_t kept = block_.size();
    block_.resize(kept + kBlockBytes);
    in_.read(block_.data() + kept, static_cast<std::streamsize>(kBlockBytes));
    block_.resize(kept + static_cast<size_t>(in_.gcount()));
  }
  if (unread_ == block_.size()) return false;
  line = std::string_view(block_).substr(unread_);  // the last line, with no '\n'
  unread_ = block_.size();
  return true;
}

std::optional<TrafficRequest> TraceSource::next() {
  TrafficRequest r;
  // Most lines take the fast parser where they are in the block, up to their '\n', without a
  // search for it first; the others, a line the block cuts, and every error, take next_line.
  const char* const block_end = block_.data() + block_.size();
  const char* const end = parse_common(block_.data() + unread_, block_end, r);
  if (end != nullptr && end != block_end && *end == '\n' && r.cycle >= last_cycle_) {
    ++line_;
    unread_ = static_cast<size_t>(end + 1 - block_.data());
    last_cycle_ = r.cycle;
    return r;
  }
  std::string_view text;
  while (next_line(text)) {
    ++line_;
    // Most lines take the fast parser; the others, and every error, the general one.
    const char* const text_end = text.data() + text.size();
    if (parse_common(text.data(), text_end, r) != text_end || r.cycle < last_cycle_) {
      std::string_view rest = text;
      const std::string_view address = next_field(rest);
      if (address.empty() || address.front() == '#') continue;
      const std::string_view type = next_field(rest);
      const std::string_view cycle = next_field(rest);
      if (cycle.empty() || !next_field(rest).empty())
        fail("expected '<hex address> READ|WRITE <cycle>', got '" +
             std::string(text.substr(0, 60)) + "'");
      r = parse(address, type, cycle);
    }
    last_cycle_ = r.cycle;
    return r;
  }
  if (in_.bad()) fail("read error");
  return std::nullopt;
}

}  // namespace tessera::memsim
