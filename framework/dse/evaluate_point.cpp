#include "framework/dse/evaluate_point.hpp"

#include <tbb/task_arena.h>

#include <chrono>
#include <exception>

#include "framework/driver/driver.hpp"
#include "framework/dse/point_setup.hpp"

namespace tessera::dse {

Result<std::shared_ptr<const PlanCache::Plans>> PlanCache::get(const std::string& key,
                                                               const Compute& compute) {
  std::promise<std::shared_ptr<const Plans>> promise;
  std::shared_future<std::shared_ptr<const Plans>> pending;
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
    return std::make_shared<const Plans>(std::move(*again));
  }
  // Isolated: while its partitioner waits for its own tasks, this thread must not pick up another
  // point that would wait on this very entry.
  Result<Plans> plans = tbb::this_task_arena::isolate([&] { return compute(); });
  if (!plans) {
    std::lock_guard lock(mutex_);
    entries_.erase(key);
    promise.set_value(nullptr);
    return plans.error();
  }
  auto shared = std::make_shared<const Plans>(std::move(*plans));
  promise.set_value(shared);
  return shared;
}

size_t PlanCache::hits() const {
  std::lock_guard lock(mutex_);
  return hits_;
}

size_t PlanCache::misses() const {
  std::lock_guard lock(mutex_);
  return misses_;
}

namespace {

Metrics planned_metrics(const planner::DesignResult& d) {
  return {d.latency_s,
          d.hbm_utilisation,
          d.interconnect_utilisation,
          0,
          d.achieved_flops_per_s,
          d.breakdown.execution_only_s,
          d.breakdown.overlapped_s,
          d.breakdown.preload_stall_s,
          d.breakdown.congestion_s};
}

Metrics simulated_metrics(const sim::SimSummary& s) {
  return {s.latency_s,
          s.hbm_utilisation,
          s.interconnect_utilisation,
          s.sram_utilisation,
          s.achieved_flops_per_s,
          s.breakdown.execution_only_s,
          s.breakdown.overlapped_s,
          s.breakdown.preload_stall_s,
          s.breakdown.congestion_s};
}

void describe_machine(PointResult& r, const Machine& m) {
  r.cores = m.cores;
  r.hbm_peak_bytes_per_s = m.hbm_peak_bytes_per_s;
  r.hbm_sustained_bytes_per_s = m.hbm_bytes_per_s;
  r.interconnect_bytes_per_s = m.interconnect_bytes_per_s;
  r.peak_flops_per_s = m.peak_flops_per_s;
}

Status run(const SweepSpec& spec, const Point& point, const Registry& registry, PlanCache& cache,
           const EvaluateOptions& options, PointResult& r) {
  PluginSet plugins(registry);
  auto setup = setup_point(spec, point, plugins);
  if (!setup) return setup.error();
  r.model = setup->model;
  r.chip = setup->chip.spec.name;
  r.batch = setup->batch;
  r.seq = setup->seq;
  r.mode = setup->mode;
  r.dtype = setup->dtype;
  auto chip = driver::open_chip(plugins, std::move(setup->chip));
  if (!chip) return chip.error();
  describe_machine(r, chip->models.machine);
  auto model = driver::load(setup->request);
  if (!model) return model.error();

  driver::CompileOptions compile;
  compile.designs = spec.base.designs;
  compile.threads = options.threads;
  compile.max_displacement = spec.base.max_displacement;
  compile.simulate = spec.base.simulate;
  compile.sim.groups_per_chip = spec.base.groups_per_chip;
  compile.op_plan_cache = [&cache](const std::string& key, const PlanCache::Compute& compute) {
    return cache.get(key, compute);
  };
  auto compilation = driver::compile(*chip, *model, compile);
  if (!compilation) return compilation.error();
  for (const driver::CompiledDesign& d : compilation->designs) {
    const planner::DesignResult& planned = d.plan.result;
    DesignRow row{
        to_string(planned.design), planned_metrics(planned), planned.orders_tried, false, {}};
    if (d.simulated) {
      row.simulated = true;
      row.simulated_metrics = simulated_metrics(d.simulated->summary);
    }
    r.rows.push_back(std::move(row));
  }
  return ok_status();
}

}  // namespace

PointResult evaluate_point(const SweepSpec& spec, const Point& point, const Registry& registry,
                           PlanCache& cache, const EvaluateOptions& options) {
  auto start = std::chrono::steady_clock::now();
  PointResult r;
  r.index = point.index;
  r.values = point.values;
  r.target = spec.base.target;
  Status status = ok_status();
  try {
    status = run(spec, point, registry, cache, options, r);
  } catch (const Failure& f) {
    status = f.error();
  } catch (const std::exception& e) {
    status = Error{ErrorKind::internal, StatusCode::internal,
                   std::string("internal error: ") + e.what()};
  }
  r.ok = static_cast<bool>(status);
  if (!r.ok) {
    r.reason = status.error().message;
    r.rows.clear();
  }
  r.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return r;
}

}  // namespace tessera::dse
