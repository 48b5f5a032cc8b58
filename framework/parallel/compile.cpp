// compile_parallel: one chip's graph per distinct stage compiled by the driver, the collectives
// each stage needs, the step composed (parallel.hpp).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>

#include "framework/collective/chip_graph.hpp"
#include "framework/frontend/zoo/builders.hpp"
#include "framework/parallel/compose.hpp"
#include "framework/parallel/parallel.hpp"

namespace tessera::parallel {
namespace {

// For a stage that does not fit one chip's memory: the strategies of this machine whose stages
// would, estimated from this stage's bytes (its weights and KV cache scale with its share of the
// layers and 1/tp; the ends' embedding and head are counted as if every stage had them), or the
// chips' memory it would need when none would.
std::string fitting_strategies(const driver::OffChipReport& report, const Resolved& r,
                               const ParallelModel& model, size_t s) {
  if (report.fits || report.capacity_bytes == 0 || !model.spec || r.stage_layers[s] == 0) return "";
  const double layers = static_cast<double>(model.spec->layers);
  // The whole model on one chip: this stage's bytes × its tp × the stages like it.
  const double model_bytes = report.footprint.total_bytes() * static_cast<double>(r.tp) * layers /
                             static_cast<double>(r.stage_layers[s]);
  std::vector<std::string> fits;
  for (int64_t tp : divisors(r.chips))
    for (int64_t pp : divisors(r.chips / tp)) {
      bool divides = zoo::check_shard(*model.spec, zoo::Shard{.tp = tp}).ok() && pp <= layers;
      double per_chip = model_bytes / static_cast<double>(tp * pp);
      if (divides && per_chip <= static_cast<double>(report.capacity_bytes))
        fits.push_back(fmt::format("tp={},pp={},dp={}", tp, pp, r.chips / tp / pp));
    }
  if (fits.empty())
    return fmt::format(
        "; no strategy of this machine's {} chips holds it (about {:.0f} chips' "
        "memory for the whole model)",
        r.chips, std::ceil(model_bytes / static_cast<double>(report.capacity_bytes)));
  return fmt::format("; strategies whose stages would fit (estimated from this stage's bytes): {}",
                     fmt::join(fits, "; "));
}

// The stage's graph compiled on one chip; identical stages (same layers count, same ends) share it.
Status compile_stages(PluginSet& plugins, driver::OpenChip& chip, const ParallelModel& model,
                      const driver::CompileOptions& options, const Placement& place,
                      ParallelCompilation& out) {
  auto one = driver::open_one_chip(plugins, chip);
  if (!one) return one.error();
  std::map<std::tuple<int64_t, bool, bool>, size_t> compiled;
  const Resolved& r = out.strategy;
  for (size_t s = 0; s < r.stage_layers.size(); ++s) {
    const ModelRequest request = stage_request(model, r, s);
    StageRun stage{request.shard.first_layer,
                   request.shard.last_layer.value_or(request.shard.first_layer),
                   place.group(0, static_cast<int64_t>(s)), 0,
                   place.stage_chips(r.dp, static_cast<int64_t>(s))};
    auto key = std::make_tuple(r.stage_layers[s], s == 0, s + 1 == r.stage_layers.size());
    if (auto it = compiled.find(key); it != compiled.end()) {
      stage.compilation = it->second;
      out.stages.push_back(stage);
      continue;
    }
    auto loaded = driver::load(request);
    if (!loaded) return loaded.error();
    auto compilation = driver::compile(*one, *loaded, options);
    if (!compilation)
      return Error{
          compilation.error().kind, compilation.error().code,
          fmt::format("--parallel {}, stage {} (layers {}-{}) on one chip of {}: {}{}",
                      to_string(r), s, stage.first_layer, stage.last_layer, chip.spec.name,
                      compilation.error().message,
                      fitting_strategies(driver::off_chip_report(*loaded, *one), r, model, s))};
    stage.compilation = compiled[key] = out.compilations.size();
    out.compilations.push_back(std::move(*compilation));
    out.stages.push_back(stage);
  }
  return ok_status();
}

}  // namespace

ModelRequest stage_request(const ParallelModel& model, const Resolved& r, size_t s) {
  ModelRequest request = model.request;
  if (!model.spec) return request;
  int64_t first = std::accumulate(r.stage_layers.begin(), r.stage_layers.begin() + s, int64_t{0});
  request.shape.batch = r.micro_batch;
  // Said outright, not left to the layer range: beside an empty end stage (stages=0:...) the next
  // stage starts at layer 0 too, and takes the hidden state instead of embedding again.
  request.shard = zoo::Shard{.tp = r.tp,
                             .ep = r.ep,
                             .first_layer = first,
                             .last_layer = first + r.stage_layers[s],
                             .embedding = s == 0,
                             .head = s + 1 == r.stage_layers.size()};
  return request;
}

Result<ParallelCompilation> compile_parallel(PluginSet& plugins, driver::OpenChip& chip,
                                             const ParallelModel& model,
                                             const ParallelStrategy& strategy,
                                             const driver::CompileOptions& options) {
  auto resolved = resolve(strategy, model, chip.models.machine);
  if (!resolved) return resolved.error();
  auto graph = collective::chip_graph(chip.models.topology);
  if (!graph) return graph.error();
  Placement place = placement(*graph, *resolved);
  ParallelCompilation out;
  out.strategy = *resolved;
  if (auto status = compile_stages(plugins, chip, model, options, place, out); !status)
    return status.error();
  auto uses = stage_collectives(*graph, model, out, [&](int64_t r, size_t s) {
    return place.group(r, static_cast<int64_t>(s));
  });
  if (!uses) return uses.error();
  out.collectives = std::move(*uses);
  if (options.simulate)
    if (auto status = simulate_uses(*graph, out); !status) return status.error();
  out.designs = compose_steps(out, model, chip.models.energy);
  return out;
}

}  // namespace tessera::parallel
