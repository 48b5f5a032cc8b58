#include "framework/report/core_mapping_report.hpp"

#include <fmt/format.h>

#include <map>

#include "framework/common/table.hpp"

namespace tessera {

namespace {

struct ClassRow {
  const planner::OpSchedule* first = nullptr;
  size_t ops = 0;
};

std::string micros(double seconds) {
  return fmt::format("{:.3f}", seconds * 1e6);
}

// Every line of `text` indented by `spaces`.
std::string indented(const std::string& text, size_t spaces) {
  std::string out, pad(spaces, ' ');
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    out += pad + text.substr(start, end - start) + "\n";
    start = end + 1;
  }
  return out;
}

}  // namespace

Result<std::string> core_mappings_text(const planner::DesignResult& result,
                                       const driver::OpenChip& chip) {
  std::map<int, ClassRow> classes;  // by op class, in class order
  for (const auto& op : result.ops) {
    if (!op.core_mapping || !op.exec.core_tile) continue;
    ClassRow& row = classes[op.op_class];
    if (row.first == nullptr) row.first = &op;
    ++row.ops;
  }
  if (classes.empty()) return std::string();
  std::vector<tessera_tile_query> queries;
  for (const auto& [c, row] : classes) queries.push_back(*row.first->exec.core_tile);
  auto plugin_s = chip.models.cost_model.tile_seconds(queries);
  if (!plugin_s) return plugin_s.error();
  Table table({"op", "ops", "tile (one core, one step)", "plugin us", "tcm us", "tcm/plugin",
               "utilisation"},
              {Table::Align::left, Table::Align::right, Table::Align::left, Table::Align::right,
               Table::Align::right, Table::Align::right, Table::Align::right});
  std::string trees;
  size_t i = 0;
  for (const auto& [c, row] : classes) {
    const planner::CoreMappingRecord& m = *row.first->core_mapping;
    double plugin = (*plugin_s)[i++];
    table.add_row({row.first->name, std::to_string(row.ops), m.einsum, micros(plugin),
                   micros(m.tile_s), fmt::format("{:.2f}", m.tile_s / plugin),
                   fmt::format("{:.1f}%", m.utilization * 100)});
    trees += fmt::format("{} ({}):\n", row.first->name, m.einsum) + indented(m.looptree, 2);
  }
  return fmt::format(
             "core mappings of {} (tcm on {}; the plugin's time for the same tile beside "
             "it)\n",
             to_string(result.design), chip.models.core->arch().name) +
         table.render() + "\n" + trees;
}

}  // namespace tessera
