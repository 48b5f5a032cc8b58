#include "framework/dse/evaluate_point.hpp"

#include <tbb/task_arena.h>

#include <chrono>
#include <exception>

#include "framework/driver/driver.hpp"
#include "framework/dse/point_setup.hpp"
#include "framework/dse/serve_point.hpp"
#include "framework/parallel/parallel.hpp"

namespace tessera::dse {

namespace {

double joules(const std::optional<EnergyBreakdown>& e) {
  return e ? e->total_j() : 0;
}
double watts(const std::optional<EnergyBreakdown>& e, double latency_s) {
  return e ? e->watts(latency_s) : 0;
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
          d.breakdown.congestion_s,
          joules(d.energy),
          watts(d.energy, d.latency_s),
          d.breakdown.dispatch_s};
}

Metrics simulated_metrics(const driver::SimulatedDesign& d) {
  const sim::SimSummary& s = d.summary;
  return {s.latency_s,
          s.hbm_utilisation,
          s.interconnect_utilisation,
          s.sram_utilisation,
          s.achieved_flops_per_s,
          s.breakdown.execution_only_s,
          s.breakdown.overlapped_s,
          s.breakdown.preload_stall_s,
          s.breakdown.congestion_s,
          joules(d.energy),
          watts(d.energy, s.latency_s),
          s.breakdown.dispatch_s};
}

// A zoo decoder's mode when the sweep left it to the entry ("llama2-7b decode b16 s2048"): the
// results say what ran, and the plots count a step's tokens by it. Empty for other graphs.
std::string step_mode(const std::string& graph_name) {
  for (const char* mode : {"decode", "prefill"})
    if (graph_name.find(std::string(" ") + mode + " ") != std::string::npos) return mode;
  return "";
}

void describe_machine(PointResult& r, const Machine& m) {
  r.cores = m.cores;
  r.hbm_peak_bytes_per_s = m.hbm_peak_bytes_per_s;
  r.hbm_sustained_bytes_per_s = m.hbm_bytes_per_s;
  r.interconnect_bytes_per_s = m.interconnect_bytes_per_s;
  r.peak_flops_per_s = m.peak_flops_per_s;
}

// Tokens the whole machine makes per step, counted as a strategy's step counts them (parallel.hpp):
// a zoo decode step one per user, a prefill step each user's sequence; 0 for other models, whose
// step's tokens the results cannot know.
double step_tokens(const parallel::ParallelModel& model) {
  if (!model.spec) return 0;
  const zoo::RunShape& shape = model.request.shape;
  bool prefill = shape.mode.value_or(zoo::Mode::decode) == zoo::Mode::prefill;
  return static_cast<double>(shape.batch) *
         (prefill ? static_cast<double>(shape.seq.value_or(2048)) : 1.0);
}

// A strategy's designs as rows: its composed step is the row's latency (planned, and simulated
// when the sweep simulates), its energy the whole machine's; the per-chip figures (utilisations,
// the breakdown) describe one chip of one stage, not the machine, so they stay unset.
void strategy_rows(const parallel::ParallelCompilation& compiled, PointResult& r) {
  for (const parallel::DesignStep& d : compiled.designs) {
    DesignRow row;
    row.design = to_string(d.design);
    row.planned.latency_s = d.planned_s;
    row.planned.energy_j = d.energy_j.value_or(0);
    row.planned.power_w = d.planned_s > 0 ? row.planned.energy_j / d.planned_s : 0;
    if (d.simulated_s && d.design != planner::Design::ideal) {
      row.simulated = true;
      row.simulated_metrics.latency_s = *d.simulated_s;
    }
    r.rows.push_back(std::move(row));
    r.strategy_rows.push_back({d.collective_planned_s, d.bubble});
    r.tokens = d.tokens;
  }
}

// `auto`: the strategy the search ranks first (`rank`: per step, tokens/s or energy per token;
// empty: latency). The search plans every candidate without simulating it (its ranking reads
// planned steps only); the one chosen is then compiled as asked.
Result<parallel::ParallelStrategy> best_strategy(PluginSet& plugins, driver::OpenChip& chip,
                                                 const parallel::ParallelModel& model,
                                                 driver::CompileOptions options,
                                                 const std::string& rank) {
  options.simulate = false;
  const parallel::Rank ranked =
      rank.empty() ? parallel::Rank::latency : *parallel::parse_rank(rank);
  auto found = parallel::search_strategies(plugins, chip, model, options, ranked);
  if (!found) return found.error();
  if (found->best) return found->tried[*found->best].strategy;
  std::string why;
  for (const parallel::Candidate& c : found->tried)
    why += (why.empty() ? "" : "; ") + parallel::to_string(c.strategy) + ": " + c.reason;
  return input_error("parallel auto: no strategy fits " + model.request.model + " on " +
                     chip.spec.name + " (" + why + ")");
}

Status run(const SweepSpec& spec, const Point& point, const Registry& registry,
           driver::OpPlanCache& cache, const EvaluateOptions& options, PointResult& r) {
  PluginSet plugins(registry);
  auto setup = setup_point(spec, point, plugins);
  if (!setup) return setup.error();
  r.model = setup->model;
  r.chip = setup->chip.spec.name;
  r.approximation = setup->chip.spec.approximation;
  r.batch = setup->batch;
  r.seq = setup->seq;
  r.mode = setup->mode;
  r.dtype = setup->dtype;
  // As written until it resolves: a strategy that does not fit is still named in its rows.
  r.strategy = setup->parallel.empty() ? "flat" : setup->parallel;
  auto strategy = parallel::parse_strategy(setup->parallel.empty() ? "flat" : setup->parallel);
  if (!strategy) return strategy.error();
  auto chip = driver::open_chip(plugins, std::move(setup->chip));
  if (!chip) return chip.error();
  describe_machine(r, chip->models.machine);
  driver::CompileOptions compile;
  if (!setup->residency.empty()) compile.residency = parse_residency(setup->residency);
  if (!setup->dispatch.empty()) compile.dispatch = parse_dispatch(setup->dispatch);
  r.residency = to_string(compile.residency.value_or(chip->spec.conventions.residency));
  compile.designs = spec.base.designs;
  compile.threads = options.threads;
  compile.max_displacement = spec.base.max_displacement;
  compile.simulate = spec.base.simulate;
  // Shared by every stage of a strategy, and by the candidates of `auto`, as by flat points.
  compile.op_plans = &cache;
  // A flat point loads its model as it always has (the driver's errors for a model it cannot
  // load); only a strategy needs the zoo entry first.
  if (!strategy->flat) {
    auto parallel_model = parallel::parallel_model(setup->request);
    if (!parallel_model) return parallel_model.error();
    if (strategy->automatic) {
      auto best = best_strategy(plugins, *chip, *parallel_model, compile, setup->rank);
      if (!best) return best.error();
      *strategy = *best;
    }
    if (!strategy->flat) {
      auto compiled =
          parallel::compile_parallel(plugins, *chip, *parallel_model, *strategy, compile);
      if (!compiled) return compiled.error();
      r.strategy = parallel::to_string(compiled->strategy);
      if (r.mode.empty()) r.mode = step_mode(compiled->compilations.front().graph->name());
      strategy_rows(*compiled, r);
      if (compiled->first_token) r.first_token_host_s = compiled->first_token->seconds();
      return ok_status();
    }
  }
  r.strategy = "flat";  // `auto` may choose it
  auto model = driver::load(setup->request);
  if (!model) return model.error();
  if (r.mode.empty()) r.mode = step_mode(model->graph->name());
  if (auto counted = parallel::parallel_model(setup->request)) r.tokens = step_tokens(*counted);
  auto compilation = driver::compile(*chip, *model, compile);
  if (!compilation) return compilation.error();
  r.rows = design_rows(*compilation);
  if (compilation->first_token) r.first_token_host_s = compilation->first_token->seconds();
  if (!compilation->designs.empty())
    r.resident_bytes_per_core = compilation->designs.front().plan.result.residency.bytes_per_core;
  return ok_status();
}

}  // namespace

