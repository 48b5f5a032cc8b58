// The points of a sweep: the cartesian product of its zip groups (sweep_spec.hpp).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "framework/dse/sweep_spec.hpp"

namespace tessera::dse {

struct Point {
  size_t index = 0;                 // position in the sweep's order, the run directory's key
  std::vector<std::string> values;  // one per axis, in the sweep file's axis order
};

// First group varies slowest; zipped axes take their i-th values together. No axes: one point.
std::vector<Point> enumerate_points(const SweepSpec& spec);

}  // namespace tessera::dse
