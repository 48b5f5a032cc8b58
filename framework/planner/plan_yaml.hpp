// plan.yaml: a Plan (plan.hpp) as text a person can read and the simulator and code generator can
// read back exactly (every number is written in its shortest form that reads back bit-for-bit).
// The format is described in docs/planner.md ("plan.yaml").
#pragma once

#include <string>

#include "framework/common/status.hpp"
#include "framework/planner/plan.hpp"

namespace tessera::planner {

// The file's text. Never fails.
std::string write_plan_yaml(const Plan& plan);

// A Plan from text; `file` labels errors. The first problem found is an input Error naming the
// file, the line and the key path ("ops[3].exec.compute_s"), and saying what was expected:
// unknown or missing keys, a value of the wrong kind or out of range, an unknown design, a
// format version this build cannot read, op indices out of order, and a preload order that does
// not match the ops' preload positions.
Result<Plan> parse_plan_yaml(const std::string& text, const std::string& file);
Result<Plan> read_plan_yaml(const std::string& path);

}  // namespace tessera::planner
