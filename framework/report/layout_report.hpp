// `tessera layout`'s answers (driver/layout.hpp) as the terminal prints them and as one JSON
// document, schema tessera-layout-1 (docs/formats.md), which tessera.layout in Python returns.
#pragma once

#include <string>

#include "framework/driver/layout.hpp"

namespace tessera {

// layout, shape, a `locate` line per index, an `inverse` line per place, then the block map.
std::string render_layout(const driver::LayoutDescription& description);
// The candidates, cheapest first, as a table, and the one chosen.
std::string render_choice(const driver::LayoutChoice& choice);

std::string layout_json(const driver::LayoutAnswer& answer);

}  // namespace tessera
