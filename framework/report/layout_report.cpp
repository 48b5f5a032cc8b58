#include "framework/report/layout_report.hpp"

#include <nlohmann/json.hpp>

#include "framework/common/json_text.hpp"
#include "framework/common/table.hpp"

namespace tessera {

namespace {

using driver::BlockMap;
using driver::LayoutPlace;
using nlohmann::json;

std::string path_text(const LayoutPlace& place) {
  std::string text;
  for (const auto& [level, block] : place.blocks)
    text += (text.empty() ? "" : " ") + level + std::to_string(block);
  return text;
}

std::string location_text(const LayoutPlace& place) {
  return path_text(place) + ", address " + std::to_string(place.address) + " (" +
         place.memory_level + " block " + std::to_string(place.memory_block.value_or(0)) + " of " +
         std::to_string(place.memory_blocks) + ")";
}

std::string range_text(const BlockMap::Range& r) {
  return r.first == r.second ? std::to_string(r.first)
                             : std::to_string(r.first) + "-" + std::to_string(r.second);
}

std::string render_map(const BlockMap& map) {
  std::vector<std::string> header{map.has_rows ? "rows \\ columns" : "columns"};
  for (size_t c = 0; c < map.shown_columns(); ++c) header.push_back(range_text(map.columns[c]));
  Table table(header);
  for (size_t r = 0; r < map.shown_rows(); ++r) {
    std::vector<std::string> cells{map.has_rows ? range_text(map.rows[r]) : ""};
    for (const LayoutPlace& place : map.cells[r]) cells.push_back(path_text(place));
    table.add_row(cells);
  }
  std::string text = table.render();
  if (map.shown_rows() < map.rows.size() || map.shown_columns() < map.columns.size())
    text += "(first " + std::to_string(map.shown_rows()) + " of " +
            std::to_string(map.rows.size()) + " row ranges and " +
            std::to_string(map.shown_columns()) + " of " + std::to_string(map.columns.size()) +
            " column ranges)\n";
  return text;
}

json place_json(const LayoutPlace& place) {
  json blocks = json::array();
  for (const auto& [level, block] : place.blocks)
    blocks.push_back({{"level", level}, {"block", block}});
  return {{"blocks", blocks},
          {"address", place.address},
          {"memory_level", place.memory_level},
          {"memory_block", place.memory_block ? json(*place.memory_block) : json(nullptr)},
          {"memory_blocks", place.memory_blocks}};
}

json located_json(const std::vector<driver::LocatedIndex>& located) {
  json out = json::array();
  for (const auto& l : located) out.push_back({{"index", l.index}, {"place", place_json(l.place)}});
  return out;
}

json ranges_json(const std::vector<BlockMap::Range>& ranges) {
  json out = json::array();
  for (const auto& [first, last] : ranges) out.push_back({first, last});
  return out;
}

json map_json(const BlockMap& map) {
  json cells = json::array();
  for (const auto& row : map.cells) {
    json places = json::array();
    for (const LayoutPlace& place : row) places.push_back(place_json(place));
    cells.push_back(places);
  }
  return {{"rows", map.has_rows ? ranges_json(map.rows) : json(nullptr)},
          {"columns", ranges_json(map.columns)},
          {"cells", cells}};
}

json description_json(const driver::LayoutDescription& d) {
  return {{"layout", d.layout},
          {"shape", d.shape},
          {"locate", located_json(d.located)},
          {"inverse", located_json(d.inverted)},
          {"map", d.map ? map_json(*d.map) : json(nullptr)}};
}

json choice_json(const driver::LayoutChoice& c) {
  json candidates = json::array();
  for (const auto& k : c.candidates)
    candidates.push_back({{"rank", k.rank}, {"layout", k.layout}, {"estimate", k.estimate}});
  return {{"pattern", c.pattern},
          {"shape", c.shape},
          {"considered", c.considered ? json(*c.considered) : json(nullptr)},
          {"candidates", candidates},
          {"chosen", c.chosen}};
}

}  // namespace

std::string render_layout(const driver::LayoutDescription& d) {
  std::string out = "layout   " + d.layout + "\nshape    " + driver::shape_text(d.shape) + "\n";
  for (const auto& l : d.located)
    out += "locate   " + driver::index_text(l.index) + " -> " + location_text(l.place) + "\n";
  for (const auto& l : d.inverted)
    out += "inverse  " + path_text(l.place) + ", address " + std::to_string(l.place.address) +
           " -> " + driver::index_text(l.index) + "\n";
  if (d.map) {
    out += "map\n" + render_map(*d.map);
    if (d.shape.size() > 2) out += "(the last two axes, at index 0 of the others)\n";
  }
  return out;
}

std::string render_choice(const driver::LayoutChoice& c) {
  Table table({"#", "layout", "estimate"}, {Table::Align::right});
  for (const auto& k : c.candidates) table.add_row({std::to_string(k.rank), k.layout, k.estimate});
  std::string considered = c.considered ? std::to_string(*c.considered) + " candidates, " : "";
  return "choose   " + c.pattern + " for " + driver::shape_text(c.shape) + ": " + considered +
         "cheapest first\n" + table.render() + "chosen   " + c.chosen + "\n";
}

std::string layout_json(const driver::LayoutAnswer& answer) {
  json out = {
      {"format", "tessera-layout-1"},
      {"description", answer.description ? description_json(*answer.description) : json(nullptr)},
      {"choice", answer.choice ? choice_json(*answer.choice) : json(nullptr)}};
  return json_text(out, 1) + "\n";
}

}  // namespace tessera
