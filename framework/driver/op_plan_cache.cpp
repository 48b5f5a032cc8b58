#include "framework/driver/op_plan_cache.hpp"

#include <tbb/task_arena.h>

namespace tessera::driver {

Result<std::shared_ptr<const OpPlanCache::Value>> OpPlanCache::get(const std::string& key,
                                                                   const Compute& compute) {
  std::promise<std::shared_ptr<const Value>> promise;
  std::shared_future<std::shared_ptr<const Value>> pending;
  {
    std::lock_guard lock(mutex_);
    auto it = entries_.find(key);
    if (it != entries_.end()) {
      ++hits_;
      pending = it->second;
    } else {
      ++misses_;
      entries_.emplace(key, promise.get_future().share());
    }
  }
  if (pending.valid()) {
    if (auto plans = pending.get()) return plans;
    auto again = compute();  // the first computation failed: so will this one, with its reason
    if (!again) return again.error();
    return std::make_shared<const Value>(std::move(*again));
  }
  // Isolated: while its partitioner waits for its own tasks, this thread must not pick up another
  // point that would wait on this very entry.
  Result<Value> plans = tbb::this_task_arena::isolate([&] { return compute(); });
  if (!plans) {
    std::lock_guard lock(mutex_);
    entries_.erase(key);
    promise.set_value(nullptr);
    return plans.error();
  }
  auto shared = std::make_shared<const Value>(std::move(*plans));
  promise.set_value(shared);
  return shared;
}

size_t OpPlanCache::hits() const {
  std::lock_guard lock(mutex_);
  return hits_;
}

size_t OpPlanCache::misses() const {
  std::lock_guard lock(mutex_);
  return misses_;
}

}  // namespace tessera::driver
