#include "framework/serve/trace_file.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <nlohmann/json.hpp>

#include "framework/common/files.hpp"
#include "framework/common/user_text.hpp"

namespace tessera::serve {

namespace {

constexpr std::array<const char*, 3> kFields = {"arrival_s", "prompt_tokens", "output_tokens"};
// Beyond the zoo's longest sequence (frontend/zoo/builders.hpp kMaxSeq) no model holds a request.
constexpr int64_t kMaxTokens = int64_t{1} << 24;

std::string expected(size_t field) {
  return field == 0 ? "seconds from the trace's start, a finite number >= 0"
                    : fmt::format("a whole number of tokens in [1, {}]", kMaxTokens);
}

Error field_error(const std::string& where, size_t field, const std::string& got) {
  return input_error(
      fmt::format("{}: {}: expected {}, got {}", where, kFields[field], expected(field), got));
}

// Sets the field from its text; false when it is not what the field takes.
bool set_field(Request& r, size_t field, const std::string& text) {
  if (field == 0) {
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), r.arrival_s);
    return ec == std::errc() && end == text.data() + text.size() && std::isfinite(r.arrival_s) &&
           r.arrival_s >= 0;
  }
  int64_t& n = field == 1 ? r.prompt_tokens : r.output_tokens;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
  return ec == std::errc() && end == text.data() + text.size() && n >= 1 && n <= kMaxTokens;
}

std::string trimmed(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
    s.remove_suffix(1);
  return std::string(s);
}

std::vector<std::string> cells(const std::string& line) {
  std::vector<std::string> out;
  size_t start = 0;
  for (size_t end; (end = line.find(',', start)) != std::string::npos; start = end + 1)
    out.push_back(trimmed(std::string_view(line).substr(start, end - start)));
  out.push_back(trimmed(std::string_view(line).substr(start)));
  return out;
}

size_t field_index(const std::string& name, const std::string& where) {
  for (size_t f = 0; f < kFields.size(); ++f)
    if (name == kFields[f]) return f;
  throw Failure(input_error(
      fmt::format("{}: unknown field {}; a trace has arrival_s, prompt_tokens and output_tokens",
                  where, in_quotes(name))));
}

// The header's columns, each field once.
std::array<size_t, 3> header_columns(const std::string& line, const std::string& where) {
  std::array<size_t, 3> column{SIZE_MAX, SIZE_MAX, SIZE_MAX};
  auto names = cells(line);
  for (size_t c = 0; c < names.size(); ++c) column[field_index(names[c], where)] = c;
  for (size_t f = 0; f < kFields.size(); ++f)
    if (column[f] == SIZE_MAX)
      throw Failure(
          input_error(fmt::format("{}: the header lacks {}; the first line names the columns: "
                                  "arrival_s,prompt_tokens,output_tokens",
                                  where, kFields[f])));
  return column;
}

Request csv_row(const std::string& line, const std::array<size_t, 3>& column, size_t columns,
                const std::string& where) {
  auto row = cells(line);
  if (row.size() != columns)
    throw Failure(
        input_error(fmt::format("{}: expected {} comma-separated cells as the header names, got {}",
                                where, columns, row.size())));
  Request r;
  for (size_t f = 0; f < kFields.size(); ++f)
    if (!set_field(r, f, row[column[f]]))
      throw Failure(field_error(where, f, in_quotes(row[column[f]])));
  return r;
}

Request jsonl_row(const std::string& line, const std::string& where) {
  nlohmann::json doc = nlohmann::json::parse(line, nullptr, false);
  if (!doc.is_object())
    throw Failure(input_error(fmt::format(
        "{}: expected one JSON object per line, e.g. {{\"arrival_s\": 0.5, \"prompt_tokens\": "
        "512, \"output_tokens\": 128}}",
        where)));
  for (const auto& item : doc.items()) field_index(item.key(), where);
  Request r;
  for (size_t f = 0; f < kFields.size(); ++f) {
    auto it = doc.find(kFields[f]);
    if (it == doc.end())
      throw Failure(
          input_error(fmt::format("{}: missing {} ({})", where, kFields[f], expected(f))));
    if (!it->is_number()) throw Failure(field_error(where, f, in_quotes(it->dump())));
    if (!set_field(r, f, it->dump())) throw Failure(field_error(where, f, in_quotes(it->dump())));
  }
  return r;
}

std::vector<TraceRow> parse_trace(const std::string& text, const std::string& name, bool csv) {
  std::vector<TraceRow> rows;
  std::optional<std::array<size_t, 3>> column;
  size_t columns = 0, number = 0, start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    std::string line = trimmed(std::string_view(text).substr(start, end - start));
    start = end + 1;
    std::string where = fmt::format("{}:{}", name, ++number);
    if (line.empty() || line.front() == '#') continue;
    if (csv && !column) {
      column = header_columns(line, where);
      columns = cells(line).size();
      continue;
    }
    Request r = csv ? csv_row(line, *column, columns, where) : jsonl_row(line, where);
    rows.push_back(TraceRow{r, where});
  }
  if (rows.empty())
    throw Failure(input_error(name + ": the trace holds no request; add rows of arrival_s, "
                                     "prompt_tokens, output_tokens (docs/formats.md)"));
  return rows;
}

}  // namespace

Result<std::vector<TraceRow>> read_trace(const std::filesystem::path& path) {
  const std::string ext = path.extension().string();
  if (ext != ".csv" && ext != ".jsonl" && ext != ".json")
    return input_error(fmt::format(
        "{}: a trace is .csv or .jsonl (docs/formats.md, \"Request traces\"); rename it to say "
        "which",
        printable(path.string())));
  auto text = read_file(path, kMaxTextBytes);
  if (!text) return text.error();
  return parse_trace_text(*text, path);
}

Result<std::vector<TraceRow>> parse_trace_text(const std::string& text,
                                               const std::filesystem::path& path) {
  std::vector<TraceRow> rows;
  try {
    rows = parse_trace(text, printable(path.string()), path.extension().string() == ".csv");
  } catch (const Failure& f) {
    return f.error();
  }
  std::stable_sort(rows.begin(), rows.end(), [](const TraceRow& a, const TraceRow& b) {
    return a.request.arrival_s < b.request.arrival_s;
  });
  for (size_t i = 0; i < rows.size(); ++i) rows[i].request.id = static_cast<int64_t>(i);
  return rows;
}

}  // namespace tessera::serve