std::vector<DesignRow> design_rows(const driver::Compilation& compilation) {
  std::vector<DesignRow> rows;
  for (const driver::CompiledDesign& d : compilation.designs) {
    const planner::DesignResult& planned = d.plan.result;
    DesignRow row{
        to_string(planned.design), planned_metrics(planned), planned.orders_tried, false, {}, {}};
    // Ideal's plan assumes what no chip has (report/design_report.cpp): its simulated figures
    // would contradict its name.
    if (d.simulated && planned.design != planner::Design::ideal) {
      row.simulated = true;
      row.simulated_metrics = simulated_metrics(*d.simulated);
      if (d.simulated->same_as) row.sim_same_as = to_string(*d.simulated->same_as);
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

PointResult evaluate_point(const SweepSpec& spec, const Point& point, const Registry& registry,
                           driver::OpPlanCache& cache, const EvaluateOptions& options) {
  auto start = std::chrono::steady_clock::now();
  PointResult r;
  r.index = point.index;
  r.values = point.values;
  r.target = spec.base.target;
  Status status = ok_status();
  try {
    status = spec.kind == SweepKind::serve ? run_serve_point(spec, point, registry, r)
                                           : run(spec, point, registry, cache, options, r);
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
    r.serve.reset();
    r.strategy_rows.clear();
  }
  r.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return r;
}

}  // namespace tessera::dse
