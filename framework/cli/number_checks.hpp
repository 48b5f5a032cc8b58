// Checks for the command line's number options, their bounds read from the one table the Python
// module shares (framework/driver/option_bounds.hpp). CLI11's own Range lets NaN through (every
// comparison with it is false) and prints a double's limit with its 309 digits; these accept only
// finite numbers in the range and say the range as a person writes it ("in (0, 86400]").
#pragma once

#include <CLI/CLI.hpp>
#include <string_view>

namespace tessera::cli {

// The bound of `option` of `command` in driver::option_bounds() (which must hold it).
CLI::Validator bounded(std::string_view command, std::string_view option);

}  // namespace tessera::cli
