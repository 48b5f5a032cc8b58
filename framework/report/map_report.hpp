// `tessera map --format json` (and tessera.map in Python): a mapping run as one JSON document,
// schema tessera-map-1 (docs/formats.md) — the Einsum, the architecture, every mapping with its
// LoopTree as nested objects and the reference model's figures (the tables `tessera map` prints,
// unrounded: joules, seconds, bytes, elements), the mapspace statistics and the search's times.
#pragma once

#include <string>

#include "framework/driver/map.hpp"

namespace tessera {

std::string map_json(const driver::Mapping& mapping);

// `tessera map --list --format json`: {"format": "tessera-map-list-1", "architectures": [...],
// "workloads": [...]}, the preset names.
std::string map_presets_json();

}  // namespace tessera
