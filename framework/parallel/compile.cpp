// compile_parallel: one chip's graph per distinct stage compiled by the driver, the collectives
// each stage needs, the step composed (parallel.hpp).
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <numeric>

#include "framework/collective/chip_graph.hpp"
#include "framework/frontend/zoo/builders.hpp"
#include "framework/parallel/compose.hpp"
#include "framework/parallel/parallel.hpp"

namespace tessera::parallel {
namespace {

// One chip of the machine: the chip file with its chip count set to one wherever a section states
// it (an IPU pod's `chips` in its topology and cost model, a Wormhole mesh's `chips.x` and
// `chips.y`), the machine-wide HBM scale divided by the chips.
Result<driver::OpenChip> one_chip(PluginSet& plugins, const driver::OpenChip& chip) {
  ChipSpec spec = chip.spec;
  for (auto& [section, params] : spec.sections)
    for (auto& [key, value] : params.params.items)
      if (key == "chips" || key == "chips.x" || key == "chips.y") value = "1";
  if (spec.scale.hbm_bytes_per_s > 0) spec.scale.hbm_bytes_per_s /= chip.models.machine.chips;
  auto one = driver::open_chip(plugins, driver::ResolvedChip{chip.choice, chip.target, spec});
  if (!one) return one.error();
  if (one->models.machine.chips != 1)
    return Error{ErrorKind::internal, StatusCode::internal,
                 fmt::format("{}: one chip of it opened as {} chips", chip.spec.name,
                             one->models.machine.chips)};
  one->models.core_cost = chip.models.core_cost;
  return one;
}

struct Placement {
  std::vector<uint32_t> order;  // the machine's chips along its ring
  int64_t tp = 1, pp = 1;
  // Replica r's stage s's tensor rank t: consecutive along the ring, so a group's chips neighbour.
  uint32_t chip(int64_t r, int64_t s, int64_t t) const {
    return order[static_cast<size_t>((r * pp + s) * tp + t)];
  }
  std::vector<uint32_t> group(int64_t r, int64_t s) const {
    std::vector<uint32_t> g;
    for (int64_t t = 0; t < tp; ++t) g.push_back(chip(r, s, t));
    return g;
  }
};

Result<ModelRequest> stage_request(const ParallelModel& model, const Resolved& r, size_t s) {
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

// The stage's graph compiled on one chip; identical stages (same layers count, same ends) share it.
Status compile_stages(PluginSet& plugins, driver::OpenChip& chip, const ParallelModel& model,
                      const driver::CompileOptions& options, const Placement& place,
                      ParallelCompilation& out) {
  auto one = one_chip(plugins, chip);
  if (!one) return one.error();
  std::map<std::tuple<int64_t, bool, bool>, size_t> compiled;
  const Resolved& r = out.strategy;
  for (size_t s = 0; s < r.stage_layers.size(); ++s) {
    auto request = stage_request(model, r, s);
    if (!request) return request.error();
    StageRun stage{request->shard.first_layer,
                   request->shard.last_layer.value_or(request->shard.first_layer),
                   place.group(0, static_cast<int64_t>(s)), 0};
    auto key = std::make_tuple(r.stage_layers[s], s == 0, s + 1 == r.stage_layers.size());
    if (auto it = compiled.find(key); it != compiled.end()) {
      stage.compilation = it->second;
      out.stages.push_back(stage);
      continue;
    }
    auto loaded = driver::load(*request);
    if (!loaded) return loaded.error();
    auto compilation = driver::compile(*one, *loaded, options);
    if (!compilation)
      return Error{compilation.error().kind, compilation.error().code,
                   fmt::format("--parallel {}, stage {} (layers {}-{}) on one chip of {}: {}",
                               to_string(r), s, stage.first_layer, stage.last_layer, chip.spec.name,
                               compilation.error().message)};
    stage.compilation = compiled[key] = out.compilations.size();
    out.compilations.push_back(std::move(*compilation));
    out.stages.push_back(stage);
  }
  return ok_status();
}

}  // namespace

Result<ParallelCompilation> compile_parallel(PluginSet& plugins, driver::OpenChip& chip,
                                             const ParallelModel& model,
                                             const ParallelStrategy& strategy,
                                             const driver::CompileOptions& options) {
  auto resolved = resolve(strategy, model, chip.models.machine);
  if (!resolved) return resolved.error();
  auto graph = collective::chip_graph(chip.models.topology);
  if (!graph) return graph.error();
  std::vector<uint32_t> all(chip.models.machine.chips);
  std::iota(all.begin(), all.end(), 0u);
  Placement place{collective::ring_order(*graph, all), resolved->tp,
                  static_cast<int64_t>(resolved->stage_layers.size())};
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
