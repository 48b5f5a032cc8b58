#include "framework/report/parallel_report.hpp"

#include <fmt/format.h>

#include <nlohmann/json.hpp>
#include <set>

#include "framework/common/json_text.hpp"
#include "framework/common/table.hpp"
#include "framework/common/units.hpp"
#include "framework/report/design_report.hpp"
#include "framework/report/residency_report.hpp"

namespace tessera {
namespace {

using parallel::CollectiveUse;
using parallel::DesignStep;
using parallel::ParallelCompilation;

std::string ms_text(double seconds) {
  return fmt::format("{:.3f}", seconds * 1e3);
}

std::string chips_text(const std::vector<uint32_t>& chips) {
  return fmt::format("{}", fmt::join(chips, ","));
}

std::vector<Table::Align> first_left(size_t columns) {
  std::vector<Table::Align> align(columns, Table::Align::right);
  align.front() = Table::Align::left;
  return align;
}

const DesignStep* step_of(const ParallelCompilation& c, planner::Design design) {
  for (const DesignStep& d : c.designs)
    if (d.design == design) return &d;
  return c.designs.empty() ? nullptr : &c.designs.back();
}

}  // namespace

std::string strategy_line(const ParallelCompilation& c, const Machine& machine) {
  const parallel::Resolved& r = c.strategy;
  return fmt::format(
      "strategy  tp={} pp={} dp={}{}{} on {} ({} chips): {} stage(s) of {} chip(s), {} "
      "replica(s), {} user(s) per micro-batch; collectives: {}\n",
      r.tp, r.pp, r.dp, r.ep > 1 ? fmt::format(" ep={}", r.ep) : "",
      r.micro_batches > 1 ? fmt::format(" mb={}", r.micro_batches) : "", machine.chip,
      machine.chips, r.pp, r.tp, r.dp, r.micro_batch,
      r.algorithm == collective::CollectiveAlgorithm::automatic
          ? "each its cheapest algorithm"
          : std::string("all ") + collective::to_string(r.algorithm));
}

std::string parallel_steps_table(const ParallelCompilation& c) {
  // A prefill's time to first token: the simulated step (else the planned) and the host's read.
  const double host_s = c.first_token ? c.first_token->seconds() : 0;
  const bool ttft = host_s > 0;
  std::vector<std::string> headers = {"design", "step ms",      "tokens/s", "exposed coll. ms",
                                      "bubble", "simulated ms", "diff"};
  if (ttft) headers.emplace_back("TTFT ms");
  headers.insert(headers.end(), {"mJ/token", "chip links mJ/token"});
  Table table(headers, first_left(headers.size()));
  for (const DesignStep& d : c.designs) {
    std::string diff =
        d.simulated_s ? fmt::format("{:+.1f}%", 100 * (*d.simulated_s / d.planned_s - 1)) : "-";
    std::vector<std::string> row = {planner::to_string(d.design),
                                    ms_text(d.planned_s),
                                    fmt::format("{:.1f}", d.tokens / d.planned_s),
                                    ms_text(d.collective_planned_s),
                                    fmt::format("{:.1f}%", 100 * d.bubble),
                                    d.simulated_s ? ms_text(*d.simulated_s) : "-",
                                    diff};
    if (ttft) row.push_back(ms_text(d.simulated_s.value_or(d.planned_s) + host_s));
    row.insert(row.end(),
               {d.energy_j ? fmt::format("{:.3f}", *d.energy_j / d.tokens * 1e3) : "-",
                d.collective_j ? fmt::format("{:.3f}", *d.collective_j / d.tokens * 1e3) : "-"});
    table.add_row(std::move(row));
  }
  return table.render() + first_token_note(c.first_token);
}

std::string stages_table(const ParallelCompilation& c, planner::Design design) {
  const DesignStep* step = step_of(c, design);
  Table table({"stage", "layers", "chips (replica 0)", "ops per chip", "stage ms", "simulated ms"},
              first_left(6));
  for (size_t s = 0; s < c.stages.size(); ++s) {
    const parallel::StageRun& stage = c.stages[s];
    const driver::Compilation& compiled = c.compilations[stage.compilation];
    table.add_row(
        {fmt::format("{}", s), fmt::format("{}-{}", stage.first_layer, stage.last_layer),
         chips_text(stage.chips), fmt::format("{}", compiled.graph->ops().size()),
         step ? ms_text(step->stage_planned_s[s]) : "-",
         step && !step->stage_simulated_s.empty() ? ms_text(step->stage_simulated_s[s]) : "-"});
  }
  return table.render();
}

std::string collectives_table(const ParallelCompilation& c, planner::Design design) {
  if (c.collectives.empty()) return "";
  const DesignStep* step = step_of(c, design);
  Table table({"stage", "where", "kind", "algorithm", "bytes", "chips", "links", "per step",
               "each us", "simulated us", "step ms", "of step"},
              first_left(12));
  for (const CollectiveUse& u : c.collectives) {
    double per_step = static_cast<double>(u.per_micro_batch * c.strategy.micro_batches);
    double total_s = per_step * u.planned.seconds;
    table.add_row({fmt::format("{}", u.stage), u.where, collective::to_string(u.op.kind),
                   collective::to_string(u.planned.algorithm), format_bytes(u.op.bytes),
                   chips_text(u.op.group), fmt::format("{}", u.planned.links_used),
                   fmt::format("{:.0f}", per_step), fmt::format("{:.1f}", u.planned.seconds * 1e6),
                   u.simulated_s ? fmt::format("{:.1f}", *u.simulated_s * 1e6) : "-",
                   ms_text(total_s),
                   step ? fmt::format("{:.1f}%", 100 * total_s / step->planned_s) : "-"});
  }
  return "collectives (each: every replica's copy at once on the chip links, priced by the "
         "simulator's flows; simulated: the simulator's own run of them)\n" +
         table.render();
}

std::string search_table(const parallel::Search& search) {
  Table table({"strategy", "step ms", "tokens/s", "mJ/token", ""}, first_left(5));
  std::string notes;
  size_t failed = 0;
  for (size_t i = 0; i < search.tried.size(); ++i) {
    const parallel::Candidate& c = search.tried[i];
    std::string note = search.best == i ? "<- best" : "";
    if (!c.reason.empty()) {
      note = fmt::format("[{}]", ++failed);
      notes += fmt::format("[{}] {}\n", failed, c.reason);
    }
    table.add_row({parallel::to_string(c.strategy), c.step_s ? ms_text(*c.step_s) : "-",
                   c.tokens_per_s ? fmt::format("{:.1f}", *c.tokens_per_s) : "-",
                   c.j_per_token ? fmt::format("{:.3f}", *c.j_per_token * 1e3) : "-", note});
  }
  return fmt::format("strategies tried ({}, ranked by {}; planned, the fastest design but Ideal)\n",
                     search.tried.size(), parallel::to_string(search.rank)) +
         table.render() + (notes.empty() ? "" : "infeasible:\n" + notes);
}

namespace {

nlohmann::json or_null(const std::optional<double>& value) {
  return value ? nlohmann::json(*value) : nlohmann::json(nullptr);
}

nlohmann::json steps_json(const ParallelCompilation& c) {
  nlohmann::json out = nlohmann::json::array();
  const double host_s = c.first_token ? c.first_token->seconds() : 0;
  auto ttft = [&](std::optional<double> step_s) {
    return host_s > 0 && step_s ? nlohmann::json(*step_s + host_s) : nlohmann::json(nullptr);
  };
  for (const DesignStep& d : c.designs)
    out.push_back({{"design", planner::to_string(d.design)},
                   {"ttft_s", ttft(d.planned_s)},
                   {"simulated_ttft_s", ttft(d.simulated_s)},
                   {"step_s", d.planned_s},
                   {"simulated_step_s", or_null(d.simulated_s)},
                   {"stage_s", d.stage_planned_s},
                   {"simulated_stage_s", d.stage_simulated_s},
                   {"collective_s", d.collective_planned_s},
                   {"bubble", d.bubble},
                   {"tokens", d.tokens},
                   {"tokens_per_s", d.tokens / d.planned_s},
                   {"energy_j", or_null(d.energy_j)},
                   {"collective_j", or_null(d.collective_j)}});
  return out;
}

nlohmann::json collectives_json(const ParallelCompilation& c) {
  nlohmann::json out = nlohmann::json::array();
  for (const CollectiveUse& u : c.collectives)
    out.push_back({{"stage", u.stage},
                   {"where", u.where},
                   {"kind", collective::to_string(u.op.kind)},
                   {"algorithm", collective::to_string(u.planned.algorithm)},
                   {"bytes", u.op.bytes},
                   {"chips", u.op.group},
                   {"copies", u.concurrent.size()},
                   {"per_micro_batch", u.per_micro_batch},
                   {"seconds", u.planned.seconds},
                   {"simulated_seconds", or_null(u.simulated_s)},
                   {"link_bytes", u.planned.link_bytes},
                   {"links", u.planned.links_used}});
  return out;
}

nlohmann::json search_document(const parallel::Search& search) {
  nlohmann::json tried = nlohmann::json::array();
  for (const parallel::Candidate& c : search.tried)
    tried.push_back(
        {{"strategy", parallel::to_string(c.strategy)},
         {"step_s", or_null(c.step_s)},
         {"tokens_per_s", or_null(c.tokens_per_s)},
         {"j_per_token", or_null(c.j_per_token)},
         {"reason", c.reason.empty() ? nlohmann::json(nullptr) : nlohmann::json(c.reason)}});
  return {{"format", "tessera-parallel-search-1"},
          {"rank", parallel::to_string(search.rank)},
          {"best", search.best ? nlohmann::json(*search.best) : nlohmann::json(nullptr)},
          {"tried", tried}};
}

}  // namespace

std::string search_json(const parallel::Search& search) {
  return json_text(search_document(search), 2) + "\n";
}

namespace {

// What a stage's chip keeps in SRAM across steps (every design of its compile shares it).
const planner::ResidencyRecord& stage_residency(const ParallelCompilation& c,
                                                const parallel::StageRun& s) {
  static const planner::ResidencyRecord kOff;
  const auto& designs = c.compilations[s.compilation].designs;
  return designs.empty() ? kOff : designs.front().plan.result.residency;
}

nlohmann::json stage_residency_json(const ParallelCompilation& c, const parallel::StageRun& s) {
  return residency_json(stage_residency(c, s));
}

}  // namespace

std::string stages_residency_text(const ParallelCompilation& c, const Machine& machine) {
  std::string text;
  std::set<size_t> shown;
  for (size_t k = 0; k < c.stages.size(); ++k) {
    const parallel::StageRun& s = c.stages[k];
    if (!shown.insert(s.compilation).second) continue;
    std::string lines = residency_text(stage_residency(c, s), machine, 0);
    if (!lines.empty())
      text += fmt::format("stage {} (layers {}-{}, and the stages that share its plan): {}", k,
                          s.first_layer, s.last_layer, lines);
  }
  return text.empty() ? text : "\n" + text;
}

std::string parallel_json(const ParallelCompilation& c, const Machine& machine,
                          const parallel::Search* search) {
  const parallel::Resolved& r = c.strategy;
  nlohmann::json stages = nlohmann::json::array();
  for (const parallel::StageRun& s : c.stages)
    stages.push_back({{"first_layer", s.first_layer},
                      {"last_layer", s.last_layer},
                      {"chips", s.chips},
                      {"graph", c.compilations[s.compilation].graph->name()},
                      {"ops", c.compilations[s.compilation].graph->ops().size()},
                      {"residency", stage_residency_json(c, s)}});
  nlohmann::json doc = {{"format", "tessera-parallel-4"},
                        {"chip", machine.chip},
                        {"chips", machine.chips},
                        {"strategy", parallel::to_string(r)},
                        {"tp", r.tp},
                        {"pp", r.pp},
                        {"dp", r.dp},
                        {"ep", r.ep},
                        {"micro_batches", r.micro_batches},
                        {"micro_batch_users", r.micro_batch},
                        {"stage_layers", r.stage_layers},
                        {"designs", steps_json(c)},
                        {"stages", stages},
                        {"collectives", collectives_json(c)},
                        {"first_token", first_token_json(c.first_token)}};
  if (search) doc["search"] = search_document(*search);
  return json_text(doc, 2) + "\n";
}

}  // namespace tessera

