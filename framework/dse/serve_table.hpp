// A serve sweep's result table (docs/dse.md, "A serve sweep's results.csv"): one row per point,
// its served figures and, with a goal, its verdict and the choice (serve_goal.hpp).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "framework/dse/results_table.hpp"
#include "framework/dse/table_cells.hpp"

namespace tessera::dse {

std::vector<std::string> serve_columns(const SweepSpec& spec);
std::vector<std::vector<Cell>> serve_rows(const SweepSpec& spec, const PointResults& results);
// results.json's "goal": its limits, what it minimises, and the cheapest and closest points.
nlohmann::json goal_json(const SweepSpec& spec, const PointResults& results);

}  // namespace tessera::dse
