// Per-op plans by class, shared between compiles: a sweep's points, the split search's candidate
// graphs and the final graph all look classes up here, so a class of identical ops is partitioned
// once per chip. The key (class_key, driver.hpp) names everything a class's plans depend on: the
// op's signature (shapes, dtypes, storage, indexing), every Machine field the partitioner reads
// (not the HBM rates: preload time is the scheduler's) and the chip sections that time or
// partition ops. Thread-safe: a key being computed is waited for, not computed twice; failures
// are not kept.
#pragma once

#include <functional>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "framework/common/status.hpp"
#include "framework/planner/partition/partition.hpp"

namespace tessera::driver {

class OpPlanCache {
 public:
  using Value = planner::ClassOutcome;
  using Compute = std::function<Result<Value>()>;
  // `compute` runs at most once per key while it succeeds.
  Result<std::shared_ptr<const Value>> get(const std::string& key, const Compute& compute);
  size_t hits() const;
  size_t misses() const;

 private:
  mutable std::mutex mutex_;
  std::map<std::string, std::shared_future<std::shared_ptr<const Value>>> entries_;
  size_t hits_ = 0, misses_ = 0;
};

}  // namespace tessera::driver
