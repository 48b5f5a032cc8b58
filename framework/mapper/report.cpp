#include "framework/mapper/report.hpp"

#include <cmath>
#include <cstdio>

#include "framework/common/table.hpp"
#include "framework/common/units.hpp"

namespace tessera::mapper {

namespace {

std::string printf_string(const char* format, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

std::string pow10(double log10_value) {
  if (std::isinf(log10_value)) return "0";
  if (log10_value < 6) return format_count(std::pow(10.0, log10_value));
  return printf_string("%.2g", std::pow(10.0, log10_value - std::floor(log10_value))) + "e" +
         std::to_string(static_cast<int>(std::floor(log10_value)));
}

std::string ratio(double log10_before, double log10_after) {
  return "×" + pow10(log10_before - log10_after);
}

std::string node_note(const Problem& p, const NodeReport& n) {
  double bytes = n.tile_elements * static_cast<double>(p.tensors[n.tensor].element_bytes);
  return "[tile " + format_bytes(bytes) + ", fills " + format_count(n.fills) +
         (n.instances > 1 ? ", ×" + format_count(n.instances) + " instances" : "") + "]";
}

}  // namespace

std::string format_count(double count) {
  if (count >= 1e15 || count != std::floor(count)) return printf_string("%.4g", count);
  std::string digits = printf_string("%.0f", count);
  std::string out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

std::string render_evaluation(const Problem& p, const Hierarchy& h, const LoopTree& tree,
                              const Evaluation& ev) {
  std::vector<std::string> notes(tree.nodes.size());
  size_t k = 0;
  for (size_t i = 0; i < tree.nodes.size(); ++i)
    if (tree.nodes[i].kind == NodeKind::storage) notes[i] = node_note(p, ev.nodes[k++]);
  std::string out = render_looptree(tree, p, h, notes);
  out += "\nenergy " + format_joules(ev.metrics.energy_joules) + "   latency " +
         format_seconds(ev.metrics.latency_seconds) + "   EDP " +
         printf_string("%.4g", ev.metrics.edp()) + " J·s   utilization " +
         printf_string("%.1f", 100 * ev.utilization) + "%   compute " +
         format_seconds(ev.compute_seconds) + "\n";
  if (!ev.valid) out += "INVALID: " + ev.reason + "\n";
  Table nodes({"level", "tensor", "tile", "fills", "reads", "writes", "energy"},
              {Table::Align::left, Table::Align::left, Table::Align::right, Table::Align::right,
               Table::Align::right, Table::Align::right, Table::Align::right});
  for (const auto& n : ev.nodes) {
    double bytes = static_cast<double>(p.tensors[n.tensor].element_bytes);
    nodes.add_row({h.levels[n.level].name, p.tensors[n.tensor].name,
                   format_bytes(n.tile_elements * bytes), format_count(n.fills),
                   format_count(n.read_elements), format_count(n.write_elements),
                   format_joules(n.energy_joules)});
  }
  Table levels({"level", "used/instance", "capacity", "instances", "read", "write", "port time"},
               {Table::Align::left, Table::Align::right, Table::Align::right, Table::Align::right,
                Table::Align::right, Table::Align::right, Table::Align::right});
  for (int l = 0; l < h.num_levels(); ++l) {
    const Level& level = h.levels[l];
    levels.add_row(
        {level.name, format_bytes(ev.traffic.at(Traffic::usage, l)),
         std::isinf(level.capacity_bytes) ? "unlimited" : format_bytes(level.capacity_bytes),
         format_count(h.instances(l)), format_bytes(ev.traffic.at(Traffic::total_read, l)),
         format_bytes(ev.traffic.at(Traffic::total_write, l)),
         format_seconds(ev.level_seconds[l])});
  }
  return out + "\n" + nodes.render() + "\n" + levels.render();
}

std::string render_stats(const MapspaceStats& s, const StageTimes& t) {
  double after_df = s.log10_after_dataflow;
  double evaluated = std::log10(std::max<double>(1, static_cast<double>(s.tile.evaluated)));
  std::string out = "mapspace\n";
  out +=
      "  dataplacements |DP|        " + format_count(static_cast<double>(s.dataplacements)) + "\n";
  out += "  dataflows |DF|             " + pow10(s.log10_dataflows_full) + " -> " +
         format_count(static_cast<double>(s.dataflows)) + " non-redundant\n";
  out += "  tile shapes |TS|           " + pow10(s.log10_tile_shapes_full) + " -> " +
         pow10(after_df) + " after loop pruning\n";
  out += "  mappings                   " + pow10(s.log10_mapspace_full) + " -> " + pow10(after_df) +
         " (dataflow pruning " + ratio(s.log10_mapspace_full, after_df) + ") -> " +
         format_count(static_cast<double>(s.tile.evaluated)) +
         " evaluated (partial tile-shape "
         "pruning " +
         ratio(after_df, evaluated) + ", overall " + ratio(s.log10_mapspace_full, evaluated) +
         ")\n";
  out += "  partial tile shapes        " +
         format_count(static_cast<double>(s.tile.partial_shapes)) + " visited; dropped " +
         format_count(static_cast<double>(s.tile.pruned_capacity)) + " over capacity, " +
         format_count(static_cast<double>(s.tile.pruned_objective)) + " by bound, " +
         format_count(static_cast<double>(s.tile.pruned_fanout)) + " over a fan-out, " +
         format_count(static_cast<double>(s.tile.pruned_redundant)) +
         " repeating another line-buffer template\n";
  out += "time (CPU, summed over threads)\n";
  out += "  dataplacements " + format_seconds(t.dataplacement) + ", dataflows " +
         format_seconds(t.dataflow) + ", curried models " + format_seconds(t.compile) +
         ", tile shapes " + format_seconds(t.tile_search) + "; wall " + format_seconds(t.wall) +
         "\n";
  return out;
}

std::string render_front(const std::vector<Candidate>& front, const std::string& level_name) {
  Table table({"#", "latency", level_name + " used", "energy", "EDP (J·s)"},
              {Table::Align::right, Table::Align::right, Table::Align::right, Table::Align::right,
               Table::Align::right});
  for (size_t i = 0; i < front.size(); ++i)
    table.add_row({std::to_string(i), format_seconds(front[i].metrics.latency_seconds),
                   format_bytes(front[i].usage_bytes),
                   format_joules(front[i].metrics.energy_joules),
                   printf_string("%.4g", front[i].metrics.edp())});
  return table.render();
}

std::string render_random(const RandomSearchResult& r, Objective objective) {
  std::string out = "random sampling: " + format_count(static_cast<double>(r.samples)) +
                    " samples in " + format_seconds(r.seconds) + ", " +
                    format_count(static_cast<double>(r.valid)) + " valid\n";
  if (!r.best) return out + "no valid mapping sampled\n";
  out += std::string("best ") + to_string(objective) + " " +
         printf_string("%.6g", r.best->score.primary) + " after " +
         format_count(static_cast<double>(r.improvements.size())) + " improvements\n";
  return out;
}

}  // namespace tessera::mapper
