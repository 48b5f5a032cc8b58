// Text a user (or a file a user gave) supplied, made safe to quote in a message: one line, no
// terminal control, bounded. A message naming a YAML value, a file name or an ONNX string quotes it
// through these, so a newline cannot forge a second line, an escape sequence or a right-to-left
// override cannot rewrite the terminal, a NUL cannot cut the message short and a megabyte of
// garbage is not echoed back.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace tessera {

// How much of a user's text a message quotes (in characters, escapes counted as written).
inline constexpr size_t kQuotedChars = 200;

// `text` with control characters (C0, DEL, C1), bytes that are not UTF-8 written as \xNN, and
// Unicode's invisible direction and line controls (U+061C, U+200E-F, U+2028-E, U+2066-9) as
// \uNNNN; printable UTF-8 (accents, CJK) is kept. When the result would exceed `max_chars`
// characters it is cut there and ends in "…".
std::string printable(std::string_view text, size_t max_chars = kQuotedChars);

// printable(text) between single quotes: how messages quote a user's words. (Not `quoted`, which
// argument-dependent lookup would confuse with std::quoted.)
std::string in_quotes(std::string_view text, size_t max_chars = kQuotedChars);

// `text` with every byte that is not part of well-formed UTF-8 written as \xNN and nothing else
// changed: a name fit for JSON (which holds only UTF-8) that still says which bytes it had.
std::string valid_utf8(std::string_view text);

// `text` as a whole number when it is one: decimal digits only, no sign, no space, at most
// `max`. Empty when it is not (a letter, a sign, more than `max`, which no stoull would tell
// without throwing).
std::optional<uint64_t> whole_number(std::string_view text, uint64_t max = UINT64_MAX);

}  // namespace tessera
