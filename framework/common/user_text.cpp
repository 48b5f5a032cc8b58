#include "framework/common/user_text.hpp"

#include <array>
#include <charconv>
#include <cstdio>

namespace tessera {

namespace {

// One unit of the input: its bytes (the code point, or one byte that is not UTF-8) and the code
// point it decodes to (-1 for a byte that does not start a well-formed sequence).
struct Unit {
  size_t size = 1;
  long code_point = -1;
};

// Decodes the well-formed UTF-8 sequence at `at` (RFC 3629: no overlong forms, no surrogates, at
// most U+10FFFF).
Unit decode(std::string_view text, size_t at) {
  auto byte = [&](size_t i) { return static_cast<unsigned char>(text[at + i]); };
  unsigned char lead = byte(0);
  if (lead < 0x80) return {1, lead};
  size_t size = lead >= 0xC2 && lead <= 0xDF   ? 2
                : lead >= 0xE0 && lead <= 0xEF ? 3
                : lead >= 0xF0 && lead <= 0xF4 ? 4
                                               : 0;
  if (size == 0 || at + size > text.size()) return {};
  unsigned char low = 0x80, high = 0xBF;  // the range of the second byte
  if (lead == 0xE0) low = 0xA0;
  if (lead == 0xED) high = 0x9F;
  if (lead == 0xF0) low = 0x90;
  if (lead == 0xF4) high = 0x8F;
  if (byte(1) < low || byte(1) > high) return {};
  long cp = lead & (0xFF >> (size + 1));
  for (size_t i = 1; i < size; ++i) {
    if (i > 1 && (byte(i) < 0x80 || byte(i) > 0xBF)) return {};
    cp = (cp << 6) | (byte(i) & 0x3F);
  }
  return {size, cp};
}

// \xNN or \uNNNN.
std::string escape(const char* format, unsigned long value) {
  std::array<char, 16> buf{};
  std::snprintf(buf.data(), buf.size(), format, value);
  return buf.data();
}

// Code points that reorder or break what is shown without being visible themselves.
bool invisible_control(long cp) {
  constexpr std::array<std::pair<long, long>, 5> ranges{
      {{0x061C, 0x061C}, {0x200E, 0x200F}, {0x2028, 0x202E}, {0x2066, 0x2069}, {0x0080, 0x009F}}};
  for (const auto& [first, last] : ranges)
    if (cp >= first && cp <= last) return true;
  return false;
}

}  // namespace

std::string printable(std::string_view text, size_t max_chars) {
  std::string out;
  size_t chars = 0;
  for (size_t at = 0; at < text.size();) {
    Unit unit = decode(text, at);
    std::string piece;
    size_t width = 1;
    if (unit.code_point < 0 || unit.code_point < 0x20 || unit.code_point == 0x7F) {
      piece = escape("\\x%02lX", static_cast<unsigned char>(text[at]));
      width = piece.size();
      unit.size = 1;
    } else if (invisible_control(unit.code_point)) {
      piece = escape("\\u%04lX", static_cast<unsigned long>(unit.code_point));
      width = piece.size();
    } else {
      piece = text.substr(at, unit.size);
    }
    if (chars + width > max_chars) return out + "…";
    out += piece;
    chars += width;
    at += unit.size;
  }
  return out;
}

std::string valid_utf8(std::string_view text) {
  std::string out;
  for (size_t at = 0; at < text.size();) {
    Unit unit = decode(text, at);
    if (unit.code_point < 0) {
      out += escape("\\x%02lX", static_cast<unsigned char>(text[at]));
      ++at;
    } else {
      out += text.substr(at, unit.size);
      at += unit.size;
    }
  }
  return out;
}

std::optional<uint64_t> whole_number(std::string_view text, uint64_t max) {
  uint64_t value = 0;
  if (text.empty() || text.find_first_not_of("0123456789") != std::string_view::npos)
    return std::nullopt;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc{} || end != text.data() + text.size() || value > max) return std::nullopt;
  return value;
}

std::string in_quotes(std::string_view text, size_t max_chars) {
  return "'" + printable(text, max_chars) + "'";
}

}  // namespace tessera
