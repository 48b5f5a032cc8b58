#include "framework/serve/compiled_costs.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "framework/common/files.hpp"
#include "framework/common/units.hpp"
#include "framework/frontend/zoo/zoo.hpp"
#include "framework/parallel/parallel.hpp"
#include "framework/planner/capacity.hpp"

#ifndef TESSERA_VERSION
#error "TESSERA_VERSION must be defined by the build"
#endif

namespace tessera::serve {

namespace {

// The context length the KV room is measured at: any length gives the same bytes per token.
constexpr int64_t kProbeSeq = 1024;

ModelRequest at_point(const ModelRequest& base, Phase phase, int64_t batch, int64_t seq) {
  ModelRequest r = base;
  r.shape.batch = batch;
  r.shape.seq = seq;
  r.shape.mode = phase == Phase::decode ? zoo::Mode::decode : zoo::Mode::prefill;
  r.shape_given = true;
  return r;
}

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

Result<StepCost> parallel_step(ServedMachine& m, const ModelRequest& request) {
  auto model = parallel::parallel_model(request);
  if (!model) return model.error();
  auto compiled =
      parallel::compile_parallel(*m.plugins, *m.chip, *model, *m.strategy, step_options(m));
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

Result<StepCost> simulate_step(ServedMachine& m, Phase phase, int64_t batch, int64_t seq) {
  ModelRequest request = at_point(m.request, phase, batch, seq);
  auto cost = m.strategy ? parallel_step(m, request) : flat_step(m, request);
  if (!cost)
    return Error{cost.error().kind, cost.error().code,
                 fmt::format("step-cost grid, {} step of batch {} seq {}: {}",
                             phase == Phase::decode ? "decode" : "prefill", batch, seq,
                             cost.error().message)};
  return cost;
}

std::string grid_key(const ServedMachine& m, const GridAxes& axes) {
  const ModelRequest& r = m.request;
  auto dtype = [](const std::optional<ir::DType>& t) { return t ? ir::to_string(*t) : "default"; };
  std::string spec = model_kind(r.model) == ModelKind::zoo_name
                         ? file_text_or_name(zoo::find_model(r.model)->file)
                         : r.model;
  return fmt::format(
      "tessera {} | model {} dtype {} weights {} precision {} skew {} | target {} chip {} | "
      "design {} | strategy {} | batches {} contexts {} prefill {} | model file {} | "
      "chip file {}",
      TESSERA_VERSION, r.model, dtype(r.shape.dtype), dtype(r.shape.weight_dtype),
      r.shape.precision ? "given" : "none", r.shape.expert_skew, m.chip->choice.target,
      m.chip->spec.name, planner::to_string(m.design), m.strategy_text, axis_text(axes.batches),
      axis_text(axes.context_tokens), axis_text(axes.prefill_tokens), fnv1a(spec),
      fnv1a(file_text_or_name(m.chip->spec.file)));
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

namespace {

// The model's learned positions, when it has them: no sequence is longer.
std::optional<int64_t> learned_positions(const ModelRequest& request) {
  auto spec = zoo::find_model(request.model);
  if (spec && spec->position == zoo::Position::learned) return spec->max_positions;
  return std::nullopt;
}

// Off-chip bytes beyond the capacity of a decode step of `batch` sequences filling `tokens`
// positions in all (activations that spill grow with the batch); 0 when it fits.
Result<double> excess_bytes(const ServedMachine& m, int64_t batch, int64_t tokens) {
  const Machine& machine = m.chip->models.machine;
  int64_t seq =
      std::clamp<int64_t>(tokens / batch, 1, learned_positions(m.request).value_or(INT64_MAX));
  auto graph = load_model(at_point(m.request, Phase::decode, batch, seq));
  if (!graph) return graph.error();
  planner::OffChipFootprint f = planner::off_chip_footprint(*graph, machine);
  return std::max(0.0, f.total_bytes() - static_cast<double>(machine.off_chip_bytes));
}

}  // namespace

Result<KvRoom> kv_room(const ServedMachine& m, int64_t block_tokens, int64_t max_batch) {
  const Machine& machine = m.chip->models.machine;
  if (machine.off_chip_bytes == 0)
    return input_error(fmt::format(
        "chip {} states no off-chip capacity, so the KV cache's room is unknown; serve on a chip "
        "file that gives its memory's capacity",
        machine.chip));
  auto graph = load_model(at_point(m.request, Phase::decode, 1, kProbeSeq));
  if (!graph) return graph.error();
  planner::OffChipFootprint f = planner::off_chip_footprint(*graph, machine);
  KvRoom room;
  room.capacity_bytes = static_cast<double>(machine.off_chip_bytes);
  room.weight_bytes = f.weight_bytes + f.input_bytes;
  room.bytes_per_token = f.kv_cache_bytes / kProbeSeq;
  room.block_tokens = block_tokens;
  const double block_bytes = room.bytes_per_token * static_cast<double>(block_tokens);
  double free_bytes = room.capacity_bytes - room.weight_bytes;
  room.blocks = free_bytes > 0 ? static_cast<int64_t>(free_bytes / block_bytes) : 0;
  // What else a full cache's steps keep off chip (activations that spill) comes off the room:
  // the steps at its edge, one sequence and a full batch, must fit as the compiler checks them.
  for (int64_t batch : {int64_t{1}, max_batch})
    for (int round = 0; round < 4 && room.blocks > 0; ++round) {
      auto excess = excess_bytes(m, batch, room.tokens());
      if (!excess) return excess.error();
      if (*excess <= 0) break;
      room.blocks -= static_cast<int64_t>(std::ceil(*excess / block_bytes)) + 1;
    }
  if (room.blocks < 1)
    return input_error(fmt::format(
        "{} on {}: the weights ({}) leave no room for one KV block of {} tokens in {}; use a "
        "narrower --weight-dtype or a machine with more chips",
        m.request.model, machine.chip, format_bytes(room.weight_bytes), block_tokens,
        format_bytes(room.capacity_bytes)));
  return room;
}

int64_t request_context_limit(const ServedMachine& m, const KvRoom& room, std::string& why) {
  auto learned = learned_positions(m.request);
  if (learned && *learned < room.tokens()) {
    why = fmt::format("{}'s {} learned positions", m.request.model, *learned);
    return *learned;
  }
  why = fmt::format("the KV cache's {} tokens on {}", room.tokens(), m.chip->models.machine.chip);
  return room.tokens();
}

}  // namespace tessera::serve
