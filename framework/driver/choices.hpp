// What the user chose, as typed values: parsed once where the words arrive (the CLI's options, a
// sweep file), then passed down; nothing below re-reads the words.
#pragma once

#include <string>
#include <vector>

#include "framework/common/status.hpp"
#include "framework/planner/plan.hpp"

namespace tessera::driver {

// --target and --chip.
struct ChipChoice {
  std::string target;  // plugin: name, alias or path to NAME.so (common/reference.hpp)
  std::string chip;    // preset name or chip file; empty: the target's default chip
};

// --design NAME|all.
struct DesignChoice {
  // Planned, in table order. Basic and Ideal are always there: they are the table's yardsticks
  // (speedup over Basic, share of Ideal).
  std::vector<planner::Design> planned;
  planner::Design written = planner::Design::elk_full;  // the design plan.yaml holds
  bool write_each = false;  // `all`: plan-DESIGN.yaml for every design as well
};

// Usage error for an unknown name, listing the valid ones.
Result<DesignChoice> parse_design_choice(const std::string& text);

}  // namespace tessera::driver
