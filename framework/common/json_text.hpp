// JSON documents as text. JSON holds only UTF-8, and names that reach a report come from users
// (a chip's or model's `name:`, a file name), in whatever bytes they were written: nlohmann's dump
// throws on the first byte that is not UTF-8. Every report and the trace write through here.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace tessera {

// `doc` as JSON text (`indent` as nlohmann::json::dump: -1 one line, n spaces per level). Strings
// and keys that are not well-formed UTF-8 are written as user_text.hpp's valid_utf8 gives them
// (each bad byte as the four characters \xNN), so the text is valid JSON and still tells the bytes.
std::string json_text(const nlohmann::json& doc, int indent = -1);

// `text`, or null when it is empty (an optional one-line field of a report).
inline nlohmann::json text_or_null(const std::string& text) {
  return text.empty() ? nlohmann::json(nullptr) : nlohmann::json(text);
}

}  // namespace tessera
