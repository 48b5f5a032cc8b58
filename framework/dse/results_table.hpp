// The sweep's results: results.csv (one row per point × design, every metric of the compile and
// simulate tables plus the axes) and results.json (the same rows, with the sweep's name, axes and
// plots for `tessera plot`). Rows are in point order, designs in the order the sweep lists them,
// numbers in their shortest exact decimal form: the same results give the same bytes. A serve
// sweep's tables hold one row per point, its served figures and, with a goal, each point's
// verdict and the choice (serve_goal.hpp; docs/dse.md).
#pragma once

#include <map>
#include <string>

#include "framework/dse/point_result.hpp"
#include "framework/dse/sweep_spec.hpp"

namespace tessera::dse {

using PointResults = std::map<size_t, PointResult>;  // by point index

std::string results_csv(const SweepSpec& spec, const PointResults& results);
std::string results_json(const SweepSpec& spec, const PointResults& results);

}  // namespace tessera::dse
