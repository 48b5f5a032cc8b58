// The tables of `tessera compile`: one row per design, as planned (ms/token, speedup over Basic,
// share of Ideal, utilisations, TFLOP/s, Elk's breakdown, preload orders tried, the planner's
// search time — kept here, not in plan.yaml, so identical runs write identical plans) and, with
// --simulate, as simulated next to the plan's estimate.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "framework/driver/driver.hpp"

namespace tessera {

// A prefill's footnote: what its time to first token ("TTFT ms") adds to the step, the host's read
// of the logits, or that the chip file states no rate for it; empty for a decode.
std::string first_token_note(const std::optional<driver::FirstTokenRead>& first_token);

// The same as JSON (bytes, rows, bytes_per_s and host_s, the last two null without a rate); null
// for a decode.
nlohmann::json first_token_json(const std::optional<driver::FirstTokenRead>& first_token);

// A simulate report's JSON `document` with a prefill's "first_token" and "ttft_s" (`step_s` and
// the host's read; null without the host's rate); unchanged for a decode (`read` nullopt).
std::string with_first_token(const std::string& document,
                             const std::optional<driver::FirstTokenRead>& read, double step_s);

// "-" in the speedup and share columns when Basic or Ideal was not planned.
std::string planned_table(const driver::Compilation& compilation);

// The ops too large for the chip and how they were split: per class (its first op and how many
// ops it stands for), the rank and slice count chosen, the pipelined estimate of its slices, and
// what the unsplit op needed (its smallest plan's SRAM per core, and its fastest plan's time were
// the SRAM large enough); after a line for the attentions computed in tiles, when some are.
// Empty when nothing was split or tiled.
std::string splits_table(const driver::Compilation& compilation);

// The run as one JSON document (`compile --format json`, docs/formats.md): the tables' numbers
// unrounded, in seconds, fractions and FLOP/s, under the sweep results' field names (the Python
// module returns the same document).
std::string compile_json(const driver::Compilation& compilation, const Machine& machine,
                         sim::MemoryDetail memory);

// Designs that were not simulated are left out; Ideal's row shows its plan and "-" elsewhere, with
// a footnote saying why; `memory` names the HBM model in the heading.
std::string simulated_table(const driver::Compilation& compilation, sim::MemoryDetail memory);

}  // namespace tessera
