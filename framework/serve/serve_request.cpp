#include "framework/serve/serve_request.hpp"

#include <fmt/format.h>

namespace tessera::serve {

namespace {

Result<RequestSource> request_source(const ServeRequest& r) {
  if (!r.trace.empty()) return RequestSource(std::filesystem::path(r.trace));
  SyntheticLoad load = r.load;
  if (r.arrivals != "poisson" && r.arrivals != "gamma")
    return usage_error("--arrivals " + r.arrivals + ": expected poisson or gamma");
  load.arrivals = r.arrivals == "gamma" ? ArrivalKind::gamma : ArrivalKind::poisson;
  auto prompt = parse_length_dist(r.prompt, "--prompt");
  if (!prompt) return prompt.error();
  auto output = parse_length_dist(r.output, "--output");
  if (!output) return output.error();
  load.prompt = *prompt;
  load.output = *output;
  return RequestSource(load);
}

// The strategy of --parallel, or none for flat.
Result<std::optional<parallel::ParallelStrategy>> strategy_of(const std::string& text) {
  if (text.empty() || text == "flat") return std::optional<parallel::ParallelStrategy>{};
  auto strategy = parallel::parse_strategy(text);
  if (!strategy) return strategy.error();
  if (strategy->automatic)
    return usage_error(
        "--parallel auto: serve takes one strategy; pick it with `tessera compile --parallel "
        "auto` first");
  if (strategy->flat) return std::optional<parallel::ParallelStrategy>{};
  return std::optional<parallel::ParallelStrategy>(*strategy);
}

// --disaggregate's prefill group and link, or an error for the options that need it given
// without it.
Status open_prefill(PluginSet& plugins, const ServeRequest& r, const ModelRequest& model,
                    planner::Design design, OpenedServe& out) {
  if (!r.disaggregate) {
    if (!r.prefill_chip.chip.empty() || !r.prefill_parallel.empty() || !r.kv_link.empty())
      return usage_error(
          "--prefill-chip, --prefill-parallel and --kv-link describe a disaggregated server; add "
          "--disaggregate");
    return ok_status();
  }
  if (r.prefill_chip.chip.empty() || r.kv_link.empty())
    return usage_error(
        "--disaggregate needs --prefill-chip (the chips that prefill; --chip's decode) and "
        "--kv-link (a preset: 100gbe, 400gbe, pcie4-x16; or a link file, docs/formats.md)");
  auto link = read_kv_link(r.kv_link);
  if (!link) return link.error();
  out.link = *link;
  auto strategy = strategy_of(r.prefill_parallel);
  if (!strategy) return strategy.error();
  driver::ChipChoice choice = r.prefill_chip;
  if (choice.target.empty()) choice.target = r.chip.target;
  auto chip = driver::open_chip(plugins, choice);
  if (!chip) return chip.error();
  out.prefill_chip = std::make_unique<driver::OpenChip>(std::move(*chip));
  out.prefill = ServedMachine{&plugins,  out.prefill_chip.get(),
                              model,     design,
                              *strategy, *strategy ? parallel::to_string(**strategy) : "flat"};
  return ok_status();
}

}  // namespace

Result<OpenedServe> open_serve(PluginSet& plugins, const ServeRequest& r) {
  auto request = driver::parse_model_request(r.model);
  if (!request) return request.error();
  if (Status ok = check_servable(*request); !ok) return ok.error();
  auto design = driver::parse_design_choice(r.design);
  if (!design) return design.error();
  auto strategy = strategy_of(r.parallel);
  if (!strategy) return strategy.error();
  OpenedServe out;
  auto policy = parse_policy(r.scheduler);
  if (!policy) return policy.error();
  out.options = r.options;
  out.options.scheduler.policy = *policy;
  auto preemption = parse_preemption(r.preemption);
  if (!preemption) return preemption.error();
  out.options.scheduler.preemption = *preemption;
  auto router = parse_router(r.router);
  if (!router) return router.error();
  out.options.scheduler.router = *router;
  if (r.slo_ttft_ms > 0) out.options.slo.ttft_s = r.slo_ttft_ms / 1e3;
  if (r.slo_tpot_ms > 0) out.options.slo.tpot_s = r.slo_tpot_ms / 1e3;
  out.options.cache_dir = r.cache_dir;
  auto source = request_source(r);
  if (!source) return source.error();
  out.source = std::move(*source);
  auto chip = driver::open_chip(plugins, r.chip);
  if (!chip) return chip.error();
  out.chip = std::make_unique<driver::OpenChip>(std::move(*chip));
  out.machine = {&plugins,  out.chip.get(),
                 *request,  design->written,
                 *strategy, *strategy ? parallel::to_string(**strategy) : "flat"};
  if (Status ok = open_prefill(plugins, r, *request, design->written, out); !ok) return ok.error();
  out.header = header_at(r, out, r.load.rate_per_s);
  return out;
}

Result<Served> serve_opened(OpenedServe& o, const ServeProgress& progress) {
  if (o.prefill)
    return serve_disaggregated(*o.prefill, o.machine, *o.link, o.source, o.options, progress);
  return serve(o.machine, o.source, o.options, progress);
}

ServeHeader header_at(const ServeRequest& r, const OpenedServe& opened, double rate_per_s) {
  const ServedMachine& machine = opened.machine;
  std::string load =
      !r.trace.empty()
          ? "trace " + r.trace
          : fmt::format("{} requests, {} arrivals at {:g} req/s{}, prompt {}, output {}, seed {}",
                        r.load.requests, r.arrivals, rate_per_s,
                        r.arrivals == "gamma" ? fmt::format(" (cv {:g})", r.load.gamma_cv) : "",
                        r.prompt, r.output, r.load.seed);
  return {machine.request.model,
          machine.chip->spec.name,
          planner::to_string(machine.design),
          machine.strategy_text,
          r.scheduler,
          r.preemption,
          r.router,
          load,
          opened.prefill ? opened.prefill_chip->spec.name : "",
          opened.prefill ? opened.prefill->strategy_text : ""};
}

}  // namespace tessera::serve
