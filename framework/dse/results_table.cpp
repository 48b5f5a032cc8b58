#include "framework/dse/results_table.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

#include "framework/common/json_text.hpp"
#include "framework/dse/serve_table.hpp"
#include "framework/dse/table_cells.hpp"

namespace tessera::dse {

namespace {

// Every column in every sweep, `approximation` included (empty when no chip of the sweep states
// one): scripts read the same columns whatever chips a sweep names.
const std::vector<std::string> kFixedColumns = {"model",
                                                "target",
                                                "chip",
                                                "approximation",
                                                "batch",
                                                "seq",
                                                "mode",
                                                "dtype",
                                                "strategy",
                                                "residency",
                                                "design",
                                                "cores",
                                                "hbm_peak_bytes_per_s",
                                                "hbm_sustained_bytes_per_s",
                                                "interconnect_bytes_per_s",
                                                "peak_flops_per_s",
                                                "planned_ms",
                                                "speedup_vs_basic",
                                                "of_ideal",
                                                "hbm_util",
                                                "noc_util",
                                                "tflops",
                                                "exec_only_ms",
                                                "overlap_ms",
                                                "stall_ms",
                                                "congest_ms",
                                                "orders",
                                                "planned_mj",
                                                "planned_w",
                                                "sim_ms",
                                                "sim_hbm_util",
                                                "sim_noc_util",
                                                "sim_sram_util",
                                                "sim_tflops",
                                                "sim_exec_only_ms",
                                                "sim_overlap_ms",
                                                "sim_stall_ms",
                                                "sim_congest_ms",
                                                "sim_mj",
                                                "sim_w",
                                                "tokens",
                                                "tokens_per_s",
                                                "sim_tokens_per_s",
                                                "collective_ms",
                                                "bubble",
                                                "resident_bytes_per_core",
                                                "sim_same_as",
                                                "ttft_ms",
                                                "sim_ttft_ms"};

// An axis whose path is a fixed column (batch, model, cores, ...) is shown once, as that column.
std::vector<size_t> axis_columns(const SweepSpec& spec) {
  std::vector<size_t> out;
  for (size_t a = 0; a < spec.axes.size(); ++a)
    if (std::find(kFixedColumns.begin(), kFixedColumns.end(), spec.axes[a].path) ==
        kFixedColumns.end())
      out.push_back(a);
  return out;
}

std::vector<std::string> columns(const SweepSpec& spec) {
  std::vector<std::string> out = {"point", "status", "reason"};
  for (size_t a : axis_columns(spec)) out.push_back(spec.axes[a].path);
  out.insert(out.end(), kFixedColumns.begin(), kFixedColumns.end());
  return out;
}

// mJ per step and W; empty cells when the chip states no energy rates.
void add_energy(std::vector<Cell>& row, const Metrics& m) {
  row.push_back(m.energy_j > 0 ? Cell(m.energy_j * 1e3) : Cell());
  row.push_back(m.energy_j > 0 ? Cell(m.power_w) : Cell());
}

void add_metrics(std::vector<Cell>& row, const Metrics& m, bool with_sram) {
  row.push_back(m.latency_s * 1e3);
  if (!with_sram) return;  // the planned block puts speedup and % of ideal here
  row.push_back(m.hbm_utilisation);
  row.push_back(m.interconnect_utilisation);
  row.push_back(m.sram_utilisation);
  row.push_back(m.flops_per_s / 1e12);
  row.push_back(m.execution_only_s * 1e3);
  row.push_back(m.overlapped_s * 1e3);
  row.push_back(m.preload_stall_s * 1e3);
  row.push_back(m.congestion_s * 1e3);
  add_energy(row, m);
}

double latency_of(const PointResult& r, const std::string& design) {
  for (const DesignRow& d : r.rows)
    if (d.design == design) return d.planned.latency_s;
  return 0;
}

// The cells of one design. `strategy` is set for a parallel strategy's row: its step, energy and
// tokens are the whole machine's, but the per-chip figures (utilisations, FLOP/s, the breakdown,
// preload orders) would describe one chip of one stage, so those cells stay empty.
std::vector<Cell> design_cells(const PointResult& r, const DesignRow& d,
                               const StrategyRow* strategy) {
  std::vector<Cell> row;
  add_metrics(row, d.planned, false);
  double basic = latency_of(r, "basic"), ideal = latency_of(r, "ideal");
  double own = d.planned.latency_s;
  row.push_back(basic > 0 && own > 0 ? Cell(basic / own) : Cell());
  row.push_back(ideal > 0 && own > 0 ? Cell(ideal / own) : Cell());
  const Metrics& p = d.planned;
  if (strategy) {
    row.resize(row.size() + 8);
  } else {
    for (double v : {p.hbm_utilisation, p.interconnect_utilisation, p.flops_per_s / 1e12,
                     p.execution_only_s * 1e3, p.overlapped_s * 1e3, p.preload_stall_s * 1e3,
                     p.congestion_s * 1e3})
      row.push_back(v);
    row.push_back(static_cast<int64_t>(d.orders_tried));
  }
  add_energy(row, p);
  if (d.simulated) add_metrics(row, d.simulated_metrics, !strategy);
  row.resize(row.size() + (d.simulated ? (strategy ? 10 : 0) : 11));
  // Tokens per step and per second (0 tokens: a model whose step's tokens are unknown).
  const double sim_s = d.simulated ? d.simulated_metrics.latency_s : 0;
  row.push_back(r.tokens > 0 ? Cell(r.tokens) : Cell());
  row.push_back(r.tokens > 0 && own > 0 ? Cell(r.tokens / own) : Cell());
  row.push_back(r.tokens > 0 && sim_s > 0 ? Cell(r.tokens / sim_s) : Cell());
  row.push_back(strategy ? Cell(strategy->collective_s * 1e3) : Cell());
  row.push_back(strategy ? Cell(strategy->bubble) : Cell());
  // Empty for a strategy: each stage keeps its own homes on its own chips.
  row.push_back(strategy ? Cell() : Cell(r.resident_bytes_per_core));
  row.push_back(d.sim_same_as.empty() ? Cell() : Cell(d.sim_same_as));
  // A prefill's time to first token: the step and the host's read of its logits.
  const double host_s = r.first_token_host_s;
  row.push_back(host_s > 0 && own > 0 ? Cell(own * 1e3 + host_s * 1e3) : Cell());
  row.push_back(host_s > 0 && sim_s > 0 ? Cell(sim_s * 1e3 + host_s * 1e3) : Cell());
  return row;
}

std::vector<std::vector<Cell>> rows(const SweepSpec& spec, const PointResults& results) {
  std::vector<std::vector<Cell>> out;
  std::vector<size_t> shown = axis_columns(spec);
  const size_t width = columns(spec).size();
  for (const auto& [index, r] : results) {
    auto head = [&](const std::string& design) {
      std::vector<Cell> row = {static_cast<int64_t>(index), r.ok ? "ok" : "failed", r.reason};
      for (size_t a : shown) row.push_back(r.values.at(a));
      row.insert(row.end(), {r.model, r.target, r.chip, approximation_cell(r)});
      row.push_back(r.batch > 0 ? Cell(r.batch) : Cell());
      row.push_back(r.seq > 0 ? Cell(r.seq) : Cell());
      row.insert(row.end(), {r.mode, r.dtype, r.strategy, r.residency, design});
      if (r.cores == 0) {  // failed before the chip was built: nothing to describe
        row.resize(row.size() + 5);
        return row;
      }
      row.push_back(static_cast<int64_t>(r.cores));
      for (double v : {r.hbm_peak_bytes_per_s, r.hbm_sustained_bytes_per_s,
                       r.interconnect_bytes_per_s, r.peak_flops_per_s})
        row.push_back(v);
      return row;
    };
    if (!r.ok) {
      for (planner::Design design : spec.base.designs) {
        auto row = head(to_string(design));
        row.resize(width);
        out.push_back(std::move(row));
      }
      continue;
    }
    for (size_t i = 0; i < r.rows.size(); ++i) {
      const DesignRow& d = r.rows[i];
      auto row = head(d.design);
      auto cells = design_cells(r, d, i < r.strategy_rows.size() ? &r.strategy_rows[i] : nullptr);
      row.insert(row.end(), cells.begin(), cells.end());
      out.push_back(std::move(row));
    }
  }
  return out;
}

// The table of a sweep of either kind.
std::vector<std::string> table_columns(const SweepSpec& spec) {
  return spec.kind == SweepKind::serve ? serve_columns(spec) : columns(spec);
}
std::vector<std::vector<Cell>> table_rows(const SweepSpec& spec, const PointResults& results) {
  return spec.kind == SweepKind::serve ? serve_rows(spec, results) : rows(spec, results);
}

}  // namespace

std::string results_csv(const SweepSpec& spec, const PointResults& results) {
  std::string out;
  for (const std::string& c : table_columns(spec)) out += (out.empty() ? "" : ",") + csv_field(c);
  out += "\n";
  for (const auto& row : table_rows(spec, results)) {
    std::string line;
    for (size_t i = 0; i < row.size(); ++i) line += (i ? "," : "") + csv_field(row[i]);
    out += line + "\n";
  }
  return out;
}

std::string results_json(const SweepSpec& spec, const PointResults& results) {
  nlohmann::json axes = nlohmann::json::array();
  for (const Axis& a : spec.axes)
    axes.push_back({{"path", a.path}, {"values", a.values}, {"zip", a.zip}});
  std::vector<std::string> names = table_columns(spec);
  nlohmann::json json_rows = nlohmann::json::array();
  for (const auto& row : table_rows(spec, results)) {
    nlohmann::json object = nlohmann::json::object();
    for (size_t i = 0; i < row.size(); ++i) object[names[i]] = json_value(row[i]);
    json_rows.push_back(std::move(object));
  }
  nlohmann::json doc = {
      {"tessera_version", TESSERA_VERSION},
      {"sweep", {{"name", spec.name}, {"description", spec.description}, {"plots", spec.plots}}},
      {"axes", axes},
      {"columns", names},
      {"rows", json_rows}};
  // Compile sweeps' documents are as before serve sweeps existed.
  if (spec.kind == SweepKind::serve) {
    doc["kind"] = "serve";
    if (spec.goal) doc["goal"] = goal_json(spec, results);
  }
  return json_text(doc, 1) + "\n";
}

}  // namespace tessera::dse
