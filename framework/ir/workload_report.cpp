#include "framework/ir/workload_report.hpp"

#include <fmt/format.h>

#include <array>
#include <cmath>
#include <nlohmann/json.hpp>

#include "framework/common/json_text.hpp"
#include "framework/common/table.hpp"
#include "framework/common/units.hpp"
#include "framework/ir/analysis.hpp"
#include "framework/ir/repeats.hpp"

namespace tessera {

std::string format_flops(double flops) {
  static const std::array<const char*, 7> prefixes = {"", "k", "M", "G", "T", "P", "E"};
  size_t i = 0;
  while (std::fabs(flops) >= 1000 && i + 1 < prefixes.size()) {
    flops /= 1000;
    ++i;
  }
  if (i == 0) return fmt::format("{:.0f} FLOP", flops);
  return fmt::format("{:.2f} {}FLOP", flops, prefixes[i]);
}

namespace {

struct Structure {
  ir::OpClasses classes;
  std::optional<ir::RepeatedLayers> layers;
};

Structure structure(const ir::Graph& g) {
  Structure s{ir::identical_ops(g), std::nullopt};
  s.layers = ir::repeated_layers(g, s.classes, ir::edges(g));
  return s;
}

std::string layers_line(const std::optional<ir::RepeatedLayers>& layers) {
  if (!layers) return "none found";
  int last = layers->first_op + layers->ops_per_layer * layers->count - 1;
  return fmt::format("{} identical x {} ops (ops {}..{})", layers->count, layers->ops_per_layer,
                     layers->first_op, last);
}

std::vector<std::string> summary(const ir::Graph& g, const Structure& s) {
  ir::Totals t = ir::totals(g);
  std::vector<std::string> lines;
  lines.push_back(fmt::format("model        {}", g.name()));
  lines.push_back(fmt::format("ops          {} ({} unique)", t.ops, s.classes.first_op.size()));
  lines.push_back(fmt::format("layers       {}", layers_line(s.layers)));
  lines.push_back(fmt::format("FLOPs        {}", format_flops(t.flops)));
  lines.push_back(fmt::format("weights      {} in HBM", format_bytes(t.weight_bytes)));
  lines.push_back(fmt::format("constants    {} in HBM", format_bytes(t.constant_bytes)));
  lines.push_back(fmt::format("KV cache     {} in HBM", format_bytes(t.kv_cache_bytes)));
  lines.push_back(fmt::format("inputs       {} in HBM", format_bytes(t.input_bytes)));
  lines.push_back(fmt::format("HBM read     {} (summed over ops)", format_bytes(t.hbm_bytes_in)));
  lines.push_back(fmt::format("on-chip      {} read, {} written; peak live activations {}",
                              format_bytes(t.on_chip_bytes_in), format_bytes(t.bytes_out),
                              format_bytes(t.peak_live_on_chip_bytes)));
  return lines;
}

}  // namespace

std::vector<std::string> workload_summary(const ir::Graph& graph) {
  return summary(graph, structure(graph));
}

std::string render_workload_table(const ir::Graph& g) {
  Structure s = structure(g);
  Table table(
      {"#", "op", "kind", "einsum", "ranks", "FLOPs", "HBM in", "on-chip", "same as", "layer"},
      {Table::Align::right, Table::Align::left, Table::Align::left, Table::Align::left,
       Table::Align::left, Table::Align::right, Table::Align::right, Table::Align::right,
       Table::Align::right, Table::Align::right});
  for (size_t i = 0; i < g.ops().size(); ++i) {
    const ir::Op& op = g.ops()[i];
    ir::OpCost c = ir::op_cost(g, op);
    int first = s.classes.first_op[s.classes.class_of[i]];
    int layer = s.layers ? s.layers->layer_of(static_cast<int>(i)) : -1;
    table.add_row({std::to_string(i), op.name, ir::to_string(op.kind), op.einsum.str(),
                   op.einsum.ranks_str(), format_flops(c.flops), format_bytes(c.hbm_bytes_in),
                   format_bytes(c.on_chip_bytes_in + c.bytes_out),
                   first == static_cast<int>(i) ? "" : std::to_string(first),
                   layer < 0 ? "" : std::to_string(layer)});
  }
  std::string out = table.render() + "\n";
  for (const auto& line : summary(g, s)) out += line + "\n";
  return out;
}

std::string workload_json(const ir::Graph& g, const std::string& off_chip) {
  Structure s = structure(g);
  nlohmann::json ops = nlohmann::json::array();
  for (size_t i = 0; i < g.ops().size(); ++i) {
    const ir::Op& op = g.ops()[i];
    ir::OpCost c = ir::op_cost(g, op);
    nlohmann::json ranks = nlohmann::json::array();  // in loop order
    for (const auto& r : op.einsum.ranks) ranks.push_back({{"name", r.name}, {"extent", r.extent}});
    int layer = s.layers ? s.layers->layer_of(static_cast<int>(i)) : -1;
    ops.push_back({{"op", i},
                   {"name", op.name},
                   {"kind", ir::to_string(op.kind)},
                   {"einsum", op.einsum.str()},
                   {"ranks", std::move(ranks)},
                   {"flops", c.flops},
                   {"hbm_bytes_in", c.hbm_bytes_in},
                   {"on_chip_bytes_in", c.on_chip_bytes_in},
                   {"bytes_out", c.bytes_out},
                   {"writes_hbm", c.writes_hbm},
                   {"same_as", s.classes.first_op[s.classes.class_of[i]]},
                   {"layer", layer < 0 ? nlohmann::json(nullptr) : nlohmann::json(layer)}});
  }
  ir::Totals t = ir::totals(g);
  nlohmann::json layers = nullptr;
  if (s.layers)
    layers = {{"count", s.layers->count},
              {"ops_per_layer", s.layers->ops_per_layer},
              {"first_op", s.layers->first_op}};
  nlohmann::json out = {
      {"format", "tessera-inspect-1"},
      {"model", g.name()},
      {"op_classes", s.classes.first_op.size()},
      {"layers", std::move(layers)},
      {"flops", t.flops},
      {"weight_bytes", t.weight_bytes},
      {"constant_bytes", t.constant_bytes},
      {"kv_cache_bytes", t.kv_cache_bytes},
      {"input_bytes", t.input_bytes},
      {"hbm_bytes_in", t.hbm_bytes_in},
      {"on_chip_bytes_in", t.on_chip_bytes_in},
      {"bytes_out", t.bytes_out},
      {"peak_live_on_chip_bytes", t.peak_live_on_chip_bytes},
      {"off_chip", off_chip.empty() ? nlohmann::json(nullptr) : nlohmann::json(off_chip)},
      {"ops", std::move(ops)}};
  return json_text(out, 1) + "\n";
}

}  // namespace tessera
