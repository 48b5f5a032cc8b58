#include "framework/serve/serve_report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>

#include "framework/common/json_text.hpp"
#include "framework/common/table.hpp"
#include "framework/common/units.hpp"

namespace tessera::serve {

namespace {

std::string ms(double seconds) {
  return fmt::format("{:.2f}", seconds * 1e3);
}

void add_spread(Table& table, const char* name, const Spread& s) {
  table.add_row({name, ms(s.mean), ms(s.p50), ms(s.p90), ms(s.p99)});
}

nlohmann::json spread_json(const Spread& s) {
  return {{"mean", s.mean}, {"p50", s.p50}, {"p90", s.p90}, {"p99", s.p99}};
}

std::string verdict_text(const ServeSummary& s) {
  return fmt::format(
      "unsustainable: {:.3f} req/s offered, {:.3f} req/s sustained; the queue grew to {} "
      "waiting requests and kept growing while requests arrived, so there is no steady latency "
      "to report. Serve at most about {:.3f} req/s, or add chips or replicas\n",
      s.offered_rps, s.sustained_rps, s.peak_waiting, s.sustained_rps);
}

// Under a strategy, the chips the room was measured on (kv_room.hpp); nothing when flat.
std::string room_holder(const KvRoom& room) {
  if (!room.stage) return "";
  const RoomStage& s = *room.stage;
  return fmt::format(" on each chip of stage {} (layers {}-{}){}{}", s.index, s.first_layer,
                     s.last_layer,
                     s.stages > 1 ? fmt::format(", the tightest of {}", s.stages) : "",
                     s.replicas > 1 ? fmt::format(", in each of {} replicas", s.replicas) : "");
}

nlohmann::json room_stage_json(const KvRoom& room) {
  if (!room.stage) return nullptr;
  const RoomStage& s = *room.stage;
  return {{"index", s.index},
          {"first_layer", s.first_layer},
          {"last_layer", s.last_layer},
          {"stages", s.stages},
          {"replicas", s.replicas}};
}

// Each replica's share, when there are several: "replica 0  50 requests, busy 61.2 %, kv 30.1 %
// mean, 55.0 % peak, 0 preemptions".
const char* role_name(Role role) {
  return role == Role::prefill ? "prefill" : role == Role::decode ? "decode" : "serve";
}

std::string replicas_text(const ServeSummary& s) {
  if (s.replicas.size() < 2) return "";
  std::string out;
  for (size_t r = 0; r < s.replicas.size(); ++r) {
    const ReplicaSummary& x = s.replicas[r];
    out += fmt::format(
        "replica {}{}  {} requests, busy {:.1f} %, kv {:.1f} % mean, {:.1f} % peak, {} "
        "preemptions\n",
        r, x.role == Role::serve ? "" : fmt::format(" ({})", role_name(x.role)), x.requests,
        x.busy * 100, x.kv_utilisation_mean * 100, x.kv_utilisation_peak * 100, x.preemptions);
  }
  return out;
}

// Disaggregated: the prefill group's room and grid, and the link (machine_text's lines).
std::string disaggregation_text(const ServeHeader& h, const Served& d) {
  if (!d.prefill || !d.link) return "";
  const PrefillGroup& p = *d.prefill;
  const KvLink& link = *d.link;
  return fmt::format(
      "prefill on {} ({}): {} blocks of {} tokens ({} per token) in {} left of {} after "
      "weights{}; {} grid of {} prefill steps; the group above decodes\n"
      "link   {} ({}): {} one way, {} latency, {}\n",
      h.prefill_chip, h.prefill_strategy, p.room.blocks, p.room.block_tokens,
      format_bytes(p.room.bytes_per_token),
      format_bytes(p.room.capacity_bytes - p.room.weight_bytes),
      format_bytes(p.room.capacity_bytes), room_holder(p.room), p.grid_built ? "built" : "cached",
      p.grid.prefill.size(), link.name, link.file.string(), format_bytes_per_s(link.bytes_per_s),
      format_seconds(link.latency_s),
      link.j_per_byte ? fmt::format("{:g} pJ/byte", *link.j_per_byte * 1e12)
                      : std::string("no energy per byte stated"));
}

// "moved  40 KV caches, 1.23 GB over the link (busy 3.1 %); transfer 10.2 ms mean, 12.0 ms P99;
// energy 30.5 mJ".
std::string link_text(const ServeSummary& s) {
  if (!s.link) return "";
  const LinkSummary& l = *s.link;
  return fmt::format(
      "moved  {} KV caches, {} over the link (busy {:.1f} %); transfer {} ms mean, {} ms "
      "P99{}\n",
      l.transfers, format_bytes(l.bytes), l.utilisation * 100, ms(l.transfer_s.mean),
      ms(l.transfer_s.p99),
      l.joules > 0 ? fmt::format("; energy {}", format_joules(l.joules)) : std::string());
}

nlohmann::json disaggregation_json(const ServeHeader& h, const Served& d) {
  if (!d.prefill || !d.link || !d.summary.link) return nullptr;
  const PrefillGroup& p = *d.prefill;
  const KvLink& link = *d.link;
  const LinkSummary& l = *d.summary.link;
  return {{"prefill",
           {{"chip", h.prefill_chip},
            {"strategy", h.prefill_strategy},
            {"kv",
             {{"blocks", p.room.blocks},
              {"block_tokens", p.room.block_tokens},
              {"bytes_per_token", p.room.bytes_per_token},
              {"capacity_bytes", p.room.capacity_bytes},
              {"weight_bytes", p.room.weight_bytes},
              {"replicas", p.room.replicas()}}},
            {"grid_built", p.grid_built},
            {"grid_prefill_steps", p.grid.prefill.size()}}},
          {"link",
           {{"name", link.name},
            {"file", link.file.string()},
            {"bytes_per_s", link.bytes_per_s},
            {"latency_s", link.latency_s},
            {"j_per_byte", link.j_per_byte ? nlohmann::json(*link.j_per_byte) : nlohmann::json()}}},
          {"transfers",
           {{"count", l.transfers},
            {"bytes", l.bytes},
            {"utilisation", l.utilisation},
            {"joules", l.joules},
            {"transfer_s", spread_json(l.transfer_s)}}}};
}

nlohmann::json replicas_json(const ServeSummary& s) {
  nlohmann::json out = nlohmann::json::array();
  for (const ReplicaSummary& x : s.replicas)
    out.push_back({{"role", role_name(x.role)},
                   {"requests", x.requests},
                   {"busy", x.busy},
                   {"kv_utilisation_mean", x.kv_utilisation_mean},
                   {"kv_utilisation_peak", x.kv_utilisation_peak},
                   {"preemptions", x.preemptions}});
  return out;
}

nlohmann::json held_out_json(const std::vector<HeldOut>& points) {
  nlohmann::json out = nlohmann::json::array();
  for (const HeldOut& x : points)
    out.push_back({{"batch", x.batch},
                   {"context_tokens", x.context_tokens},
                   {"simulated_s", x.simulated_s},
                   {"interpolated_s", x.interpolated_s},
                   {"error", x.error()}});
  return out;
}

size_t decode_points(const CostGrid& grid) {
  size_t n = 0;
  for (const auto& row : grid.decode) n += row.size();
  return n;
}

// What refinement added to the grid: nothing, its points by batch, or that it stopped at its bound.
std::string refinement_text(const CostGrid& grid) {
  if (grid.refinement_bounded)
    return fmt::format("; refinement stopped at its bound of {} added point{}", grid.refined.size(),
                       grid.refined.size() == 1 ? "" : "s");
  if (grid.refined.empty()) return "";
  std::map<int64_t, std::vector<int64_t>> by_batch;
  for (const HeldOut& h : grid.refined) by_batch[h.batch].push_back(h.context_tokens);
  std::vector<std::string> rows;
  for (auto& [batch, contexts] : by_batch) {
    std::sort(contexts.begin(), contexts.end());
    rows.push_back(fmt::format("batch {} at {}", batch, fmt::join(contexts, ", ")));
  }
  return fmt::format(
      "; {} point{} added where held-out steps missed by over {:.0f} %: {} positions",
      grid.refined.size(), grid.refined.size() == 1 ? "" : "s", kRefineError * 100,
      fmt::join(rows, "; "));
}

}  // namespace

std::string grid_error_text(const CostGrid& grid, const StepShape& largest) {
  GridError run = grid.error_within(largest), all = grid.error();
  return fmt::format(
      "interpolation error at most {:.2f} % over the decode steps this run took ({} held-out "
      "steps; the whole grid: {:.2f} % over {}{}) {}",
      run.worst * 100, run.points, all.worst * 100, all.points, refinement_text(grid),
      run.worst <= kMaxInterpolationError
          ? fmt::format("<= {:.0f} %", kMaxInterpolationError * 100)
          : fmt::format("EXCEEDS {:.0f} %: the figures below are not trusted to that",
                        kMaxInterpolationError * 100));
}

std::string extrapolation_text(const Extrapolation& x) {
  if (x.steps == 0) return "";
  return fmt::format(
      "extrap {} prefill step{} of {} request{} went beyond the grid's longest prefill ({} "
      "tokens), up to {} tokens: priced by extrapolation from its last two lengths, not "
      "simulated\n",
      x.steps, x.steps == 1 ? "" : "s", x.requests, x.requests == 1 ? "" : "s",
      x.grid_prefill_tokens, x.longest_tokens);
}

bool trusted(const Served& served) {
  return served.grid.error_within(served.run.largest).worst <= kMaxInterpolationError;
}

std::string machine_text(const ServeHeader& h, const Served& d) {
  return fmt::format(
             "serve  {} on {} ({}, {}), scheduler {}{}{}, load {}\n"
             "kv     {} blocks of {} tokens ({} tokens, {} per token) in {} left of {} after "
             "weights{}; "
             "a request holds at most {} tokens ({})\n"
             "steps  {} grid of {} decode and {} prefill steps ({}); {}\n",
             h.model, h.chip, h.design, h.strategy, h.scheduler,
             h.preemption == "swap" ? " (preemption by swap)" : "",
             d.room.replicas() > 1
                 ? fmt::format(" on each of {} replicas, routed {}", d.room.replicas(), h.router)
                 : "",
             h.load, d.room.blocks, d.room.block_tokens, d.room.tokens(),
             format_bytes(d.room.bytes_per_token),
             format_bytes(d.room.capacity_bytes - d.room.weight_bytes),
             format_bytes(d.room.capacity_bytes), room_holder(d.room), d.context_limit,
             d.context_why, d.grid_built ? "built" : "cached", decode_points(d.grid),
             d.grid.prefill.size(), d.cache_dir.string(), grid_error_text(d.grid, d.run.largest)) +
         disaggregation_text(h, d) + extrapolation_text(d.extrapolated);
}

std::string serve_text(const ServeHeader& h, const Served& d, const std::string& approximation) {
  const ServeSummary& s = d.summary;
  std::string out = machine_text(h, d) + approximation;
  if (!s.sustainable) return out + verdict_text(s);
  Table table({"ms", "mean", "p50", "p90", "p99"},
              {Table::Align::left, Table::Align::right, Table::Align::right, Table::Align::right,
               Table::Align::right});
  add_spread(table, "TTFT", s.ttft_s);
  add_spread(table, "TPOT", s.tpot_s);
  add_spread(table, "E2E", s.e2e_s);
  out += table.render();
  out += fmt::format(
      "{} requests in {:.2f} s: {:.3f} req/s, {:.1f} tokens/s ({} steps)\n"
      "kv use {:.1f} % mean, {:.1f} % peak; {} preemptions\n",
      s.requests, s.duration_s, s.requests_per_s, s.tokens_per_s, s.steps,
      s.kv_utilisation_mean * 100, s.kv_utilisation_peak * 100, s.preemptions);
  out += replicas_text(s);
  out += link_text(s);
  if (s.joules_per_token > 0)
    out += fmt::format("energy {} per token, {} per request\n", format_joules(s.joules_per_token),
                       format_joules(s.joules_per_request));
  if (s.goodput_rps)
    out += fmt::format("goodput {:.3f} req/s ({:.1f} % of requests met the SLOs)\n", *s.goodput_rps,
                       *s.slo_attained * 100);
  return out;
}

std::string serve_load_text(const std::vector<Served>& points) {
  Table table({"offered req/s", "served req/s", "TTFT p50 ms", "TTFT p99 ms", "TPOT p50 ms",
               "TPOT p99 ms", "tokens/s", "goodput req/s"});
  for (const Served& d : points) {
    const ServeSummary& s = d.summary;
    auto latency = [&s](double seconds) { return s.sustainable ? ms(seconds) : "-"; };
    table.add_row({fmt::format("{:.3f}", s.offered_rps), fmt::format("{:.3f}", s.sustained_rps),
                   latency(s.ttft_s.p50), latency(s.ttft_s.p99), latency(s.tpot_s.p50),
                   latency(s.tpot_s.p99),
                   s.sustainable ? fmt::format("{:.1f}", s.tokens_per_s) : "unsustainable",
                   s.goodput_rps && s.sustainable ? fmt::format("{:.3f}", *s.goodput_rps) : "-"});
  }
  return table.render();
}

std::string serve_load_json(const std::vector<ServeHeader>& headers,
                            const std::vector<Served>& points) {
  nlohmann::json docs = nlohmann::json::array();
  for (size_t i = 0; i < points.size(); ++i)
    docs.push_back(nlohmann::json::parse(serve_json(headers[i], points[i])));
  return json_text({{"format", "tessera-serve-load-2"}, {"points", docs}}, 1) + "\n";
}

std::string serve_json(const ServeHeader& h, const Served& d) {
  const ServeSummary& s = d.summary;
  const GridError run_error = d.grid.error_within(d.run.largest);
  const nlohmann::json held = held_out_json(d.grid.held_out),
                       refined = held_out_json(d.grid.refined);
  auto optional = [](const std::optional<double>& v) {
    return v ? nlohmann::json(*v) : nlohmann::json();
  };
  nlohmann::json doc = {{"format", "tessera-serve-5"},
                        {"model", h.model},
                        {"chip", h.chip},
                        {"design", h.design},
                        {"strategy", h.strategy},
                        {"scheduler", h.scheduler},
                        {"preemption", h.preemption},
                        {"router", h.router},
                        {"load", h.load},
                        {"kv",
                         {{"blocks", d.room.blocks},
                          {"block_tokens", d.room.block_tokens},
                          {"bytes_per_token", d.room.bytes_per_token},
                          {"capacity_bytes", d.room.capacity_bytes},
                          {"weight_bytes", d.room.weight_bytes},
                          {"stage", room_stage_json(d.room)},
                          {"replicas", d.room.replicas()},
                          {"request_limit_tokens", d.context_limit}}},
                        {"step_costs",
                         {{"built", d.grid_built},
                          {"max_error", d.grid.error().worst},
                          {"run_error", run_error.worst},
                          {"run_held_out", run_error.points},
                          {"trusted", trusted(d)},
                          {"extrapolated",
                           {{"grid_prefill_tokens", d.extrapolated.grid_prefill_tokens},
                            {"steps", d.extrapolated.steps},
                            {"requests", d.extrapolated.requests},
                            {"longest_tokens", d.extrapolated.longest_tokens}}},
                          {"held_out", held},
                          {"refined", refined},
                          {"refinement_bounded", d.grid.refinement_bounded}}},
                        {"sustainable", s.sustainable},
                        {"offered_rps", s.offered_rps},
                        {"sustained_rps", s.sustained_rps},
                        {"peak_waiting", s.peak_waiting},
                        {"requests", s.requests},
                        {"duration_s", s.duration_s},
                        {"steps", s.steps},
                        {"preemptions", s.preemptions},
                        {"requests_per_s", s.requests_per_s},
                        {"tokens_per_s", s.tokens_per_s},
                        {"kv_utilisation_mean", s.kv_utilisation_mean},
                        {"kv_utilisation_peak", s.kv_utilisation_peak},
                        {"joules_per_token", s.joules_per_token},
                        {"joules_per_request", s.joules_per_request},
                        {"goodput_rps", optional(s.goodput_rps)},
                        {"slo_attained", optional(s.slo_attained)},
                        {"replicas", replicas_json(s)},
                        {"disaggregation", disaggregation_json(h, d)}};
  // Latencies only for a load the machine sustains (metrics.hpp).
  if (s.sustainable) {
    doc["ttft_s"] = spread_json(s.ttft_s);
    doc["tpot_s"] = spread_json(s.tpot_s);
    doc["e2e_s"] = spread_json(s.e2e_s);
  }
  return json_text(doc, 1) + "\n";
}

}  // namespace tessera::serve
