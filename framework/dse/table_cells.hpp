// A cell of the sweep's result tables (results_table.hpp), and its CSV and JSON forms: one place
// for the compile and serve tables alike.
#pragma once

#include <fmt/format.h>

#include <cmath>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "framework/dse/point_result.hpp"

namespace tessera::dse {

// A table cell. Not a std::variant: GCC 12 reports false maybe-uninitialized warnings on
// variants holding a string once they go through an initializer list.
struct Cell {
  enum class Kind { empty, text, real, integer } kind = Kind::empty;
  std::string text;
  double real = 0;
  int64_t integer = 0;
  Cell() = default;
  Cell(std::string s) : kind(Kind::text), text(std::move(s)) {}  // NOLINT: implicit by design
  Cell(const char* s) : Cell(std::string(s)) {}                  // NOLINT
  Cell(double d) : kind(Kind::real), real(d) {}                  // NOLINT
  Cell(int64_t i) : kind(Kind::integer), integer(i) {}           // NOLINT
};

// The `approximation` column of both tables: the point's chip's, or an empty cell (null in
// results.json, as the compile report's "approximation") when its chip file states none.
inline Cell approximation_cell(const PointResult& r) {
  return r.approximation.empty() ? Cell() : Cell(r.approximation);
}

inline std::string csv_field(const Cell& cell) {
  if (cell.kind == Cell::Kind::empty) return "";
  if (cell.kind == Cell::Kind::integer) return std::to_string(cell.integer);
  if (cell.kind == Cell::Kind::real) return fmt::format("{}", cell.real);
  const std::string& s = cell.text;
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string quoted = "\"";
  for (char c : s) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
  return quoted + "\"";
}

inline nlohmann::json json_value(const Cell& cell) {
  switch (cell.kind) {
    case Cell::Kind::empty:
      return nullptr;
    case Cell::Kind::integer:
      return cell.integer;
    case Cell::Kind::real:
      return std::isfinite(cell.real) ? nlohmann::json(cell.real) : nullptr;
    case Cell::Kind::text:
      return cell.text;
  }
  return nullptr;
}

}  // namespace tessera::dse
