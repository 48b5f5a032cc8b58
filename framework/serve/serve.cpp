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

// A step's cost off `grid`, plus what a swap in it moves at the room's chips' off-chip rate.
StepCostFn swap_priced(const CostGrid& grid, const KvRoom& room,
                       const std::optional<EnergyRates>& energy) {
  return [&grid, &room, &energy](const StepShape& shape) {
    StepCost cost = grid.cost(shape);
    if (shape.swap_tokens == 0) return cost;
    StepCost swap = swap_cost(room, energy, shape.swap_tokens);
    return StepCost{cost.seconds + swap.seconds, cost.joules + swap.joules};
  };
}

Status check_swap(const KvRoom& room, const ServedMachine& machine, const std::string& why) {
  if (room.off_chip_bytes_per_s > 0) return ok_status();
  return input_error(fmt::format(
      "{}: chip {} states no off-chip memory rate to move the KV cache at; give its rate in the "
      "chip file{}",
      why, machine.chip->spec.name, why == "--preemption swap" ? ", or preempt by recompute" : ""));
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

GridAxes serve_axes(const ServeOptions& o, const KvRoom& room, int64_t context_limit,
                    int64_t batch_step) {
  return default_axes(o.scheduler.max_batch, room.tokens(),
                      std::min(context_limit, kMaxPrefillPoint), context_limit, batch_step);
}

Result<Served> serve(ServedMachine& machine, const RequestSource& source, const ServeOptions& o,
                     const ServeProgress& progress) {
  Served out;
  if (Status ok = check_max_batch(machine, o.scheduler.max_batch); !ok) return ok.error();
  auto room = kv_room(machine, o.block_tokens, o.scheduler.max_batch);
  if (!room) return room.error();
  out.room = *room;
  if (o.scheduler.preemption == Preemption::swap)
    if (Status ok = check_swap(out.room, machine, "--preemption swap"); !ok) return ok.error();
  out.context_limit = request_context_limit(machine, out.room, out.context_why);
  auto requests = checked_requests(source, out.context_limit, out.context_why);
  if (!requests) return requests.error();
  out.cache_dir = o.cache_dir.empty() ? default_cache_dir() : o.cache_dir;
  auto grid = cached_cost_grid(machine,
                               serve_axes(o, out.room, out.context_limit, grid_batch_step(machine)),
                               out.cache_dir, progress.grid, out.grid_built);
  if (!grid) return grid.error();
  out.grid = std::move(*grid);
  const CostGrid& g = out.grid;
  SchedulerOptions scheduler = o.scheduler;
  scheduler.replicas = out.room.replicas();
  if (scheduler.max_prefill_tokens == 0) scheduler.max_prefill_tokens = g.max_prefill_tokens();
  const KvRoom& kv = out.room;
  auto run = run_server(*requests, scheduler, KvBlocks(kv.blocks, kv.block_tokens),
                        swap_priced(g, kv, machine.chip->models.energy), progress.run);
  if (!run) return run.error();
  out.run = std::move(*run);
  out.extrapolated = extrapolation(out.run, g.max_prefill_tokens());
  out.summary = summarize(out.run, o.slo, o.scheduler.max_batch);
  return out;
}

namespace {

// The groups' rooms, the request limit both allow, and the requests within it.
Status open_groups(ServedMachine& pm, ServedMachine& dm, const RequestSource& source,
                   const ServeOptions& o, Served& out, std::vector<Request>& requests) {
  if (Status ok = check_max_batch(dm, o.scheduler.max_batch); !ok) return ok;
  auto prefill_room = kv_room(pm, o.block_tokens, o.scheduler.max_batch);
  if (!prefill_room) return prefill_room.error();
  auto decode_room = kv_room(dm, o.block_tokens, o.scheduler.max_batch);
  if (!decode_room) return decode_room.error();
  if (Status ok =
          check_swap(*decode_room, dm, "--disaggregate (the decode group preempts by swap)");
      !ok)
    return ok;
  std::string prefill_why;
  const int64_t prefill_limit = request_context_limit(pm, *prefill_room, prefill_why);
  out.context_limit = request_context_limit(dm, *decode_room, out.context_why);
  if (prefill_limit < out.context_limit) {
    out.context_limit = prefill_limit;
    out.context_why = prefill_why;
  }
  out.room = *decode_room;
  out.prefill = PrefillGroup{*prefill_room, {}, false};
  auto checked = checked_requests(source, out.context_limit, out.context_why);
  if (!checked) return checked.error();
  requests = std::move(*checked);
  return ok_status();
}

// The prefill group's grid: its prefill steps, and the decode row's first point (the grid's
// form; never read); the decode group's: its decode steps, and the shortest prefill (likewise).
Status build_grids(ServedMachine& pm, ServedMachine& dm, const ServeOptions& o, Served& out,
                   const ServeProgress& progress) {
  out.cache_dir = o.cache_dir.empty() ? default_cache_dir() : o.cache_dir;
  const int64_t prefill_step = grid_batch_step(pm);  // the decode row's one batch splits into mb
  GridAxes prefill_axes =
      default_axes(prefill_step, out.prefill->room.tokens(),
                   std::min(out.context_limit, kMaxPrefillPoint), out.context_limit, prefill_step);
  prefill_axes.context_tokens = {{prefill_axes.context_tokens.front().front()}};
  auto prefill_grid =
      cached_cost_grid(pm, prefill_axes, out.cache_dir, progress.grid, out.prefill->grid_built);
  if (!prefill_grid) return prefill_grid.error();
  out.prefill->grid = std::move(*prefill_grid);
  GridAxes decode_axes = default_axes(o.scheduler.max_batch, out.room.tokens(), 16,
                                      out.context_limit, grid_batch_step(dm));
  auto decode_grid =
      cached_cost_grid(dm, decode_axes, out.cache_dir, progress.grid, out.grid_built);
  if (!decode_grid) return decode_grid.error();
  out.grid = std::move(*decode_grid);
  return ok_status();
}

}  // namespace

Result<Served> serve_disaggregated(ServedMachine& pm, ServedMachine& dm, const KvLink& link,
                                   const RequestSource& source, const ServeOptions& o,
                                   const ServeProgress& progress) {
  if (o.scheduler.policy != Policy::continuous)
    return usage_error(fmt::format(
        "--disaggregate runs prefill-only steps on the prefill group and decode-only steps on the "
        "decode group; --scheduler {} mixes them on one group: leave --scheduler at continuous",
        to_string(o.scheduler.policy)));
  Served out;
  std::vector<Request> requests;
  if (Status ok = open_groups(pm, dm, source, o, out, requests); !ok) return ok.error();
  if (Status ok = build_grids(pm, dm, o, out, progress); !ok) return ok.error();
  out.link = link;
  SchedulerOptions prefilling = o.scheduler;
  prefilling.replicas = out.prefill->room.replicas();
  prefilling.max_prefill_tokens = out.prefill->grid.max_prefill_tokens();
  SchedulerOptions decoding = o.scheduler;
  decoding.replicas = out.room.replicas();
  decoding.preemption = Preemption::swap;
  const PrefillGroup& p = *out.prefill;
  const ServerGroup prefill{prefilling, KvBlocks(p.room.blocks, p.room.block_tokens),
                            [&p](const StepShape& shape) { return p.grid.cost(shape); }};
  const ServerGroup decode{decoding, KvBlocks(out.room.blocks, out.room.block_tokens),
                           swap_priced(out.grid, out.room, dm.chip->models.energy)};
  auto run = run_disaggregated(requests, prefill, decode,
                               KvHandoff{link, p.room.sequence_bytes_per_token}, progress.run);
  if (!run) return run.error();
  out.run = std::move(*run);
  out.extrapolated = extrapolation(out.run, p.grid.max_prefill_tokens());
  out.summary = summarize(out.run, o.slo, o.scheduler.max_batch);
  return out;
}

}  // namespace tessera::serve
