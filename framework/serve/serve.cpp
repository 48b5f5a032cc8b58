#include "framework/serve/serve.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace tessera::serve {

namespace {

// The longest prefill step the grid simulates: beyond it a step is rare (several long prompts
// admitted at once) and its cost is extrapolated.
constexpr int64_t kMaxPrefillPoint = 8192;

Result<std::vector<Request>> checked_requests(const RequestSource& source, int64_t limit,
                                              const std::string& why) {
  if (const auto* load = std::get_if<SyntheticLoad>(&source)) {
    for (const auto& [dist, option] :
         {std::pair{load->prompt, "--prompt"}, std::pair{load->output, "--output"}})
      if (max_length(dist) > limit)
        return usage_error(fmt::format(
            "{} {} draws lengths up to {} tokens, beyond the {} tokens one request may hold ({}); "
            "bound it below that (uniform:LO:HI or zipf:S:MAX)",
            option, to_string(dist),
            max_length(dist) == INT64_MAX ? "any number of" : fmt::format("{}", max_length(dist)),
            limit, why));
    auto requests = synthetic_requests(*load);
    if (!requests) return requests.error();
    for (const Request& r : *requests)
      if (auto ok =
              check_request(r, limit, why, fmt::format("request {} (--prompt, --output)", r.id));
          !ok)
        return ok.error();
    return requests;
  }
  auto rows = read_trace(std::get<std::filesystem::path>(source));
  if (!rows) return rows.error();
  std::vector<Request> requests;
  for (const TraceRow& row : *rows) {
    if (auto ok = check_request(row.request, limit, why, row.source); !ok) return ok.error();
    requests.push_back(row.request);
  }
  return requests;
}

}  // namespace

Extrapolation extrapolation(const ServerRun& run, int64_t grid_prefill_tokens) {
  Extrapolation out{grid_prefill_tokens};
  for (const Sample& step : run.samples)
    if (step.longest_prefill_tokens > grid_prefill_tokens) {
      ++out.steps;
      out.longest_tokens = std::max(out.longest_tokens, step.longest_prefill_tokens);
    }
  for (const RequestRecord& r : run.records)
    out.requests += r.longest_prefill_tokens > grid_prefill_tokens ? 1 : 0;
  return out;
}

GridAxes serve_axes(const ServeOptions& o, const KvRoom& room, int64_t context_limit) {
  return default_axes(o.scheduler.max_batch, room.tokens(),
                      std::min(context_limit, kMaxPrefillPoint), context_limit);
}

Result<Served> serve(ServedMachine& machine, const RequestSource& source, const ServeOptions& o,
                     const ServeProgress& progress) {
  Served out;
  auto room = kv_room(machine, o.block_tokens, o.scheduler.max_batch);
  if (!room) return room.error();
  out.room = *room;
  if (o.scheduler.preemption == Preemption::swap && out.room.off_chip_bytes_per_s <= 0)
    return input_error(fmt::format(
        "--preemption swap: chip {} states no off-chip memory rate to move the KV cache at; give "
        "its rate in the chip file, or preempt by recompute",
        machine.chip->spec.name));
  out.context_limit = request_context_limit(machine, out.room, out.context_why);
  auto requests = checked_requests(source, out.context_limit, out.context_why);
  if (!requests) return requests.error();
  out.cache_dir = o.cache_dir.empty() ? default_cache_dir() : o.cache_dir;
  auto grid = cached_cost_grid(machine, serve_axes(o, out.room, out.context_limit), out.cache_dir,
                               progress.grid, out.grid_built);
  if (!grid) return grid.error();
  out.grid = std::move(*grid);
  const CostGrid& g = out.grid;
  SchedulerOptions scheduler = o.scheduler;
  scheduler.replicas = out.room.replicas();
  if (scheduler.max_prefill_tokens == 0) scheduler.max_prefill_tokens = g.max_prefill_tokens();
  const KvRoom& kv = out.room;
  const std::optional<EnergyRates>& energy = machine.chip->models.energy;
  auto run = run_server(
      *requests, scheduler, KvBlocks(kv.blocks, kv.block_tokens),
      [&g, &kv, &energy](const StepShape& shape) {
        StepCost cost = g.cost(shape);
        if (shape.swap_tokens == 0) return cost;
        StepCost swap = swap_cost(kv, energy, shape.swap_tokens);
        return StepCost{cost.seconds + swap.seconds, cost.joules + swap.joules};
      },
      progress.run);
  if (!run) return run.error();
  out.run = std::move(*run);
  out.extrapolated = extrapolation(out.run, g.max_prefill_tokens());
  out.summary = summarize(out.run, o.slo, o.scheduler.max_batch);
  return out;
}

}  // namespace tessera::serve
