#include "framework/report/design_report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <utility>

#include "framework/chip/energy_report.hpp"
#include "framework/common/json_text.hpp"
#include "framework/common/table.hpp"
#include "framework/common/units.hpp"
#include "framework/dse/evaluate_point.hpp"
#include "framework/dse/point_json.hpp"
#include "framework/report/residency_report.hpp"

namespace tessera {

namespace {

using planner::Design;

std::string ms(double seconds) {
  return fmt::format("{:.3f}", seconds * 1e3);
}
std::string percent(double share) {
  return fmt::format("{:.1f}%", share * 100);
}

const planner::DesignResult* find(const driver::Compilation& c, Design design) {
  for (const auto& d : c.designs)
    if (d.plan.result.design == design) return &d.plan.result;
  return nullptr;
}

// The energy columns: "-" when the chip states no energy rates.
std::string millijoules(const std::optional<EnergyBreakdown>& e) {
  return e ? fmt::format("{:.3f}", e->total_j() * 1e3) : "-";
}
std::string watts(const std::optional<EnergyBreakdown>& e, double latency_s) {
  return e ? fmt::format("{:.1f}", e->watts(latency_s)) : "-";
}

// Ideal plans preloads on their own network at HBM speed with no SRAM limit (docs/planner.md,
// "Designs"); the chip has neither, so simulating its plan there times a schedule the chip
// cannot follow and reads as Ideal being slower than the designs it bounds.
constexpr const char* kIdealNotSimulated =
    "ideal is a bound (preloads on their own network, no SRAM limit) that no chip runs: not "
    "simulated";

std::vector<Table::Align> numbers_after_name(size_t columns) {
  std::vector<Table::Align> align(columns, Table::Align::right);
  align.front() = Table::Align::left;
  return align;
}

}  // namespace

// The breakdown's column headers: Elk's four, then "dispatch ms" when a design paid fixed costs
// per op (a compile without --dispatch keeps its tables as they were).
std::vector<std::string> breakdown_headers(bool dispatch) {
  std::vector<std::string> h = {"exec only ms", "overlap ms", "stall ms", "congest ms"};
  if (dispatch) h.push_back("dispatch ms");
  return h;
}
std::vector<std::string> breakdown_cells(const planner::Breakdown& b, bool dispatch) {
  std::vector<std::string> cells = {ms(b.execution_only_s), ms(b.overlapped_s),
                                    ms(b.preload_stall_s), ms(b.congestion_s)};
  if (dispatch) cells.push_back(ms(b.dispatch_s));
  return cells;
}
bool any_dispatch(const driver::Compilation& c) {
  return std::any_of(c.designs.begin(), c.designs.end(), [](const driver::CompiledDesign& d) {
    return d.plan.result.dispatch.mode != DispatchMode::none;
  });
}

// `head`, then `middle`, then `tail`: one row or header of a table.
std::vector<std::string> joined(std::vector<std::string> head,
                                const std::vector<std::string>& middle,
                                const std::vector<std::string>& tail) {
  head.insert(head.end(), middle.begin(), middle.end());
  head.insert(head.end(), tail.begin(), tail.end());
  return head;
}

// A footnote per design whose streamed ops read off-chip memory at its stack's own rate.
std::string stream_rate_notes(const driver::Compilation& c) {
  std::string notes;
  for (const auto& d : c.designs)
    if (const planner::DesignResult& r = d.plan.result; r.stream_bytes_per_s > 0)
      notes += fmt::format(
          "- {}: its ops read off-chip memory at {:.1f} GB/s, the stack's prefill rate (the chip "
          "file's vendor_prefill_bytes_per_s over the machine's chips), not the memory's {:.1f} "
          "GB/s\n",
          to_string(r.design), r.stream_bytes_per_s / 1e9, d.plan.machine.hbm_bytes_per_s / 1e9);
  return notes;
}

namespace {

// The "TTFT ms" column (a prefill on a chip that states the host's read rate): the step and the
// host's read of the first token's logits.
bool ttft_column(const driver::Compilation& c) {
  return c.first_token && c.first_token->bytes_per_s > 0;
}
std::vector<std::string> ttft_header(const driver::Compilation& c) {
  if (!ttft_column(c)) return {};
  return {"TTFT ms"};
}
std::vector<std::string> ttft_cells(const driver::Compilation& c, double step_s) {
  if (!ttft_column(c)) return {};
  return {ms(step_s + c.first_token->seconds())};
}

}  // namespace

std::string first_token_note(const std::optional<driver::FirstTokenRead>& first_token) {
  if (!first_token) return "";
  const driver::FirstTokenRead& read = *first_token;
  if (read.bytes_per_s <= 0)
    return fmt::format(
        "- time to first token: the step alone; the host's read of the logits ({}) is not "
        "charged: the chip file has no host section\n",
        format_bytes(read.bytes));
  return fmt::format(
      "- TTFT = the step + {} ms on the host: the logits read back ({} row{} per user, {}) at {} "
      "(the chip file's host section)\n",
      ms(read.seconds()), read.rows, read.rows == 1 ? "" : "s", format_bytes(read.bytes),
      format_bytes_per_s(read.bytes_per_s));
}

std::string planned_table(const driver::Compilation& c) {
  const planner::DesignResult* basic = find(c, Design::basic);
  const planner::DesignResult* ideal = find(c, Design::ideal);
  const bool dispatch = any_dispatch(c);
  std::vector<std::string> headers =
      joined(joined({"design", "ms/token"}, ttft_header(c),
                    {"vs basic", "of ideal", "HBM util", "NoC util", "TFLOP/s"}),
             breakdown_headers(dispatch), {"orders", "search s", "mJ/token", "W"});
  Table table(headers, numbers_after_name(headers.size()));
  for (const auto& d : c.designs) {
    const planner::DesignResult& r = d.plan.result;
    table.add_row(
        joined(joined({to_string(r.design), ms(r.latency_s)}, ttft_cells(c, r.latency_s),
                      {basic ? fmt::format("{:.2f}x", basic->latency_s / r.latency_s) : "-",
                       ideal ? percent(ideal->latency_s / r.latency_s) : "-",
                       percent(r.hbm_utilisation), percent(r.interconnect_utilisation),
                       fmt::format("{:.1f}", r.achieved_flops_per_s / 1e12)}),
               breakdown_cells(r.breakdown, dispatch),
               {fmt::format("{}", r.orders_tried), fmt::format("{:.2f}", r.search_s),
                millijoules(r.energy), watts(r.energy, r.latency_s)}));
  }
  return table.render() + stream_rate_notes(c) + first_token_note(c.first_token);
}

// One line for the attentions computed in tiles (the first stands for the others).
std::string tiles_line(const driver::Compilation& c) {
  if (c.tiles.empty()) return "";
  const planner::OpSplit& t = c.tiles.front();
  return fmt::format(
      "attention computed in tiles (its scores exceed the SRAM): {} attention{}, e.g. '{}' "
      "through '{}' in {} blocks of {}\n",
      c.tiles.size(), c.tiles.size() == 1 ? "" : "s", t.op, t.through, t.slices, t.rank);
}

std::string splits_table(const driver::Compilation& c) {
  if (c.splits.empty()) return tiles_line(c);
  Table table({"split op", "ops", "into", "slices est. ms", "unsplit needs", "unsplit ms"},
              numbers_after_name(6));
  for (const auto& d : c.splits)
    table.add_row({d.split.op, std::to_string(d.ops),
                   fmt::format("{} slices of {}", d.split.slices, d.split.rank), ms(d.estimated_s),
                   format_bytes(d.unsplit_bytes_per_core) + "/core", ms(d.unsplit_s)});
  return tiles_line(c) +
         "ops larger than the chip, split (estimates: preloads pipelined with the slices; "
         "unsplit: its preload, then its fastest plan, were SRAM enough)\n" +
         table.render();
}

std::string simulated_table(const driver::Compilation& c, sim::MemoryDetail memory) {
  const bool dispatch = any_dispatch(c);
  std::vector<std::string> headers =
      joined(joined({"design", "planned ms", "simulated ms"}, ttft_header(c),
                    {"diff", "HBM util", "NoC util", "SRAM util", "TFLOP/s"}),
             breakdown_headers(dispatch), {"mJ/token", "W"});
  Table table(headers, numbers_after_name(headers.size()));
  bool energy = false, ideal = false;
  for (const auto& d : c.designs) {
    if (d.plan.result.design == Design::ideal && c.simulated) {
      std::vector<std::string> cells(headers.size(), "-");
      cells[0] = "ideal";
      cells[1] = ms(d.plan.result.latency_s);
      table.add_row(std::move(cells));
      ideal = true;
      continue;
    }
    if (!d.simulated) continue;
    const sim::SimSummary& s = d.simulated->summary;
    const auto& e = d.simulated->energy;
    energy = energy || e.has_value();
    std::string diff =
        s.estimated_latency_s > 0
            ? fmt::format("{:+.1f}%", 100 * (s.latency_s / s.estimated_latency_s - 1))
            : "-";
    table.add_row(joined(
        joined({to_string(d.plan.result.design), ms(s.estimated_latency_s), ms(s.latency_s)},
               ttft_cells(c, s.latency_s),
               {diff, percent(s.hbm_utilisation), percent(s.interconnect_utilisation),
                percent(s.sram_utilisation), fmt::format("{:.1f}", s.achieved_flops_per_s / 1e12)}),
        breakdown_cells(s.breakdown, dispatch), {millijoules(e), watts(e, s.latency_s)}));
  }
  return "simulated (event-driven, " +
         std::string(memory == sim::MemoryDetail::full ? "full" : "fast") + " HBM model" +
         (energy ? "; energy from what moved and ran, docs/energy.md"
                 : "; no energy: the chip file has no energy section") +
         ")\n" + table.render() + (ideal ? std::string("- ") + kIdealNotSimulated + "\n" : "");
}

nlohmann::json first_token_json(const std::optional<driver::FirstTokenRead>& read) {
  if (!read) return nullptr;
  return {{"bytes", read->bytes},
          {"rows", read->rows},
          {"bytes_per_s", read->bytes_per_s > 0 ? nlohmann::json(read->bytes_per_s) : nullptr},
          {"host_s", read->bytes_per_s > 0 ? nlohmann::json(read->seconds()) : nullptr}};
}

std::string with_first_token(const std::string& document,
                             const std::optional<driver::FirstTokenRead>& read, double step_s) {
  if (!read) return document;
  nlohmann::json doc = nlohmann::json::parse(document);
  doc["first_token"] = first_token_json(read);
  doc["ttft_s"] =
      read->bytes_per_s > 0 ? nlohmann::json(step_s + read->seconds()) : nlohmann::json(nullptr);
  return json_text(doc, 1) + "\n";
}

// The run as one JSON document (docs/formats.md, "tessera compile --format json"): the tables'
// numbers unrounded, in seconds, fractions and FLOP/s, under the sweep results' field names.
std::string compile_json(const driver::Compilation& c, const Machine& machine,
                         sim::MemoryDetail memory) {
  nlohmann::json designs = nlohmann::json::array();
  std::vector<dse::DesignRow> rows = dse::design_rows(c);
  for (size_t i = 0; i < rows.size(); ++i) {
    nlohmann::json d = rows[i];
    const planner::DesignResult& planned = c.designs[i].plan.result;
    d["search_s"] = planned.search_s;
    d["dispatch"] = {{"mode", to_string(planned.dispatch.mode)},
                     {"command_s", planned.dispatch.command_s},
                     {"launch_s", planned.dispatch.launch_s}};
    d["stream_bytes_per_s"] = planned.stream_bytes_per_s > 0
                                  ? nlohmann::json(planned.stream_bytes_per_s)
                                  : nlohmann::json(nullptr);
    d["planned_energy"] = energy_json(planned.energy, planned.latency_s);
    const auto& simulated = c.designs[i].simulated;
    const bool ttft = ttft_column(c);
    d["ttft_s"] = ttft ? nlohmann::json(planned.latency_s + c.first_token->seconds())
                       : nlohmann::json(nullptr);
    d["simulated_ttft_s"] =
        ttft && simulated && rows[i].simulated
            ? nlohmann::json(simulated->summary.latency_s + c.first_token->seconds())
            : nlohmann::json(nullptr);
    d["simulated_energy"] = simulated && rows[i].simulated
                                ? energy_json(simulated->energy, simulated->summary.latency_s)
                                : nlohmann::json(nullptr);
    if (c.simulated && planned.design == Design::ideal) {
      d["simulated_metrics"] = nullptr;
      d["simulated_note"] = kIdealNotSimulated;
    }
    designs.push_back(std::move(d));
  }
  nlohmann::json splits = nlohmann::json::array();
  for (const auto& d : c.splits)
    splits.push_back({{"op", d.split.op},
                      {"ops", d.ops},
                      {"rank", d.split.rank},
                      {"slices", d.split.slices},
                      {"estimated_s", d.estimated_s},
                      {"unsplit_bytes_per_core", d.unsplit_bytes_per_core},
                      {"unsplit_s", d.unsplit_s}});
  nlohmann::json out = {
      {"format", "tessera-compile-7"},
      {"model", c.graph->name()},
      {"ops", c.graph->ops().size()},
      {"op_classes", c.op_classes},
      {"chip", machine.chip},
      {"cores", machine.cores},
      {"memory_detail", memory == sim::MemoryDetail::full ? "full" : "fast"},
      {"designs", std::move(designs)},
      {"splits", std::move(splits)},
      {"first_token", first_token_json(c.first_token)},
      {"residency", c.designs.empty() ? nlohmann::json(nullptr)
                                      : residency_json(c.designs.front().plan.result.residency)}};
  return json_text(out, 1) + "\n";
}

}  // namespace tessera
