// One sweep point: build the model and chip, plan every design the sweep asks for, simulate each
// plan, and reduce it all to a PointResult. A point that cannot run (the model does not fit, a
// parameter the plugin rejects) is a failed result with the reason, never an error of the sweep.
#pragma once

#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "framework/dse/point_result.hpp"
#include "framework/dse/points.hpp"
#include "framework/dse/sweep_spec.hpp"
#include "framework/planner/op_plans.hpp"
#include "framework/plugin/registry.hpp"

namespace tessera::dse {

// Per-op plans by model and the chip facts the partitioner reads. An HBM bandwidth sweep plans
// its ops once: the partitioner never reads the HBM rates (it times execution and distribution;
// preload time is the planner's). Shared by concurrent points: a plan set being computed is
// waited for, not computed twice. Failures are not cached.
class PlanCache {
 public:
  using Plans = std::vector<planner::OpPlans>;
  using Compute = std::function<Result<Plans>()>;
  // `compute` runs at most once per key while it succeeds.
  Result<std::shared_ptr<const Plans>> get(const std::string& key, const Compute& compute);
  size_t hits() const;
  size_t misses() const;

 private:
  mutable std::mutex mutex_;
  std::map<std::string, std::shared_future<std::shared_ptr<const Plans>>> entries_;
  size_t hits_ = 0, misses_ = 0;
};

struct EvaluateOptions {
  unsigned threads = 0;  // planner threads per point (0: all)
};

PointResult evaluate_point(const SweepSpec& spec, const Point& point, const Registry& registry,
                           PlanCache& cache, const EvaluateOptions& options);

}  // namespace tessera::dse
