// What stays in SRAM across steps (planner/residency.hpp), as `tessera compile` and `tessera
// simulate` show it: how much of each core's SRAM the homes hold, what is resident by kind, and
// each candidate left streamed with why.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "framework/chip/machine.hpp"
#include "framework/planner/plan.hpp"

namespace tessera {

// Lines ending in a newline; empty when residency is off. `streamed_rows`: at most this many
// streamed candidates listed (the rest counted).
std::string residency_text(const planner::ResidencyRecord& residency, const Machine& machine,
                           size_t streamed_rows = 8);

// {"mode", "bytes_per_core", "resident_bytes": {"weights", "kv_cache"}, "choices_tried",
// "units": [{label, kind, bytes, saves_s, resident, why}]}; null when residency is off.
nlohmann::json residency_json(const planner::ResidencyRecord& residency);

}  // namespace tessera
