// partition_classes: per class of identical ops, in parallel (oneTBB), the representative op's
// plans — the plugin Partitioner's when it has an answer, else the default search — reduced to
// Pareto fronts. Classes are independent and each result lands in its own slot, so the output
// does not depend on the thread count; the first error in class order is returned.
#include "framework/planner/partition/partition.hpp"

#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <cmath>
#include <mutex>
#include <numeric>

#include "framework/common/units.hpp"
#include "framework/ir/analysis.hpp"
#include "framework/planner/op_traffic.hpp"
#include "framework/planner/partition/plan_space.hpp"

namespace tessera::planner {

namespace {

using partition::ExecCandidate;

Error too_big(const std::string& op, const ClassOutcome& outcome, const Machine& machine) {
  return input_error(
      "op '" + op + "' needs at least " + format_bytes(outcome.smallest_bytes_per_core) +
      " of SRAM per core under any plan (smallest: '" + outcome.smallest_plan +
      "'); the chip has " + format_bytes(static_cast<double>(machine.sram_bytes_per_core)) +
      " per core — use a chip with more cores or SRAM, or a smaller batch");
}

// The candidates that run and fit, reduced to the exec Pareto front. When none fits, `out` says
// how close the smallest came and how fast the fastest would be with enough SRAM; an error when
// the cost model times no candidate at all.
Result<std::vector<size_t>> exec_front(const partition::OpShape& op,
                                       const std::vector<ExecPlan*>& plans, const Machine& machine,
                                       ClassOutcome& out) {
  const ExecPlan* smallest = nullptr;
  const ExecPlan* fastest = nullptr;
  std::vector<size_t> fitting;
  std::vector<double> space, time;
  for (size_t i = 0; i < plans.size(); ++i) {
    const ExecPlan& p = *plans[i];
    if (!std::isfinite(p.time_s())) continue;
    if (smallest == nullptr || p.exec_bytes_per_core < smallest->exec_bytes_per_core) smallest = &p;
    if (fastest == nullptr || p.time_s() < fastest->time_s()) fastest = &p;
    if (p.exec_bytes_per_core > static_cast<double>(machine.sram_bytes_per_core)) continue;
    fitting.push_back(i);
    space.push_back(p.exec_bytes_per_core);
    time.push_back(p.time_s());
  }
  if (smallest == nullptr)
    return input_error("op '" + op.name +
                       "': the target's cost model gives no time for any tile of "
                       "it (kind " +
                       ir::to_string(op.kind) + ", type " + dtype_name(op.dtype) +
                       "); choose a target whose cores compute in it");
  if (fitting.empty()) {
    out.fits = false;
    out.smallest_bytes_per_core = smallest->exec_bytes_per_core;
    out.smallest_plan = smallest->label;
    out.fastest_s = fastest->time_s();
    return std::vector<size_t>{};
  }
  std::vector<size_t> front;
  for (size_t i : partition::pareto_front(space, time)) front.push_back(fitting[i]);
  return front;
}

// The preloads of `exec` onto its cores, where its placement put them.
Status price_preloads(const partition::OpShape& op, const ExecPlan& exec,
                      std::vector<PreloadPlan>& plans, const NetworkPricer& pricer) {
  if (plans.empty()) return ok_status();
  std::optional<OpTraffic> placed;
  if (!exec.core_digits.empty()) {  // a grid placement (price.cpp): one chip
    auto traffic = op_traffic(op, exec, 0, 1);
    if (!traffic) return traffic.error();
    placed = std::move(**traffic);
  }
  auto price = pricer.preload(exec.cores_used, placed ? &*placed : nullptr);
  if (!price) return price.error();
  for (PreloadPlan& p : plans) p.network_s = price->seconds(p.hbm_to_core_bytes);
  return ok_status();
}

Status default_plans(const partition::OpShape& op, const Machine& machine,
                     const TileCost& cost_model, const NetworkPricer* pricer,
                     const PlanningConventions& conventions, ClassOutcome& out) {
  auto candidates =
      partition::evaluate(op, partition::spatial_plans(op, machine.cores, conventions.pruning),
                          machine, cost_model, conventions);
  if (!candidates) return candidates.error();
  std::vector<size_t> considered(candidates->size());
  std::iota(considered.begin(), considered.end(), size_t{0});
  if (pricer != nullptr) {
    auto priced = partition::price_candidates(op, *candidates, *pricer);
    if (!priced) return priced.error();
    considered = std::move(*priced);
  }
  std::vector<ExecPlan*> plans;
  for (size_t i : considered) plans.push_back(&(*candidates)[i].plan);
  auto front = exec_front(op, plans, machine, out);
  if (!front) return front.error();
  for (size_t f : *front) {
    size_t i = considered[f];
    auto& preload =
        out.plans.preload.emplace_back(partition::preload_plans((*candidates)[i], machine));
    if (pricer != nullptr)
      if (Status priced = price_preloads(op, (*candidates)[i].plan, preload, *pricer); !priced)
        return priced.error();
    out.plans.exec.push_back(std::move((*candidates)[i].plan));
  }
  return ok_status();
}

// A plugin Partitioner times its plans with its own cost model. When another one times this
// chip's tiles (a core's mapped tiles, chip/core_cost.hpp), each plan's compute is scaled by the
// ratio of the two on the plan's tile (its per-core extents, each model's fastest allowed
// orientation), so
// the plugin's step structure stays and the per-tile rate is the new model's. A plan that gives
// no tile keeps the plugin's time.
Status retime_plugin_plans(const partition::OpShape& shape, const TileCost& cost,
                           const TileCost& plugin_cost, TileOrientation orientation,
                           std::vector<std::pair<ExecPlan, PreloadPlan>>& pairs) {
  std::vector<tessera_tile_query> queries;
  std::vector<std::pair<size_t, size_t>> spans;  // per plan: its queries' [first, last)
  for (auto& pair : pairs) {
    size_t first = queries.size();
    if (pair.first.tile.size() == shape.extents.size())
      for (const auto& q : partition::orientations(
               shape, partition::tile_query(shape, pair.first.tile), orientation))
        queries.push_back(q);
    spans.emplace_back(first, queries.size());
  }
  auto now = cost.tile_seconds(queries);
  if (!now) return now.error();
  auto before = plugin_cost.tile_seconds(queries);
  if (!before) return before.error();
  for (size_t p = 0; p < pairs.size(); ++p) {
    auto [first, last] = spans[p];
    if (first == last) continue;
    auto fastest = [&](const std::vector<double>& s) {
      return std::min_element(s.begin() + first, s.begin() + last) - s.begin();
    };
    auto chosen = static_cast<size_t>(fastest(*now));
    double plugin_s = (*before)[static_cast<size_t>(fastest(*before))];
    if (!(plugin_s > 0) || !std::isfinite(plugin_s)) continue;
    pairs[p].first.compute_s *= (*now)[chosen] / plugin_s;
    pairs[p].first.core_tile = queries[chosen];
  }
  return ok_status();
}

void adopt_plugin_plans(std::vector<std::pair<ExecPlan, PreloadPlan>>& pairs,
                        const std::vector<size_t>& front, bool reads_hbm, OpPlans& out) {
  for (size_t i : front) {
    out.exec.push_back(std::move(pairs[i].first));
    out.preload.emplace_back();
    if (reads_hbm) out.preload.back().push_back(std::move(pairs[i].second));
  }
}

}  // namespace

Result<ClassOutcome> partition_class(const ir::Graph& graph, int op_index, const Machine& machine,
                                     const TileCost& cost_model, const Partitioner* plugin,
                                     const NetworkPricer* pricer,
                                     const PlanningConventions& conventions) {
  const ir::Op& op = graph.ops()[static_cast<size_t>(op_index)];
  auto shape = partition::describe_op(graph, op);
  if (!shape) return shape.error();
  ir::OpCost cost = ir::op_cost(graph, op);
  ClassOutcome out;
  OpPlans& plans = out.plans;
  plans.representative_op = op_index;
  plans.hbm_read_bytes = cost.hbm_bytes_in;
  plans.hbm_write_bytes = cost.writes_hbm ? cost.bytes_out : 0;
  plans.flops = cost.flops;
  if (plugin != nullptr) {
    auto answered = partition::plugin_plans(*plugin, graph, op, *shape);
    if (!answered) return answered.error();
    if (answered->has_value()) {
      auto& pairs = **answered;
      if (const TileCost* plugin_cost = cost_model.replaced())
        if (Status s = retime_plugin_plans(*shape, cost_model, *plugin_cost,
                                           conventions.orientation, pairs);
            !s)
          return s.error();
      if (pricer != nullptr)
        for (auto& [exec, preload] : pairs)
          if (Status priced =
                  partition::price_placed(*shape, exec, preload, machine.chips, *pricer);
              !priced)
            return priced.error();
      std::vector<ExecPlan*> execs;
      for (auto& pair : pairs) execs.push_back(&pair.first);
      auto front = exec_front(*shape, execs, machine, out);
      if (!front) return front.error();
      adopt_plugin_plans(pairs, *front, cost.hbm_bytes_in > 0, plans);
      return out;
    }
  }
  Status status = default_plans(*shape, machine, cost_model, pricer, conventions, out);
  if (!status) return status.error();
  return out;
}

Result<std::vector<OpPlans>> partition_classes(const ir::Graph& graph, const ir::OpClasses& classes,
                                               const Machine& machine, const TileCost& cost_model,
                                               const Partitioner* plugin_partitioner,
                                               const PartitionOptions& options) {
  size_t count = classes.first_op.size();
  std::vector<std::optional<Result<ClassOutcome>>> results(count);
  size_t done = 0;
  std::mutex progress_mutex;
  int threads =
      options.threads == 0 ? tbb::task_arena::automatic : static_cast<int>(options.threads);
  tbb::task_arena arena(threads);
  arena.execute([&] {
    tbb::parallel_for(size_t{0}, count, [&](size_t c) {
      results[c] = partition_class(graph, classes.first_op[c], machine, cost_model,
                                   plugin_partitioner, options.pricer, options.conventions);
      std::lock_guard lock(progress_mutex);
      ++done;
      if (options.progress) options.progress(static_cast<double>(done), static_cast<double>(count));
    });
  });
  std::vector<OpPlans> plans;
  plans.reserve(count);
  for (size_t c = 0; c < count; ++c) {
    auto& result = *results[c];
    if (!result.ok()) return result.error();
    if (!result->fits) return too_big(graph.ops()[classes.first_op[c]].name, *result, machine);
    plans.push_back(std::move(result->plans));
  }
  return plans;
}

}  // namespace tessera::planner
