#include "framework/serve/compiled_costs.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "framework/common/files.hpp"
#include "framework/frontend/zoo/zoo.hpp"
#include "framework/parallel/parallel.hpp"

#ifndef TESSERA_VERSION
#error "TESSERA_VERSION must be defined by the build"
#endif

namespace tessera::serve {

namespace {

driver::CompileOptions step_options(const ServedMachine& m) {
  driver::CompileOptions o;
  o.designs = {m.design};
  o.simulate = true;
  return o;
}

Result<StepCost> flat_step(ServedMachine& m, const ModelRequest& request) {
  auto model = driver::load(request);
  if (!model) return model.error();
  auto compiled = driver::compile(*m.chip, *model, step_options(m));
  if (!compiled) return compiled.error();
  const auto& simulated = *compiled->designs.front().simulated;
  return StepCost{simulated.result.latency_s, simulated.energy ? simulated.energy->total_j() : 0};
}

// A prefill is of one prompt, which a pipeline cannot split into micro-batches of users: it runs
// through the stages as one (mb=1); a decode step's batch splits into the strategy's mb.
Result<StepCost> parallel_step(ServedMachine& m, const ModelRequest& request, Phase phase) {
  auto model = parallel::parallel_model(request);
  if (!model) return model.error();
  parallel::ParallelStrategy strategy = *m.strategy;
  if (phase == Phase::prefill) strategy.micro_batches = 1;
  auto compiled =
      parallel::compile_parallel(*m.plugins, *m.chip, *model, strategy, step_options(m));
  if (!compiled) return compiled.error();
  const parallel::DesignStep& step = compiled->designs.front();
  return StepCost{step.simulated_s.value_or(step.planned_s), step.energy_j.value_or(0)};
}

// FNV-1a, 64 bits: a stable file name for a key (std::hash may differ between builds).
uint64_t fnv1a(const std::string& text) {
  uint64_t h = 14695981039346656037ull;
  for (unsigned char c : text) h = (h ^ c) * 1099511628211ull;
  return h;
}

std::string file_text_or_name(const std::filesystem::path& file) {
  if (file.empty()) return "(built-in)";
  auto text = read_file(file, kMaxTextBytes);
  return text ? *text : file.string();
}

std::string axis_text(const std::vector<int64_t>& axis) {
  return fmt::format("{}", fmt::join(axis, ","));
}
std::string axis_text(const std::vector<std::vector<int64_t>>& rows) {
  std::string out;
  for (const auto& row : rows) out += "[" + axis_text(row) + "]";
  return out;
}

}  // namespace

ModelRequest step_request(const ModelRequest& base, Phase phase, int64_t batch, int64_t seq) {
  ModelRequest r = base;
  r.shape.batch = batch;
  r.shape.seq = seq;
  r.shape.mode = phase == Phase::decode ? zoo::Mode::decode : zoo::Mode::prefill;
  r.shape_given = true;
  return r;
}

Status check_servable(const ModelRequest& request) {
  if (model_kind(request.model) == ModelKind::zoo_name) {
    auto spec = zoo::find_model(request.model);
    if (!spec) return spec.error();
    if (spec->family == zoo::Family::decoder) return ok_status();
  }
  return usage_error(fmt::format(
      "tessera serve needs a zoo decoder (its decode and prefill steps); {} is not one (`tessera "
      "inspect --zoo` lists them)",
      request.model));
}

int64_t replicas(const ServedMachine& m) {
  if (!m.strategy) return 1;
  return parallel::dp_of(*m.strategy, static_cast<int64_t>(m.chip->models.machine.chips));
}

Result<StepCost> simulate_step(ServedMachine& m, Phase phase, int64_t batch, int64_t seq) {
  const int64_t d = replicas(m);
  ModelRequest request = step_request(m.request, phase, batch * d, seq);
  auto cost = m.strategy ? parallel_step(m, request, phase) : flat_step(m, request);
  if (cost) cost->joules /= static_cast<double>(d);
  if (!cost)
    return Error{cost.error().kind, cost.error().code,
                 fmt::format("step-cost grid, {} step of batch {} seq {}: {}",
                             phase == Phase::decode ? "decode" : "prefill", batch, seq,
                             cost.error().message)};
  return cost;
}

int64_t grid_batch_step(const ServedMachine& m) {
  return m.strategy ? m.strategy->micro_batches : 1;
}

Status check_max_batch(const ServedMachine& m, int64_t max_batch) {
  const int64_t step = grid_batch_step(m);
  if (max_batch % step == 0) return ok_status();
  return usage_error(fmt::format(
      "--max-batch {} is not a multiple of --parallel {}'s mb={}: every step's batch is split into "
      "mb micro-batches; give --max-batch a multiple of {}, such as {}",
      max_batch, m.strategy_text, step, step, (max_batch / step + 1) * step));
}

std::string grid_key(const ServedMachine& m, const GridAxes& axes) {
  const ModelRequest& r = m.request;
  auto dtype = [](const std::optional<ir::DType>& t) { return t ? ir::to_string(*t) : "default"; };
  std::string spec = model_kind(r.model) == ModelKind::zoo_name
                         ? file_text_or_name(zoo::find_model(r.model)->file)
                         : r.model;
  return fmt::format(
      "tessera {} | model {} dtype {} weights {} precision {} skew {} | target {} chip {} | "
      "design {} | strategy {} | batches {} contexts {} prefill {} | refined over {} % to {} "
      "points | model file {} | chip file {}",
      TESSERA_VERSION, r.model, dtype(r.shape.dtype), dtype(r.shape.weight_dtype),
      r.shape.precision ? "given" : "none", r.shape.expert_skew, m.chip->choice.target,
      m.chip->spec.name, planner::to_string(m.design), m.strategy_text, axis_text(axes.batches),
      axis_text(axes.context_tokens), axis_text(axes.prefill_tokens), kRefineError * 100,
      kMaxRefinedPoints, fnv1a(spec), fnv1a(file_text_or_name(m.chip->spec.file)));
}

std::filesystem::path default_cache_dir() {
  if (const char* dir = std::getenv("TESSERA_CACHE_DIR"); dir && *dir)
    return std::filesystem::path(dir) / "serve";
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg)
    return std::filesystem::path(xdg) / "tessera" / "serve";
  const char* home = std::getenv("HOME");
  return std::filesystem::path(home && *home ? home : ".") / ".cache" / "tessera" / "serve";
}

Result<CostGrid> cached_cost_grid(ServedMachine& m, const GridAxes& axes,
                                  const std::filesystem::path& cache_dir,
                                  const std::function<void(int, int)>& progress, bool& built) {
  const std::string key = grid_key(m, axes);
  const std::filesystem::path file =
      cache_dir / fmt::format("{}-{}-{:016x}.json", m.request.model, m.chip->spec.name, fnv1a(key));
  built = false;
  if (std::filesystem::exists(file)) {
    auto text = read_file(file, kMaxTextBytes);
    if (!text) return text.error();
    return read_cost_grid(*text, key, file.string());
  }
  auto grid = build_cost_grid(
      axes, [&m](Phase p, int64_t b, int64_t s) { return simulate_step(m, p, b, s); }, progress);
  if (!grid) return grid.error();
  built = true;
  if (auto written = write_file_atomically(file, cost_grid_json(*grid, key), true); !written)
    return written.error();
  return grid;
}

}  // namespace tessera::serve
