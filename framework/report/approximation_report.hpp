// What a chip file approximates (its `approximation:`, chip_spec.hpp), said beside every figure
// planned or simulated on it: a line of the text reports and the key "approximation" of the JSON
// documents (null when the chip file states none).
#pragma once

#include <string>

#include "framework/chip_spec/chip_spec.hpp"

namespace tessera {

// "chip model   TEXT\n", or "" when `chip` states no approximation.
std::string approximation_line(const ChipSpec& chip);

// `document` (a JSON object's text) with "approximation" set: the chip's text, or null.
std::string with_approximation(const std::string& document, const ChipSpec& chip);

}  // namespace tessera
