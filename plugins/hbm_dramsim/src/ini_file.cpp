#include "ini_file.hpp"

#include <algorithm>
#include <cctype>

namespace tessera::hbm {

namespace {

std::string trim(const std::string& text) {
  size_t begin = 0, end = text.size();
  while (begin < end && std::isspace(static_cast<unsigned char>(text[begin]))) ++begin;
  while (end > begin && std::isspace(static_cast<unsigned char>(text[end - 1]))) --end;
  return text.substr(begin, end - begin);
}

// DRAMsim3's files put comments right after values (`1; read preamble`), so a comment starts at
// the first `;` or `#` wherever it is. No DRAMsim3 value contains either character.
std::string strip_comment(const std::string& text) {
  size_t at = text.find_first_of(";#");
  return at == std::string::npos ? text : text.substr(0, at);
}

// Shown in messages: a bounded, printable excerpt of a line the reader could not understand.
std::string excerpt(const std::string& line) {
  constexpr size_t kMax = 40;
  std::string shown;
  for (char c : line.substr(0, kMax))
    shown += std::isprint(static_cast<unsigned char>(c)) ? c : '?';
  return line.size() > kMax ? shown + "..." : shown;
}

}  // namespace

std::string to_lower(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return text;
}

IniFile parse_ini(const std::string& text) {
  IniFile file;
  std::string section;
  size_t start = 0;
  for (int line_number = 1; start <= text.size(); ++line_number) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    const std::string raw = text.substr(start, end - start);
    start = end + 1;
    const std::string line = trim(strip_comment(raw));
    if (line.empty()) continue;
    if (line.front() == '[') {
      if (line.back() != ']' || line.size() < 3) {
        file.problems.push_back({line_number, "expected a section header like '[timing]', got '" +
                                                  excerpt(trim(raw)) + "'"});
        continue;
      }
      std::string spelled = trim(line.substr(1, line.size() - 2));
      section = to_lower(spelled);
      file.sections.push_back({section, spelled, line_number});
      continue;
    }
    size_t equals = line.find_first_of("=:");
    std::string key = equals == std::string::npos ? "" : trim(line.substr(0, equals));
    if (key.empty()) {
      file.problems.push_back(
          {line_number, "expected 'key = value' or '[section]', got '" + excerpt(trim(raw)) + "'"});
      continue;
    }
    file.entries.push_back(
        {section, to_lower(key), key, trim(line.substr(equals + 1)), line_number});
  }
  return file;
}

}  // namespace tessera::hbm
