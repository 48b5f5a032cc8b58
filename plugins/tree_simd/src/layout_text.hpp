// The text of a tree layout description (JP7770865B2's notation, generalised;
// docs/tree-layouts.md):
//
//   layout := '(' group {',' group} ')' ['@' base] ['#' comment]
//   group  := '(' item {',' item} ')'                 one per tensor axis, in axis order
//   item   := ['*'] divisions '_' name ':' stride     top level first, `Addr` last
//   name   := 'Addr' | level {'*' level}              `chip*group`: two adjacent levels as one
//
// e.g. `((2_A:2, 2_B:2, 25_Addr:25), (2_A:1, 2_B:1, 25_Addr:1))`. A leading '*' marks a broadcast
// item: it places copies instead of splitting the index. This file knows only the syntax; what
// the names and numbers mean on a chip is layout.hpp's. Blanks may appear between tokens.
#pragma once

#include <cctype>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <tessera/sdk/error.hpp>
#include <vector>

namespace tessera::plugins::tree {

struct ItemText {
  bool broadcast = false;
  uint64_t divisions = 0;
  std::vector<std::string> levels;  // empty for Addr; several for a merged `chip*group`
  uint64_t stride = 0;
  uint32_t column = 0;  // 1-based column of the item's first character
};

struct GroupText {
  std::vector<ItemText> items;
  uint32_t column = 0;        // of its '('
  uint32_t close_column = 0;  // of its ')'
};

struct LayoutText {
  std::vector<GroupText> groups;
  uint64_t base_address = 0;
  uint32_t base_column = 0;  // 0 when no '@' was given
  uint32_t end_column = 0;   // one past the layout (before any comment)
  std::string comment;       // after '#', blanks trimmed; "" when none
};

// Throws sdk::Error(INVALID_ARGUMENT) whose message starts with "column N:" (1-based) and says
// what was expected there.
LayoutText parse_layout_text(std::string_view text);

// Canonical text: ", " between items and groups, names as given, '@' only for a non-zero base.
std::string format_layout_text(const LayoutText& layout);

// "column N: " + message, as every layout error starts.
std::string at_column(uint32_t column, const std::string& message);

// A cursor over a layout text that reports errors by 1-based column (messages "column N: expected
// ..., found ..."). Shared by the layout parser and the mapper's choose(...) form.
class TextCursor {
 public:
  explicit TextCursor(std::string_view text) : text_(text) {}

  void skip_blanks() {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\t')) ++pos_;
  }
  bool at_end() const { return pos_ >= text_.size(); }
  char peek() const { return at_end() ? '\0' : text_[pos_]; }
  uint32_t column() const { return static_cast<uint32_t>(pos_ + 1); }
  bool accept(char c) {
    skip_blanks();
    if (peek() != c) return false;
    ++pos_;
    return true;
  }
  void expect(char c, const std::string& what) {
    if (!accept(c)) fail("expected " + what);
  }
  // What stands at the cursor, for "found ..." in messages.
  std::string found() const {
    if (at_end()) return "the end of the text";
    std::string_view rest = text_.substr(pos_, 12);
    return "'" + std::string(rest) + (pos_ + 12 < text_.size() ? "...'" : "'");
  }
  [[noreturn]] void fail(const std::string& expected) const {
    throw sdk::invalid_argument(at_column(column(), expected + ", found " + found()));
  }

  uint64_t number(const std::string& what) {
    skip_blanks();
    if (!std::isdigit(static_cast<unsigned char>(peek()))) fail("expected " + what);
    uint32_t start = column();
    constexpr uint64_t kMax = static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
    uint64_t value = 0;
    while (std::isdigit(static_cast<unsigned char>(peek()))) {
      uint64_t digit = static_cast<uint64_t>(text_[pos_++] - '0');
      if (value > (kMax - digit) / 10)
        throw sdk::invalid_argument(
            at_column(start, "number too large (at most " + std::to_string(kMax) + ")"));
      value = value * 10 + digit;
    }
    return value;
  }

  // Letters, digits and any of `extra`, starting with a letter; fails with `expected`.
  std::string word(const std::string& expected, const std::string& extra = "") {
    skip_blanks();
    if (!std::isalpha(static_cast<unsigned char>(peek()))) fail(expected);
    size_t start = pos_;
    while (std::isalnum(static_cast<unsigned char>(peek())) ||
           (!at_end() && extra.find(peek()) != std::string::npos))
      ++pos_;
    if (pos_ - start > 64)
      throw sdk::invalid_argument(
          at_column(static_cast<uint32_t>(start + 1), "a name has at most 64 characters"));
    return std::string(text_.substr(start, pos_ - start));
  }

  void skip_to_end() { pos_ = text_.size(); }
  // The rest of the text without its surrounding blanks; the cursor moves to the end.
  std::string rest() {
    skip_blanks();
    std::string_view r = text_.substr(pos_);
    skip_to_end();
    return std::string(r.substr(0, r.find_last_not_of(" \t") + 1));
  }

 private:
  std::string_view text_;
  size_t pos_ = 0;
};

}  // namespace tessera::plugins::tree
