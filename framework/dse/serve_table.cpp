#include "framework/dse/serve_table.hpp"

#include <algorithm>

#include "framework/dse/serve_goal.hpp"

namespace tessera::dse {

namespace {

const std::vector<std::string> kServeColumns = {
    "model",          "target",       "chip",         "approximation", "strategy",
    "chips",          "requests",     "offered_rps",  "sustained_rps", "sustainable",
    "requests_per_s", "tokens_per_s", "ttft_p50_ms",  "ttft_p90_ms",   "ttft_p99_ms",
    "tpot_p50_ms",    "tpot_p90_ms",  "tpot_p99_ms",  "e2e_p50_ms",    "e2e_p90_ms",
    "e2e_p99_ms",     "goodput_rps",  "slo_attained", "mj_per_token",  "grid_error",
    "trusted"};
// With a goal: whether the point meets it, what it missed, the figure minimised, and which point
// the goal chose (serve_goal.hpp).
const std::vector<std::string> kGoalColumns = {"meets", "why", "minimised", "choice"};

// An axis whose path is a fixed column (model, chip) is shown once, as that column.
std::vector<size_t> serve_axis_columns(const SweepSpec& spec) {
  std::vector<size_t> out;
  for (size_t a = 0; a < spec.axes.size(); ++a)
    if (std::find(kServeColumns.begin(), kServeColumns.end(), spec.axes[a].path) ==
        kServeColumns.end())
      out.push_back(a);
  return out;
}

Cell yes_no(bool b) {
  return b ? "yes" : "no";
}

void add_serve_metrics(std::vector<Cell>& row, const ServeMetrics& m) {
  row.insert(row.end(), {m.chips, m.requests, m.offered_rps, m.sustained_rps, yes_no(m.sustainable),
                         m.requests_per_s, m.tokens_per_s});
  for (double s : {m.ttft_p50_s, m.ttft_p90_s, m.ttft_p99_s, m.tpot_p50_s, m.tpot_p90_s,
                   m.tpot_p99_s, m.e2e_p50_s, m.e2e_p90_s, m.e2e_p99_s})
    row.push_back(s * 1e3);
  row.push_back(m.goodput_rps >= 0 ? Cell(m.goodput_rps) : Cell());
  row.push_back(m.slo_attained >= 0 ? Cell(m.slo_attained) : Cell());
  row.push_back(m.joules_per_token > 0 ? Cell(m.joules_per_token * 1e3) : Cell());
  row.insert(row.end(), {m.grid_error, yes_no(m.trusted)});
}

void add_goal(std::vector<Cell>& row, const SweepSpec& spec, const PointResult& r,
              const Choice& choice) {
  const Verdict v = judge(spec, *spec.goal, r);
  if (!v.judged) return;
  row.insert(row.end(), {yes_no(v.meets), v.why});
  row.push_back(std::isfinite(v.cost) ? Cell(shown_cost(*spec.goal, v.cost)) : Cell());
  row.push_back(choice.cheapest == r.index  ? "cheapest"
                : choice.closest == r.index ? "closest"
                                            : "");
}

}  // namespace

std::vector<std::string> serve_columns(const SweepSpec& spec) {
  std::vector<std::string> out = {"point", "status", "reason"};
  for (size_t a : serve_axis_columns(spec)) out.push_back(spec.axes[a].path);
  out.insert(out.end(), kServeColumns.begin(), kServeColumns.end());
  if (spec.goal) out.insert(out.end(), kGoalColumns.begin(), kGoalColumns.end());
  return out;
}

std::vector<std::vector<Cell>> serve_rows(const SweepSpec& spec, const PointResults& results) {
  std::vector<std::vector<Cell>> out;
  const std::vector<std::string> names = serve_columns(spec);
  const Choice choice = spec.goal ? choose(spec, *spec.goal, results) : Choice{};
  for (const auto& [index, r] : results) {
    std::vector<Cell> row = {static_cast<int64_t>(index), r.ok ? "ok" : "failed", r.reason};
    for (size_t a : serve_axis_columns(spec)) row.push_back(r.values.at(a));
    row.insert(row.end(), {r.model, r.target, r.chip, approximation_cell(r), r.strategy});
    if (r.serve) add_serve_metrics(row, *r.serve);
    if (spec.goal && r.serve) {
      row.resize(names.size() - kGoalColumns.size());
      add_goal(row, spec, r, choice);
    }
    row.resize(names.size());
    out.push_back(std::move(row));
  }
  return out;
}

nlohmann::json goal_json(const SweepSpec& spec, const PointResults& results) {
  const ServeGoal& goal = *spec.goal;
  nlohmann::json limits = nlohmann::json::object();
  for (const SloLimit& l : goal.latencies) limits[l.metric + "_ms"] = l.limit_ms;
  const Choice choice = choose(spec, goal, results);
  auto index = [](const std::optional<size_t>& i) {
    return i ? nlohmann::json(*i) : nlohmann::json(nullptr);
  };
  return {{"latencies", limits},
          {"slo_attained", goal.slo_attained ? nlohmann::json(*goal.slo_attained) : nullptr},
          {"minimise", goal.minimise},
          {"price_per_chip_hour", goal.price_per_chip_hour},
          {"cheapest", index(choice.cheapest)},
          {"closest", index(choice.closest)}};
}

}  // namespace tessera::dse
