// Every bound on a number option, in one table read by the CLI's validators and by the Python
// module alike, so the two doors refuse the same values with the same words.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace tessera::driver {

// One option's bound. `command` is the CLI command ("model": the model words every command that
// loads a model takes); `option` its spelling there ("--threads"), which in Python is the keyword
// with '_' for '-' ("time_limit").
struct OptionBound {
  std::string_view command;
  std::string_view option;
  bool whole;  // whole numbers only, else any finite number
  int64_t min;
  int64_t max;
  bool min_open;  // (min, max] rather than [min, max]
};

std::span<const OptionBound> option_bounds();

// The bound of `option` of `command`; null when that option has none.
const OptionBound* find_option_bound(std::string_view command, std::string_view option);

// "[1, 1024]" or "(0, 86400]".
std::string range_text(const OptionBound& bound);

// Empty when `text` is a number within `bound`, else what is wrong with it:
// "expected a whole number in [1, 1024], got '0'".
std::string bound_violation(const OptionBound& bound, std::string_view text);

}  // namespace tessera::driver
