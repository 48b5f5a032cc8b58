// One sweep point: build the model and chip, plan every design the sweep asks for, simulate each
// plan, and reduce it all to a PointResult; a serve sweep's point serves its load instead
// (serve_point.hpp). A point that cannot run (the model does not fit, a
// parameter the plugin rejects) is a failed result with the reason, never an error of the sweep.
#pragma once

#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "framework/driver/driver.hpp"
#include "framework/driver/op_plan_cache.hpp"
#include "framework/dse/point_result.hpp"
#include "framework/dse/points.hpp"
#include "framework/dse/sweep_spec.hpp"
#include "framework/plugin/registry.hpp"

namespace tessera::dse {

struct EvaluateOptions {
  unsigned threads = 0;  // planner threads per point (0: all)
};

// Each design of `compilation` as planned and, where it was simulated, as simulated (never Ideal,
// whose plan no chip can run): a point's rows, and `tessera compile --format json`'s designs.
std::vector<DesignRow> design_rows(const driver::Compilation& compilation);

PointResult evaluate_point(const SweepSpec& spec, const Point& point, const Registry& registry,
                           driver::OpPlanCache& cache, const EvaluateOptions& options);

}  // namespace tessera::dse
