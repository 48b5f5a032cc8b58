#include "framework/dse/evaluate_point.hpp"

#include <tbb/task_arena.h>

#include <chrono>
#include <exception>

#include "framework/driver/driver.hpp"
#include "framework/dse/point_setup.hpp"

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
          watts(d.energy, d.latency_s)};
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
          watts(d.energy, s.latency_s)};
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

Status run(const SweepSpec& spec, const Point& point, const Registry& registry,
           driver::OpPlanCache& cache, const EvaluateOptions& options, PointResult& r) {
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
  if (r.mode.empty()) r.mode = step_mode(model->graph->name());

  driver::CompileOptions compile;
  compile.designs = spec.base.designs;
  compile.threads = options.threads;
  compile.max_displacement = spec.base.max_displacement;
  compile.simulate = spec.base.simulate;
  compile.op_plans = &cache;
  auto compilation = driver::compile(*chip, *model, compile);
  if (!compilation) return compilation.error();
  r.rows = design_rows(*compilation);
  return ok_status();
}

}  // namespace

std::vector<DesignRow> design_rows(const driver::Compilation& compilation) {
  std::vector<DesignRow> rows;
  for (const driver::CompiledDesign& d : compilation.designs) {
    const planner::DesignResult& planned = d.plan.result;
    DesignRow row{
        to_string(planned.design), planned_metrics(planned), planned.orders_tried, false, {}};
    // Ideal's plan assumes what no chip has (report/design_report.cpp): its simulated figures
    // would contradict its name.
    if (d.simulated && planned.design != planner::Design::ideal) {
      row.simulated = true;
      row.simulated_metrics = simulated_metrics(*d.simulated);
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