namespace tessera {
namespace {

struct TraceSlice {
  std::string name, category;
  double start_s = 0, end_s = 0;
  nlohmann::json args = nlohmann::json::object();
};

// One micro-batch's pass through a stage from `start`: its collectives where its program runs
// them, each at the end of the execute of the op it follows (simulated, or planned).
std::vector<TraceSlice> collective_slices(const driver::CompiledDesign& design, double start,
                                          bool simulated) {
  std::vector<TraceSlice> out;
  const std::vector<planner::OpSchedule>& ops = design.plan.result.ops;
  for (size_t i = 0; i < ops.size(); ++i) {
    if (ops[i].collectives.empty()) continue;
    double t = start + (simulated ? design.simulated->result.ops[i].execute_end_s -
                                        design.simulated->program.ops[i].collective_s
                                  : ops[i].execute_end_s - ops[i].collective_s);
    for (const planner::CollectiveOp& op : ops[i].collectives) {
      const double seconds = simulated ? op.simulated_s : op.planned_s;
      out.push_back({op.where,
                     "collective",
                     t,
                     t + seconds,
                     {{"kind", collective::to_string(op.collective.kind)},
                      {"algorithm", collective::to_string(op.collective.algorithm)},
                      {"bytes", op.collective.bytes},
                      {"after", op.after}}});
      t += seconds;
    }
  }
  return out;
}

}  // namespace

std::string parallel_trace_json(const ParallelCompilation& c, const Machine& machine,
                                planner::Design design) {
  using nlohmann::json;
  const DesignStep* step = step_of(c, design);
  const bool simulated = step && !step->stage_simulated_s.empty();
  const std::vector<double> stage_s =
      step ? (simulated ? step->stage_simulated_s : step->stage_planned_s) : std::vector<double>{};
  const size_t stages = c.stages.size();
  std::vector<double> send_s(stages, 0);
  for (const CollectiveUse& u : c.collectives)
    if (u.op.kind == collective::CollectiveKind::send_recv)
      send_s[u.stage] += simulated && u.simulated_s ? *u.simulated_s : u.planned.seconds;

  json events = json::array();
  auto slice = [&](uint32_t chip, int tid, const TraceSlice& s) {
    events.push_back({{"name", s.name},
                      {"cat", s.category},
                      {"ph", "X"},
                      {"pid", chip},
                      {"tid", tid},
                      {"ts", s.start_s * 1e6},
                      {"dur", (s.end_s - s.start_s) * 1e6},
                      {"args", s.args}});
  };
  for (size_t s = 0; s < stages; ++s)
    for (uint32_t chip : c.stages[s].all_chips) {
      events.push_back({{"name", "process_name"},
                        {"ph", "M"},
                        {"pid", chip},
                        {"tid", 0},
                        {"args", {{"name", fmt::format("chip {}", chip)}}}});
      events.push_back({{"name", "process_sort_index"},
                        {"ph", "M"},
                        {"pid", chip},
                        {"tid", 0},
                        {"args", {{"sort_index", chip}}}});
      events.push_back({{"name", "thread_name"},
                        {"ph", "M"},
                        {"pid", chip},
                        {"tid", 1},
                        {"args", {{"name", fmt::format("stage {}", s)}}}});
      events.push_back({{"name", "thread_name"},
                        {"ph", "M"},
                        {"pid", chip},
                        {"tid", 2},
                        {"args", {{"name", "collectives"}}}});
    }
  // Stage s of micro-batch m starts once stage s-1 has sent m and stage s has finished m-1.
  const auto mb = static_cast<size_t>(c.strategy.micro_batches);
  std::vector<std::vector<double>> end(stages, std::vector<double>(mb, 0));
  for (size_t m = 0; m < mb && step; ++m)
    for (size_t s = 0; s < stages; ++s) {
      double start = 0;
      if (s > 0) start = end[s - 1][m] + send_s[s - 1];
      if (m > 0) start = std::max(start, end[s][m - 1]);
      end[s][m] = start + stage_s[s];
      TraceSlice pass{
          fmt::format("micro-batch {}", m),
          "stage",
          start,
          end[s][m],
          {{"stage", s},
           {"layers", fmt::format("{}-{}", c.stages[s].first_layer, c.stages[s].last_layer)},
           {"micro_batch", m}}};
      const auto d = static_cast<size_t>(step - c.designs.data());
      std::vector<TraceSlice> uses =
          collective_slices(c.compilations[c.stages[s].compilation].designs[d], start, simulated);
      if (s + 1 < stages)
        uses.push_back({fmt::format("to stage {}", s + 1),
                        "send",
                        end[s][m],
                        end[s][m] + send_s[s],
                        {{"micro_batch", m}}});
      for (uint32_t chip : c.stages[s].all_chips) {
        slice(chip, 1, pass);
        for (const TraceSlice& u : uses) slice(chip, 2, u);
      }
    }
  double last = 0;
  for (const auto& ends : end)
    for (double e : ends) last = std::max(last, e);
  json trace = {{"traceEvents", std::move(events)},
                {"displayTimeUnit", "ns"},
                {"otherData",
                 {{"strategy", parallel::to_string(c.strategy)},
                  {"chip", machine.chip},
                  {"chips", machine.chips},
                  {"design", planner::to_string(step ? step->design : design)},
                  {"times", simulated ? "simulated" : "planned"},
                  {"step_s", step ? (simulated ? *step->simulated_s : step->planned_s) : 0.0},
                  {"trace_end_s", last}}}};
  return json_text(trace) + "\n";
}

}  // namespace tessera
