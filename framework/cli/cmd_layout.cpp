// `tessera layout`: tree layout descriptions through a target's LayoutMapper — parse and print
// one, locate elements, invert places, draw which block holds which index range, or list the
// candidate layouts for an access pattern with their costs (docs/tree-layouts.md).
#include <algorithm>
#include <cctype>
#include <iostream>

#include "framework/cli/number_checks.hpp"
#include "framework/cli/options.hpp"
#include "framework/driver/driver.hpp"
#include "framework/report/table.hpp"

namespace tessera::cli {

namespace {

constexpr uint64_t kMaxMapExtent = 1u << 20;  // indices located per axis for --map
constexpr size_t kMaxMapRows = 32, kMaxMapCols = 16;

struct LayoutOptions {
  driver::ChipChoice chip;
  std::string layout;
  std::string shape;
  std::vector<std::string> locate;
  std::vector<std::string> inverse;
  bool map = false;
  std::string choose;
  size_t candidates = 10;
};

// Names and sizes of the chip's levels, top down, to print and read block paths.
struct Levels {
  std::vector<std::string> names;
  std::vector<uint32_t> nodes;
};

[[noreturn]] void usage(const std::string& message) {
  throw Failure(usage_error(message));
}

std::vector<uint64_t> parse_numbers(const std::string& text, char separator,
                                    const std::string& what) {
  std::vector<uint64_t> values;
  size_t start = 0;
  while (true) {
    size_t end = std::min(text.find(separator, start), text.size());
    std::string part = text.substr(start, end - start);
    if (part.empty() || part.size() > 18 ||
        part.find_first_not_of("0123456789") != std::string::npos)
      usage(what + " '" + text + "': expected whole numbers separated by '" + separator + "'");
    values.push_back(std::stoull(part));
    if (end == text.size()) return values;
    start = end + 1;
  }
}

std::string index_text(const uint64_t* index, size_t rank) {
  std::string text = "(";
  for (size_t a = 0; a < rank; ++a) text += (a ? ", " : "") + std::to_string(index[a]);
  return text + ")";
}

std::string path_text(const tessera_location& where, const Levels& levels) {
  std::string text;
  for (uint32_t k = 0; k < where.num_levels; ++k)
    text += (k ? " " : "") + levels.names.at(k) + std::to_string(where.blocks[k]);
  return text;
}

std::string location_text(const tessera_location& where, const Levels& levels) {
  uint32_t memory = where.num_levels - 1;
  return path_text(where, levels) + ", address " + std::to_string(where.address) + " (" +
         levels.names.at(memory) + " block " + std::to_string(where.core) + " of " +
         std::to_string(levels.nodes.at(memory)) + ")";
}

Levels chip_levels(const Topology& topology) {
  TopologyInfo info = topology.info().take();
  Levels levels;
  for (uint32_t k = 0; k < std::min<uint32_t>(info.num_levels, TESSERA_MAX_LEVELS); ++k) {
    Level l = topology.level(k).take();
    levels.names.push_back(l.name);
    levels.nodes.push_back(l.nodes);
  }
  for (uint32_t k = info.num_levels; k < TESSERA_MAX_LEVELS; ++k) {  // flat chips
    levels.names.push_back("L" + std::to_string(k));
    levels.nodes.push_back(info.num_cores);
  }
  return levels;
}

// "A2,B3,411": a block per level (omitted levels are block 0), the address last.
tessera_location parse_place(const std::string& spec, const Levels& levels, uint32_t num_levels) {
  tessera_location where{};
  where.num_levels = num_levels;
  std::vector<std::string> parts;
  for (size_t start = 0;;) {
    size_t end = std::min(spec.find(',', start), spec.size());
    parts.push_back(spec.substr(start, end - start));
    if (end == spec.size()) break;
    start = end + 1;
  }
  where.address = parse_numbers(parts.back(), ',', "--inverse address").front();
  for (size_t i = 0; i + 1 < parts.size(); ++i) {
    const std::string& p = parts[i];
    size_t digits = p.find_last_not_of("0123456789") + 1;
    auto it = std::find_if(
        levels.names.begin(), levels.names.begin() + num_levels, [&](const std::string& n) {
          return n.size() == digits &&
                 std::equal(n.begin(), n.end(), p.begin(),
                            [](char a, char b) { return std::tolower(a) == std::tolower(b); });
        });
    if (digits == 0 || digits == p.size() || it == levels.names.begin() + num_levels) {
      std::string names;
      for (uint32_t k = 0; k < num_levels; ++k) names += (k ? ", " : "") + levels.names[k];
      usage("--inverse '" + spec + "': '" + p + "' is not a block of this layout's levels (" +
            names + "); write LEVEL then the block, e.g. " + levels.names[0] +
            "0, and the address last");
    }
    uint64_t block = parse_numbers(p.substr(digits), ',', "--inverse block").front();
    if (block > UINT32_MAX) usage("--inverse '" + spec + "': block " + p + " is out of range");
    where.blocks[it - levels.names.begin()] = static_cast<uint32_t>(block);
  }
  return where;
}

// Ranges of one axis over which the block path stays the same (the other indices at 0).
std::vector<std::pair<uint64_t, uint64_t>> segments(const LayoutMapper& mapper,
                                                    const Layout& layout,
                                                    const std::vector<uint64_t>& shape,
                                                    size_t axis) {
  if (shape[axis] > kMaxMapExtent)
    usage("--map draws extents up to " + std::to_string(kMaxMapExtent) + ", axis " +
          std::to_string(axis) + " has " + std::to_string(shape[axis]));
  std::vector<uint64_t> indices(shape[axis] * shape.size(), 0);
  for (uint64_t i = 0; i < shape[axis]; ++i) indices[i * shape.size() + axis] = i;
  std::vector<tessera_location> where = mapper.locate(layout, indices).take();
  std::vector<std::pair<uint64_t, uint64_t>> out;
  for (uint64_t i = 0; i < shape[axis]; ++i) {
    if (i > 0 && where[i].core == where[i - 1].core)
      out.back().second = i;
    else
      out.push_back({i, i});
  }
  return out;
}

std::string range_text(const std::pair<uint64_t, uint64_t>& r) {
  return r.first == r.second ? std::to_string(r.first)
                             : std::to_string(r.first) + "-" + std::to_string(r.second);
}

// Which block holds which index range of the last two axes (leading axes at index 0).
std::string draw_map(const LayoutMapper& mapper, const Layout& layout,
                     const std::vector<uint64_t>& shape, const Levels& levels) {
  size_t cols_axis = shape.size() - 1;
  auto cols = segments(mapper, layout, shape, cols_axis);
  std::vector<std::pair<uint64_t, uint64_t>> rows{{0, 0}};
  if (shape.size() >= 2) rows = segments(mapper, layout, shape, cols_axis - 1);
  size_t shown_rows = std::min(rows.size(), kMaxMapRows);
  size_t shown_cols = std::min(cols.size(), kMaxMapCols);
  std::vector<uint64_t> indices;
  for (size_t r = 0; r < shown_rows; ++r)
    for (size_t c = 0; c < shown_cols; ++c) {
      std::vector<uint64_t> index(shape.size(), 0);
      index[cols_axis] = cols[c].first;
      if (shape.size() >= 2) index[cols_axis - 1] = rows[r].first;
      indices.insert(indices.end(), index.begin(), index.end());
    }
  std::vector<tessera_location> where = mapper.locate(layout, indices).take();
  std::vector<std::string> header{shape.size() >= 2 ? "rows \\ columns" : "columns"};
  for (size_t c = 0; c < shown_cols; ++c) header.push_back(range_text(cols[c]));
  Table table(header);
  for (size_t r = 0; r < shown_rows; ++r) {
    std::vector<std::string> cells{shape.size() >= 2 ? range_text(rows[r]) : ""};
    for (size_t c = 0; c < shown_cols; ++c)
      cells.push_back(path_text(where[r * shown_cols + c], levels));
    table.add_row(cells);
  }
  std::string text = table.render();
  if (shown_rows < rows.size() || shown_cols < cols.size())
    text += "(first " + std::to_string(shown_rows) + " of " + std::to_string(rows.size()) +
            " row ranges and " + std::to_string(shown_cols) + " of " + std::to_string(cols.size()) +
            " column ranges)\n";
  if (shape.size() > 2) text += "(the last two axes, at index 0 of the others)\n";
  return text;
}

int run_choose(const LayoutMapper& mapper, const LayoutOptions& options,
               const std::vector<uint64_t>& shape) {
  Table table({"#", "layout", "estimate"}, {Table::Align::right});
  std::string best, total;
  for (size_t k = 1; k <= options.candidates; ++k) {
    auto layout = mapper.parse("choose(" + options.choose + ", " + std::to_string(k) + ")", shape);
    if (!layout && layout.error().code == StatusCode::not_found && k > 1) break;
    std::string text = mapper.format(std::move(layout).take()).take();
    size_t note = text.find(" # ");
    std::string rest = note == std::string::npos ? "" : text.substr(note + 3);
    size_t colon = rest.find(": ");
    if (k == 1) {
      best = text.substr(0, note);
      size_t of = rest.find(" of ");
      total = of == std::string::npos ? "" : rest.substr(of + 4, colon - of - 4);
    }
    table.add_row({std::to_string(k), text.substr(0, note),
                   colon == std::string::npos ? rest : rest.substr(colon + 2)});
  }
  std::cout << "choose   " << options.choose << " for " << options.shape << ": " << total
            << " candidates, cheapest first\n"
            << table.render() << "chosen   " << best << "\n";
  return kExitOk;
}

int run_one(const LayoutMapper& mapper, const LayoutOptions& options,
            const std::vector<uint64_t>& shape, const Levels& levels) {
  Layout layout = mapper.parse(options.layout, shape).take();
  std::cout << "layout   " << mapper.format(layout).take() << "\n";
  std::cout << "shape    " << options.shape << "\n";
  // The layout's memory level shows in any location's level count.
  uint32_t num_levels =
      mapper.locate(layout, std::vector<uint64_t>(shape.size(), 0)).take().front().num_levels;
  for (const auto& spec : options.locate) {
    std::vector<uint64_t> index = parse_numbers(spec, ',', "--locate");
    if (index.size() != shape.size())
      usage("--locate '" + spec + "': expected " + std::to_string(shape.size()) +
            " indices for shape " + options.shape);
    tessera_location where = mapper.locate(layout, index).take().front();
    std::cout << "locate   " << index_text(index.data(), index.size()) << " -> "
              << location_text(where, levels) << "\n";
  }
  for (const auto& spec : options.inverse) {
    tessera_location where = parse_place(spec, levels, num_levels);
    std::vector<uint64_t> index = mapper.inverse(layout, {where}).take();
    std::cout << "inverse  " << path_text(where, levels) << ", address " << where.address << " -> "
              << index_text(index.data(), index.size()) << "\n";
  }
  if (options.map) std::cout << "map\n" << draw_map(mapper, layout, shape, levels);
  return kExitOk;
}

int run_layout(const GlobalOptions& global, const LayoutOptions& options) {
  if (options.layout.empty() == options.choose.empty())
    usage("give a LAYOUT or --choose PATTERN (not both)");
  std::vector<uint64_t> shape = parse_numbers(options.shape, 'x', "--shape");
  PluginSet plugins(global.registry());
  ChipSpec chip = driver::resolve_chip(plugins, options.chip).take().spec;
  LayoutMapper mapper = build_layout_mapper(plugins, chip).take();
  if (!options.choose.empty()) return run_choose(mapper, options, shape);
  Levels levels = chip_levels(build_topology(plugins, chip).take());
  return run_one(mapper, options, shape, levels);
}

}  // namespace

void add_layout_command(CLI::App& app, const GlobalOptions& global, Action& action) {
  auto options = std::make_shared<LayoutOptions>();
  CLI::App* cmd = app.add_subcommand(
      "layout", "Tree layouts: locate elements, invert places, map blocks, choose a layout");
  add_chip_options(cmd, options->chip);
  cmd->add_option("layout", options->layout,
                  "Layout description, e.g. \"((2_A:2, 2_B:2, 25_Addr:25), (2_A:1, 2_B:1, "
                  "25_Addr:1))\"");
  cmd->add_option("--shape", options->shape, "Tensor extents, e.g. 100x100")->required();
  cmd->add_option("--locate", options->locate, "Where index I,J,... lives (repeatable)");
  cmd->add_option("--inverse", options->inverse,
                  "Which index a place holds: LEVEL<block>,...,ADDRESS, e.g. A2,B3,411 "
                  "(repeatable)");
  cmd->add_flag("--map", options->map, "Draw which block holds which index range");
  cmd->add_option("--choose", options->choose,
                  "List candidate layouts for an access pattern (stencil3x3, row-reduce, "
                  "col-reduce, matmul-lhs, matmul-rhs, elementwise) with their costs");
  cmd->add_option("--candidates", options->candidates, "How many candidates --choose lists")
      ->capture_default_str()
      ->check(whole_in(1, 1000));
  cmd->callback([&global, &action, options] {
    action = [&global, options] { return run_layout(global, *options); };
  });
}

}  // namespace tessera::cli
