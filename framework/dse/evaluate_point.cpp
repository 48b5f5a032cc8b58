#include "framework/dse/evaluate_point.hpp"

#include <fmt/format.h>
#include <tbb/task_arena.h>

#include <chrono>
#include <exception>

#include "framework/codegen/program.hpp"
#include "framework/dse/point_setup.hpp"
#include "framework/ir/repeats.hpp"
#include "framework/planner/chip_models.hpp"
#include "framework/planner/partition/partition.hpp"
#include "framework/planner/planner.hpp"
#include "framework/sim/sim_report.hpp"
#include "framework/sim/simulate.hpp"

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

using planner::Machine;

// Everything the partitioner's answer depends on: the graph (its request), the machine without
// its HBM rates, the cost model's parameters, and with a plugin Partitioner every section but the
// memory model's.
std::string cache_key(const PointSetup& s, const planner::ChipModels& models) {
  const Machine& m = models.machine;
  std::string key =
      fmt::format("model={}|batch={}|seq={}|mode={}|dtype={}|", s.request.model,
                  s.request.shape.batch, s.request.shape.seq.value_or(0), s.mode, s.dtype);
  for (const auto& [name, value] : s.request.onnx.dims)
    key += fmt::format("dim:{}={}|", name, value);
  key += fmt::format("{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|", m.target, m.cores, m.chips,
                     m.sram_bytes_per_core, m.clock_hz, m.peak_flops_per_s,
                     m.preload_bytes_per_s_per_core, m.shift_bytes_per_s_per_core,
                     m.sram_bytes_per_s_per_core, m.sync_s, m.interconnect_bytes_per_s,
                     m.compute_speedup, models.partitioner.has_value());
  for (const auto& [section, spec] : s.chip.sections) {
    if (section == Interface::memory_model) continue;
    if (section != Interface::cost_model && !models.partitioner) continue;
    key += std::string(to_string(section)) + ":" + spec.plugin + "{";
    for (const auto& [k, v] : spec.params.items) key += k + "=" + v + ";";
    key += "}";
  }
  return key;
}

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

Result<Metrics> simulated_metrics(const planner::Plan& plan, planner::ChipModels& models,
                                  const ir::Graph& graph, const SweepBase& base) {
  auto program = codegen::lower_plan(plan, graph);
  if (!program) return program.error();
  sim::SimOptions options;
  options.groups_per_chip = base.groups_per_chip;
  auto result = sim::simulate_program(*program, models, options);
  if (!result) return result.error();
  sim::SimSummary s = sim::summarize(*result, *program, models.machine);
  return Metrics{s.latency_s,
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
  r.chip = setup->chip.name;
  r.batch = setup->batch;
  r.seq = setup->seq;
  r.mode = setup->mode;
  r.dtype = setup->dtype;
  auto models = planner::build_chip(plugins, setup->chip);
  if (!models) return models.error();
  describe_machine(r, models->machine);
  auto graph = load_model(setup->request);
  if (!graph) return graph.error();

  planner::PlannerInput input;
  input.graph = &*graph;
  input.classes = ir::identical_ops(*graph);
  input.layers = ir::repeated_layers(*graph, input.classes, ir::edges(*graph));
  input.machine = models->machine;
  planner::PartitionOptions partition;
  partition.threads = options.threads;
  auto plans = cache.get(cache_key(*setup, *models), [&] {
    return planner::partition_classes(*graph, input.classes, input.machine, models->cost_model,
                                      models->partitioner ? &*models->partitioner : nullptr,
                                      partition);
  });
  if (!plans) return plans.error();
  input.class_plans = **plans;

  planner::PlannerOptions planning;
  planning.threads = options.threads;
  planning.max_displacement = spec.base.max_displacement;
  planner::PlanSource source;
  source.graph_name = graph->name();
  source.graph_ops = graph->ops().size();
  for (const std::string& name : spec.base.designs) {
    auto result = planner::plan_design(input, *planner::parse_design(name), planning);
    if (!result) return result.error();
    DesignRow row{name, planned_metrics(*result), result->orders_tried, false, {}};
    if (spec.base.simulate) {
      auto simulated = simulated_metrics(planner::Plan{source, input.machine, *result}, *models,
                                         *graph, spec.base);
      if (!simulated) return simulated.error();
      row.simulated = true;
      row.simulated_metrics = *simulated;
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
