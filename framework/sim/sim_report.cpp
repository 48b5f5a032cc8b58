#include "framework/sim/sim_report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <numeric>

#include "framework/chip/energy_report.hpp"
#include "framework/common/json_text.hpp"
#include "framework/common/table.hpp"
#include "framework/common/units.hpp"
#include "framework/planner/split.hpp"

namespace tessera::sim {

namespace {

constexpr size_t kTimeRows = 10;

double fraction(double part, double whole) {
  return whole > 0 ? part / whole : 0;
}
std::string percent(double f) {
  return fmt::format("{:.1f}%", 100 * f);
}

std::string breakdown_line(const planner::Breakdown& b, double latency_s) {
  auto part = [&](const char* name, double s) {
    return fmt::format("{} {} ({})", name, format_seconds(s), percent(fraction(s, latency_s)));
  };
  return part("execution only", b.execution_only_s) + ", " + part("overlapped", b.overlapped_s) +
         ", " + part("preload stall", b.preload_stall_s) + ", " +
         part("interconnect congestion", b.congestion_s) +
         (b.dispatch_s > 0 ? ", " + part("dispatch", b.dispatch_s) : "");
}

// Ten rows of utilisation per link class over the step.
std::string time_table(const SimResult& r) {
  const auto& buckets = r.class_bytes_per_bucket;
  Table table({"time", "hbm", "on-chip", "memory", "chip-to-chip", "sram-port"},
              {Table::Align::left, Table::Align::right, Table::Align::right, Table::Align::right,
               Table::Align::right, Table::Align::right});
  if (buckets.empty() || r.latency_s <= 0) return table.render();
  size_t per_row = (buckets.size() + kTimeRows - 1) / kTimeRows;
  for (size_t first = 0; first < buckets.size(); first += per_row) {
    size_t last = std::min(buckets.size(), first + per_row);
    double t0 = first * r.bucket_s, t1 = std::min(r.latency_s, last * r.bucket_s);
    std::vector<std::string> row{format_seconds(t0) + " - " + format_seconds(t1)};
    for (LinkClass c : {LinkClass::hbm, LinkClass::on_chip, LinkClass::memory,
                        LinkClass::chip_to_chip, LinkClass::sram_port}) {
      double bytes = 0;
      for (size_t b = first; b < last; ++b) bytes += buckets[b][static_cast<size_t>(c)];
      double capacity = r.class_capacity[static_cast<size_t>(c)] * (t1 - t0);
      row.push_back(capacity > 0 ? percent(fraction(bytes, capacity)) : "-");
    }
    table.add_row(std::move(row));
  }
  return table.render();
}

std::string op_table(const SimResult& r, const codegen::Program& p, size_t rows) {
  std::vector<size_t> order(p.ops.size());
  std::iota(order.begin(), order.end(), 0);
  auto sim_s = [&](size_t i) { return r.ops[i].execute_end_s - r.ops[i].execute_start_s; };
  auto est_s = [&](size_t i) { return p.ops[i].estimated_end_s - p.ops[i].estimated_start_s; };
  if (rows > 0) {
    rows = std::min(rows, order.size());
    std::partial_sort(order.begin(), order.begin() + rows, order.end(), [&](size_t a, size_t b) {
      return std::fabs(sim_s(a) - est_s(a)) > std::fabs(sim_s(b) - est_s(b));
    });
    order.resize(rows);
  }
  Table table({"#", "op", "plan", "estimated", "simulated", "diff", "sim start", "congestion"},
              {Table::Align::right, Table::Align::left, Table::Align::left, Table::Align::right,
               Table::Align::right, Table::Align::right, Table::Align::right, Table::Align::right});
  for (size_t i : order) {
    double congestion = std::max(0.0, sim_s(i) - r.ops[i].isolated_s);
    table.add_row({std::to_string(i), p.ops[i].name, p.ops[i].exec_label, format_seconds(est_s(i)),
                   format_seconds(sim_s(i)),
                   est_s(i) > 0 ? fmt::format("{:+.1f}%", 100 * (sim_s(i) / est_s(i) - 1)) : "-",
                   format_seconds(r.ops[i].execute_start_s), format_seconds(congestion)});
  }
  return table.render();
}

// Ops split into slices (planner/split.hpp), each with its slices together: how long the whole op
// took against its estimate. Empty when no op was split.
std::string split_table(const SimResult& r, const codegen::Program& p) {
  struct Whole {
    size_t slices = 0;
    double estimated_s = 0, simulated_s = 0;
  };
  std::vector<std::string> order;
  std::map<std::string, Whole> wholes;
  for (size_t i = 0; i < p.ops.size(); ++i) {
    auto op = planner::sliced_op(p.ops[i].name);
    if (!op) continue;
    auto [it, added] = wholes.try_emplace(*op);
    if (added) order.push_back(*op);
    it->second.slices += 1;
    it->second.estimated_s += p.ops[i].estimated_end_s - p.ops[i].estimated_start_s;
    it->second.simulated_s += r.ops[i].execute_end_s - r.ops[i].execute_start_s;
  }
  if (order.empty()) return "";
  Table table({"split op", "slices", "estimated", "simulated", "diff"},
              {Table::Align::left, Table::Align::right, Table::Align::right, Table::Align::right,
               Table::Align::right});
  for (const std::string& op : order) {
    const Whole& w = wholes[op];
    table.add_row(
        {op, std::to_string(w.slices), format_seconds(w.estimated_s), format_seconds(w.simulated_s),
         w.estimated_s > 0 ? fmt::format("{:+.1f}%", 100 * (w.simulated_s / w.estimated_s - 1))
                           : "-"});
  }
  return "\nsplit ops, their slices' executes summed\n" + table.render();
}

// A span's args; a slice of a split op also names its op, so a trace viewer can group them.
nlohmann::json slice_args(int op, const std::string& what, const std::string& name) {
  nlohmann::json args = {{"op", op}, {"what", what}};
  if (auto whole = planner::sliced_op(name)) args["slice_of"] = *whole;
  return args;
}

}  // namespace

SimSummary summarize(const SimResult& r, const codegen::Program& program, const Machine& machine) {
  SimSummary s;
  s.latency_s = r.latency_s;
  s.estimated_latency_s = program.estimated_latency_s;
  s.breakdown = r.breakdown;
  double hbm_bytes = r.hbm_read_bytes + r.bytes_of(FlowKind::writeback);
  double hbm_peak =
      machine.hbm_peak_bytes_per_s > 0 ? machine.hbm_peak_bytes_per_s : machine.hbm_bytes_per_s;
  s.hbm_utilisation = fraction(hbm_bytes, r.latency_s * hbm_peak);
  double moved = r.bytes_of(FlowKind::preload) + r.bytes_of(FlowKind::writeback) +
                 r.bytes_of(FlowKind::distribute) + r.bytes_of(FlowKind::shift) +
                 r.bytes_of(FlowKind::reduce);
  double capacity = machine.interconnect_bytes_per_s > 0
                        ? machine.interconnect_bytes_per_s
                        : r.class_capacity[static_cast<size_t>(LinkClass::on_chip)];
  s.interconnect_utilisation = fraction(moved, r.latency_s * capacity);
  size_t port = static_cast<size_t>(LinkClass::sram_port);
  s.sram_utilisation = fraction(r.link_bytes_by_class[port], r.latency_s * r.class_capacity[port]);
  s.achieved_flops_per_s = fraction(r.flops, r.latency_s);
  return s;
}

std::string render_sim_report(const SimResult& r, const codegen::Program& program,
                              const Machine& machine, size_t op_rows,
                              const std::optional<EnergyBreakdown>& energy,
                              const std::optional<EnergyBreakdown>& planned_energy) {
  SimSummary s = summarize(r, program, machine);
  std::string diff =
      s.estimated_latency_s > 0
          ? fmt::format(", {:+.1f}%", 100 * (s.latency_s / s.estimated_latency_s - 1))
          : "";
  std::string out;
  out += "program      " + program.name + "\n";
  out += fmt::format(
      "simulated    {} cores, {} HBM controllers, {} links, {} flows, {} events in {}\n", r.cores,
      r.controllers, r.links, r.flows, r.events, format_seconds(r.wall_s));
  // The network model's measured error (docs/simulator.md, "Checked against BookSim2"): every
  // result depends on it, so every report says so.
  out +=
      "network      transfer sets at the link-load bound; against BookSim2: rings and "
      "permutations within 1 %, memory reads and hot spots within 8 %, all-to-all 14-58 % fast, "
      "single packets within 3 %\n";
  out += "latency      " + format_seconds(s.latency_s) + " per token (planner estimate " +
         format_seconds(s.estimated_latency_s) + diff + ")\n";
  out += "breakdown    " + breakdown_line(s.breakdown, s.latency_s) + "\n";
  out += "achieved     " + format_flops_per_s(s.achieved_flops_per_s) + "\n";
  std::string estimate;
  if (energy && planned_energy && planned_energy->total_j() > 0)
    estimate =
        fmt::format(" (planner estimate {:.4g} mJ, {:+.1f}%)", planned_energy->total_j() * 1e3,
                    100 * (energy->total_j() / planned_energy->total_j() - 1));
  out += "energy       " +
         (energy ? energy_line(*energy, s.latency_s) + estimate
                 : std::string("not reported: no energy rates for this run (docs/energy.md)")) +
         "\n";
  out += "utilisation  HBM " + percent(s.hbm_utilisation) + ", interconnect " +
         percent(s.interconnect_utilisation) + ", SRAM ports " + percent(s.sram_utilisation) +
         "\n\nutilisation over time (per link class)\n" + time_table(r);
  out += op_rows > 0 ? fmt::format("\nthe {} ops furthest from the planner's estimate\n", op_rows)
                     : std::string("\nops, simulated next to the planner's estimate\n");
  return out + op_table(r, program, op_rows) + split_table(r, program);
}

namespace {

// A time, or null for the -1 of "none".
nlohmann::json time_or_null(double s) {
  return s < 0 ? nlohmann::json(nullptr) : nlohmann::json(s);
}

}  // namespace

std::string sim_report_json(const SimResult& r, const codegen::Program& program,
                            const Machine& machine, const std::optional<EnergyBreakdown>& energy,
                            const std::optional<EnergyBreakdown>& planned_energy) {
  using nlohmann::json;
  SimSummary s = summarize(r, program, machine);
  json ops = json::array();
  for (size_t i = 0; i < program.ops.size(); ++i) {
    const auto& op = r.ops[i];
    const double simulated_s = op.execute_end_s - op.execute_start_s;
    ops.push_back(
        {{"op", i},
         {"name", program.ops[i].name},
         {"plan", program.ops[i].exec_label},
         {"estimated_s", program.ops[i].estimated_end_s - program.ops[i].estimated_start_s},
         {"simulated_s", simulated_s},
         {"start_s", op.execute_start_s},
         {"congestion_s", std::max(0.0, simulated_s - op.isolated_s)},
         {"preload_start_s", time_or_null(op.preload_start_s)},
         {"preload_end_s", time_or_null(op.preload_end_s)}});
  }
  json out = {{"format", "tessera-simulate-5"},
              {"program", program.name},
              {"cores", r.cores},
              {"controllers", r.controllers},
              {"links", r.links},
              {"flows", r.flows},
              {"events", r.events},
              {"wall_s", r.wall_s},
              {"latency_s", s.latency_s},
              {"estimated_latency_s", s.estimated_latency_s},
              {"hbm_utilisation", s.hbm_utilisation},
              {"interconnect_utilisation", s.interconnect_utilisation},
              {"sram_utilisation", s.sram_utilisation},
              {"flops_per_s", s.achieved_flops_per_s},
              {"execution_only_s", s.breakdown.execution_only_s},
              {"overlapped_s", s.breakdown.overlapped_s},
              {"preload_stall_s", s.breakdown.preload_stall_s},
              {"congestion_s", s.breakdown.congestion_s},
              {"dispatch_s", s.breakdown.dispatch_s},
              {"dispatch",
               {{"mode", to_string(program.dispatch.mode)},
                {"command_s", program.dispatch.command_s},
                {"launch_s", program.dispatch.launch_s}}},
              {"energy", energy_json(energy, s.latency_s)},
              {"estimated_energy", energy_json(planned_energy, s.estimated_latency_s)},
              {"ops", std::move(ops)}};
  return json_text(out, 1) + "\n";
}

std::string trace_json(const SimResult& r, const codegen::Program& program,
                       const std::vector<double>& power_w) {
  using nlohmann::json;
  json events = json::array();
  const char* processes[] = {"", "program", "link classes"};
  for (int pid = 1; pid <= 2; ++pid)
    events.push_back({{"name", "process_name"},
                      {"ph", "M"},
                      {"pid", pid},
                      {"tid", 0},
                      {"args", {{"name", processes[pid]}}}});
  for (size_t t = 0; t < r.tracks.size(); ++t)
    events.push_back({{"name", "thread_name"},
                      {"ph", "M"},
                      {"pid", 1},
                      {"tid", t},
                      {"args", {{"name", r.tracks[t].name}}}});
  for (const auto& s : r.spans) {
    const auto& op = program.ops[s.op];
    events.push_back({{"name", op.name},
                      {"cat", s.what},
                      {"ph", "X"},
                      {"pid", 1},
                      {"tid", s.track},
                      {"ts", s.start_s * 1e6},
                      {"dur", (s.end_s - s.start_s) * 1e6},
                      {"args", slice_args(s.op, s.what, op.name)}});
  }
  for (size_t b = 0; b < r.class_bytes_per_bucket.size(); ++b) {
    for (size_t c = 0; c < kLinkClasses; ++c) {
      if (r.class_capacity[c] <= 0) continue;
      double util = r.class_bytes_per_bucket[b][c] / (r.class_capacity[c] * r.bucket_s);
      events.push_back(
          {{"name", std::string(to_string(static_cast<LinkClass>(c))) + " utilisation"},
           {"ph", "C"},
           {"pid", 2},
           {"tid", 0},
           {"ts", b * r.bucket_s * 1e6},
           {"args", {{"percent", 100 * util}}}});
    }
  }
  for (size_t b = 0; b < power_w.size(); ++b)
    events.push_back({{"name", "power (W)"},
                      {"ph", "C"},
                      {"pid", 2},
                      {"tid", 0},
                      {"ts", b * r.bucket_s * 1e6},
                      {"args", {{"watts", power_w[b]}}}});
  json trace = {{"traceEvents", std::move(events)},
                {"displayTimeUnit", "ns"},
                {"otherData", {{"program", program.name}, {"latency_s", r.latency_s}}}};
  return json_text(trace) + "\n";
}

}  // namespace tessera::sim
