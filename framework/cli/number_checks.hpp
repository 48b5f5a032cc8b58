// Checks for the command line's number options. CLI11's own Range lets NaN through (every
// comparison with it is false) and prints a double's limit with its 309 digits; these accept only
// finite numbers in the range and say the range as a person writes it ("in (0, 86400]").
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>

namespace tessera::cli {

// A whole number in [min, max].
CLI::Validator whole_in(int64_t min, int64_t max);

// A finite number in (min, max] when `min_open`, else in [min, max].
CLI::Validator number_in(double min, double max, bool min_open);

}  // namespace tessera::cli
