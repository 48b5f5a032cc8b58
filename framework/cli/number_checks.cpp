#include "framework/cli/number_checks.hpp"

#include <fmt/format.h>

#include <charconv>
#include <cmath>

#include "framework/common/user_text.hpp"

namespace tessera::cli {

namespace {

// 86400, 0.5, 1e+06: whole numbers below a million in full, the rest in %g.
std::string readable(double x) {
  if (x == std::floor(x) && std::fabs(x) < 1e6) return fmt::format("{}", static_cast<int64_t>(x));
  return fmt::format("{:g}", x);
}

}  // namespace

CLI::Validator whole_in(int64_t min, int64_t max) {
  std::string range = fmt::format("[{}, {}]", min, max);
  return CLI::Validator(
      [min, max, range](std::string& text) -> std::string {
        int64_t value = 0;
        auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
        bool whole = ec == std::errc() && end == text.data() + text.size();
        if (whole && value >= min && value <= max) return "";
        return "expected a whole number in " + range + ", got " + in_quotes(text);
      },
      "INT in " + range);
}

CLI::Validator number_in(double min, double max, bool min_open) {
  std::string range = (min_open ? "(" : "[") + readable(min) + ", " + readable(max) + "]";
  return CLI::Validator(
      [min, max, min_open, range](std::string& text) -> std::string {
        double value = 0;
        auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
        bool number = ec == std::errc() && end == text.data() + text.size() && std::isfinite(value);
        bool above = min_open ? value > min : value >= min;
        if (number && above && value <= max) return "";
        return "expected a number in " + range + ", got " + in_quotes(text);
      },
      "NUMBER in " + range);
}

}  // namespace tessera::cli
