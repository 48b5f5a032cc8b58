// What a chip file approximates (its `approximation:`, chip_spec.hpp), said beside every figure
// planned or simulated on it: a line of the text reports and the key "approximation" of the JSON
// documents (null when the chip file states none).
#pragma once

#include <string>

#include "framework/chip_spec/chip_spec.hpp"
#include "framework/serve/serve_request.hpp"

namespace tessera {

// "chip model   TEXT\n", or "" when `chip` states no approximation.
std::string approximation_line(const ChipSpec& chip);
// The same line in a report over several chips (a sweep's summary), naming the chip:
// "chip model   NAME: TEXT\n", or "" when `approximation` is empty.
std::string approximation_line(const std::string& chip_name, const std::string& approximation);

// `document` (a JSON object's text) with `key` set: the chip's text, or null.
std::string with_approximation(const std::string& document, const ChipSpec& chip,
                               const char* key = "approximation");

// A served machine's (serve_request.hpp): its chip's line and, under --disaggregate, the prefill
// group's, each naming its chip ("chip model   NAME: TEXT\n"); "" when neither states one.
std::string approximation_lines(const serve::OpenedServe& opened);
// A serve document (one run's or a load sweep's) with "approximation", the machine's chip's text
// or null, and under --disaggregate "prefill_approximation", the prefill group's.
std::string with_approximations(const std::string& document, const serve::OpenedServe& opened);

}  // namespace tessera
