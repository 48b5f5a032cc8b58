// compile_parallel: one chip's graph per distinct stage compiled by the driver, the collectives
// each stage needs, the step composed (parallel.hpp).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <numeric>
#include <tuple>

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

// The ops of stage `use.stage`'s graph whose outputs each passage of `use` exchanges (zoo
// decoder.cpp names them, and an ONNX model's MoE blocks as it does): the embedding's last op,
// each layer's o_proj and down_proj (its moe combine for an MoE layer), each MoE block's
// router_topk and its last expert op, the graph's last op (the LM head).
std::vector<std::string> after_ops(const ir::Graph& graph, const CollectiveUse& use,
                                   const StageRun& stage) {
  const auto& ops = graph.ops();
  auto last_with = [&](const std::string& prefix) {
    std::string found;
    for (const ir::Op& op : ops)
      if (op.name.starts_with(prefix)) found = op.name;
    return found;
  };
  std::vector<std::string> names;
  if (use.where == "embedding") {
    auto first_layer = std::find_if(
        ops.begin(), ops.end(), [](const ir::Op& op) { return op.name.starts_with("layers."); });
    if (first_layer != ops.begin()) names.push_back(std::prev(first_layer)->name);
    return names;
  }
  if (use.where == "LM head") return {ops.back().name};
  if (use.where == "expert dispatch" || use.where == "expert combine") {
    for (const ir::Op& op : ops) {  // each MoE block of the stage, zoo or imported from ONNX
      if (!op.name.ends_with("router_topk")) continue;
      const std::string block = op.name.substr(0, op.name.size() - std::strlen("router_topk"));
      names.push_back(use.where == "expert dispatch" ? op.name : last_with(block + "experts."));
    }
    return names;
  }
  for (int64_t l = stage.first_layer; l < stage.last_layer; ++l) {
    const std::string prefix = fmt::format("layers.{}.", l);
    if (use.where == "after attention") names.push_back(prefix + "o_proj");
    if (use.where == "after MLP")
      names.push_back(last_with(prefix + "moe").empty() ? prefix + "down_proj" : prefix + "moe");
  }
  return names;
}

// Stage s's collectives (but its send to the next stage, which follows the stage) as ops of its
// graph. Error (internal): a collective whose ops the graph has not.
Result<std::vector<planner::CollectiveOp>> stage_ops(const ir::Graph& graph,
                                                     const ParallelCompilation& out,
                                                     const StageRun& stage, size_t s) {
  std::vector<planner::CollectiveOp> ops;
  for (const CollectiveUse& use : out.collectives) {
    if (use.stage != s || use.op.kind == collective::CollectiveKind::send_recv) continue;
    std::vector<std::string> after = after_ops(graph, use, stage);
    if (static_cast<int64_t>(after.size()) != use.per_micro_batch ||
        std::ranges::find(after, std::string()) != after.end())
      return Error{ErrorKind::internal, StatusCode::internal,
                   fmt::format("stage {}'s collective '{}' is needed {} times, but {} has {} "
                               "places for it",
                               s, use.where, use.per_micro_batch, graph.name(), after.size())};
    collective::Collective op = use.op;
    op.algorithm = use.planned.algorithm;
    for (std::string& name : after)
      ops.push_back(planner::CollectiveOp{std::move(name), -1, use.where, op, use.planned.seconds,
                                          use.simulated_s.value_or(use.planned.seconds)});
  }
  return ops;
}

// What of stage s's collectives its plan holds but the chips of their groups (and the ops they
// follow, which a stage of the same shape has under other layer numbers): each use's place, kind,
// algorithm, bytes, and seconds planned and simulated.
using StageCollectives =
    std::vector<std::tuple<std::string, collective::CollectiveKind, collective::CollectiveAlgorithm,
                           double, double, double>>;
StageCollectives stage_collective_prices(const std::vector<CollectiveUse>& uses, size_t s) {
  StageCollectives prices;
  for (const CollectiveUse& u : uses)
    if (u.stage == s && u.op.kind != collective::CollectiveKind::send_recv)
      prices.emplace_back(u.where, u.op.kind, u.planned.algorithm, u.op.bytes, u.planned.seconds,
                          u.simulated_s.value_or(u.planned.seconds));
  return prices;
}

// The stage's graph compiled on one chip with its collectives. Stages of the same shape (layer
// count, ends) share a compile only when their collectives price alike: each stage's groups sit
// elsewhere on the machine, and on a mesh whose ring turns inside a group (a Galaxy's 128 chips
// in groups of 32) the groups differ in shape and their collectives in price.
Status compile_stages(PluginSet& plugins, driver::OpenChip& chip, const ParallelModel& model,
                      const driver::CompileOptions& options, const Placement& place,
                      ParallelCompilation& out) {
  auto one = driver::open_one_chip(plugins, chip);
  if (!one) return one.error();
  std::map<std::tuple<int64_t, bool, bool, StageCollectives>, size_t> compiled;
  const Resolved& r = out.strategy;
  for (size_t s = 0; s < r.stage_layers.size(); ++s) {
    const ModelRequest request = stage_request(model, r, s);
    StageRun stage{request.shard.first_layer,
                   request.shard.last_layer.value_or(request.shard.first_layer),
                   place.group(0, static_cast<int64_t>(s)), 0,
                   place.stage_chips(r.dp, static_cast<int64_t>(s))};
    auto key = std::make_tuple(r.stage_layers[s], s == 0, s + 1 == r.stage_layers.size(),
                               stage_collective_prices(out.collectives, s));
    if (auto it = compiled.find(key); it != compiled.end()) {
      stage.compilation = it->second;
      out.stages.push_back(stage);
      continue;
    }
    auto loaded = driver::load(request);
    if (!loaded) return loaded.error();
    driver::CompileOptions with_collectives = options;
    auto collectives = stage_ops(*loaded->graph, out, stage, s);
    if (!collectives) return collectives.error();
    with_collectives.collectives = std::move(*collectives);
    auto compilation = driver::compile(*one, *loaded, with_collectives);
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
  request.shard.ep = r.ep;  // an ONNX model's MoE blocks (the only split a whole model takes)
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
  // The collectives first: each stage's plan holds its own as ops.
  sim::CollectivePricer pricer(*graph);
  auto uses = stage_collectives(pricer, model, out, [&](int64_t r, size_t s) {
    return place.group(r, static_cast<int64_t>(s));
  });
  if (!uses) return uses.error();
  out.collectives = std::move(*uses);
  if (options.simulate)
    if (auto status = simulate_uses(*graph, out); !status) return status.error();
  if (auto status = compile_stages(plugins, chip, model, options, place, out); !status)
    return status.error();
  out.designs = compose_steps(out, model, chip.models.energy);
  auto first_token = first_token_of(chip.spec, model);
  if (!first_token) return first_token.error();
  out.first_token = *first_token;
  return out;
}

}  // namespace tessera::parallel
