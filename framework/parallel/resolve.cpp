// A strategy against a model and a machine: the degrees that fill the chips, the stages' layers,
// the users of a micro-batch — or the input error that says what would.
#include <fmt/format.h>

#include "framework/frontend/zoo/builders.hpp"
#include "framework/frontend/zoo/zoo.hpp"
#include "framework/parallel/compose.hpp"
#include "framework/parallel/parallel.hpp"

namespace tessera::parallel {
namespace {

// "tp=8; tp=4,pp=2; ..." : every tp × pp with dp filling the chips, for the chip-count error.
std::string strategies_for(int64_t chips) {
  std::vector<std::string> out;
  for (int64_t tp : divisors(chips))
    for (int64_t pp : divisors(chips / tp))
      out.push_back(fmt::format("tp={},pp={},dp={}", tp, pp, chips / tp / pp));
  return fmt::format("{}", fmt::join(out, "; "));
}

Status check_chips(const Resolved& r, const std::string& text, const Machine& m) {
  if (r.tp * r.pp * r.dp == r.chips) return ok_status();
  if (r.chips == 1)
    return input_error(fmt::format(
        "--parallel {}: {} is one chip ({}); a parallel strategy divides a step over several "
        "chips: choose a preset with more (tessera targets lists each target's presets)",
        text, m.chip, m.target));
  return input_error(fmt::format(
      "--parallel {}: tp x pp x dp = {} chips, and {} has {}; strategies that use its chips: {}",
      text, r.tp * r.pp * r.dp, m.chip, r.chips, strategies_for(r.chips)));
}

Status balance_stages(Resolved& r, const ParallelModel& model, const std::string& text) {
  const std::string& name = model.spec->name;
  int64_t layers = model.spec->layers;
  if (r.stage_layers.empty()) {
    if (r.pp > layers)
      return input_error(
          fmt::format("--parallel {}: pp={} stages for {}'s {} layers; pp may be "
                      "at most {}",
                      text, r.pp, name, layers, layers));
    for (int64_t s = 0; s < r.pp; ++s)
      r.stage_layers.push_back(layers / r.pp + (s < layers % r.pp ? 1 : 0));
    return ok_status();
  }
  int64_t sum = 0;
  for (int64_t n : r.stage_layers) sum += n;
  if (sum != layers)
    return input_error(
        fmt::format("--parallel {}: stages= hold {} layers and {} has {}; give "
                    "each stage's layers so that they add up to {}",
                    text, sum, name, layers, layers));
  return ok_status();
}

Status check_batch(Resolved& r, const std::string& text) {
  int64_t per = r.dp * r.micro_batches;
  if (r.batch % per != 0 || r.batch < per)
    return input_error(fmt::format(
        "--parallel {}: dp x mb = {} does not divide --batch {} (each replica serves batch / dp "
        "users in mb micro-batches); batches that it divides: {}, {}, {}, ...",
        text, per, r.batch, per, 2 * per, 3 * per));
  r.micro_batch = r.batch / per;
  return ok_status();
}

// ep alone over an ONNX model's MoE blocks: the experts divide over ep chips of the replicas.
Status check_onnx_experts(const Resolved& r, const onnx_import::MoeBlocks& m,
                          const std::string& text) {
  if (m.experts % r.ep != 0) {
    std::vector<std::string> eps;
    for (int64_t ep : divisors(m.experts)) eps.push_back(std::to_string(ep));
    return input_error(fmt::format(
        "--parallel {}: ep={} does not divide the {} experts of each MoE block; ep may be one "
        "of {}",
        text, r.ep, m.experts, fmt::join(eps, ", ")));
  }
  return ok_status();
}

Status check_shards(const Resolved& r, const ParallelModel& model, const std::string& text) {
  bool splits = r.tp > 1 || r.pp > 1 || r.ep > 1;
  if (!splits) return ok_status();
  const bool onnx_ep = model.experts && r.tp == 1 && r.pp == 1;
  if (onnx_ep) {
    if (auto s = check_onnx_experts(r, *model.experts, text); !s) return s;
  } else if (!model.spec || model.spec->family != zoo::Family::decoder)
    return input_error(fmt::format(
        "--parallel {}: {}: tp, pp and ep split a zoo decoder's layers; this model runs whole on "
        "each chip group (use dp, or the flat default)",
        text, model.request.model));
  if (!onnx_ep) {
    auto shard = zoo::check_shard(*model.spec, zoo::Shard{.tp = r.tp, .ep = r.ep});
    if (!shard) return input_error("--parallel " + text + ": " + shard.error().message);
  }
  if (r.ep > 1 && r.dp % r.ep != 0)
    return input_error(
        fmt::format("--parallel {}: ep={} spreads experts over the replicas; it "
                    "must divide dp={}",
                    text, r.ep, r.dp));
  return ok_status();
}

}  // namespace

std::vector<int64_t> divisors(int64_t n) {
  std::vector<int64_t> out;
  for (int64_t d = 1; d <= n; ++d)
    if (n % d == 0) out.push_back(d);
  return out;
}

std::string to_string(const Resolved& r) {
  ParallelStrategy s;
  s.flat = false;
  s.tp = r.tp;
  s.pp = r.pp;
  s.dp = r.dp;
  s.ep = r.ep;
  s.micro_batches = r.micro_batches;
  s.algorithm = r.algorithm;
  return to_string(s);
}

Result<ParallelModel> parallel_model(const ModelRequest& request) {
  ParallelModel model{request, std::nullopt, std::nullopt};
  if (model_kind(request.model) == ModelKind::onnx_file) {
    auto graph = load_model(request);
    if (!graph) return graph.error();
    auto blocks = onnx_import::moe_blocks(*graph);
    if (!blocks) return blocks.error();
    if (blocks->blocks > 0) model.experts = *blocks;
  }
  if (model_kind(request.model) != ModelKind::zoo_name) return model;
  auto spec = zoo::find_model(request.model);
  if (!spec) return spec.error();
  model.spec = *spec;
  return model;
}

Result<Resolved> resolve(const ParallelStrategy& s, const ParallelModel& model, const Machine& m) {
  Resolved r;
  r.chips = m.chips;
  r.tp = s.tp;
  r.pp = s.pp;
  r.ep = s.ep;
  r.micro_batches = s.micro_batches;
  r.stage_layers = s.stage_layers;
  r.algorithm = s.algorithm;
  r.dp = dp_of(s, r.chips);
  r.batch = model.spec ? model.request.shape.batch : 1;
  ParallelStrategy shown = s;
  shown.dp = r.dp;
  const std::string text = to_string(shown);
  if (auto status = check_shards(r, model, text); !status) return status.error();
  if (auto status = check_chips(r, text, m); !status) return status.error();
  if (model.spec && model.spec->family == zoo::Family::decoder) {
    if (auto status = balance_stages(r, model, text); !status) return status.error();
  } else {
    r.stage_layers = {0};
  }
  if (!model.spec) {
    if (r.micro_batches > 1)
      return input_error("--parallel " + text + ": mb splits a zoo model's --batch; " +
                         model.request.model + " runs as given");
    r.batch = r.dp;  // each replica runs the model as given: one step each
    return r;
  }
  if (auto status = check_batch(r, text); !status) return status.error();
  return r;
}

}  // namespace tessera::parallel
