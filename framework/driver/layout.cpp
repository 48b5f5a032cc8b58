#include "framework/driver/layout.hpp"

#include <algorithm>
#include <cctype>

#include "framework/chip/chip_models.hpp"
#include "framework/driver/driver.hpp"

namespace tessera::driver {

namespace {

constexpr uint64_t kMaxMapExtent = 1u << 20;  // indices located per axis for a map
constexpr size_t kMaxMapRows = 32, kMaxMapCols = 16;

[[noreturn]] void usage(const std::string& message) {
  throw Failure(usage_error(message));
}

// Names and sizes of the chip's levels, top down, to name and read block paths.
struct Levels {
  std::vector<std::string> names;
  std::vector<uint32_t> nodes;
};

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

LayoutPlace place_of(const tessera_location& where, const Levels& levels, bool located = true) {
  LayoutPlace place;
  for (uint32_t k = 0; k < where.num_levels; ++k)
    place.blocks.emplace_back(levels.names.at(k), where.blocks[k]);
  place.address = where.address;
  uint32_t memory = where.num_levels - 1;
  place.memory_level = levels.names.at(memory);
  if (located) place.memory_block = where.core;
  place.memory_blocks = levels.nodes.at(memory);
  return place;
}

uint64_t parse_number(const std::string& part, const std::string& spec) {
  if (part.empty() || part.size() > 18 || part.find_first_not_of("0123456789") != std::string::npos)
    usage("--inverse '" + spec + "': '" + part + "' is not a whole number");
  return std::stoull(part);
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
  where.address = parse_number(parts.back(), spec);
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
    uint64_t block = parse_number(p.substr(digits), spec);
    if (block > UINT32_MAX) usage("--inverse '" + spec + "': block " + p + " is out of range");
    where.blocks[it - levels.names.begin()] = static_cast<uint32_t>(block);
  }
  return where;
}

// Ranges of one axis over which the block path stays the same (the other indices at 0).
std::vector<BlockMap::Range> segments(const LayoutMapper& mapper, const Layout& layout,
                                      const std::vector<uint64_t>& shape, size_t axis) {
  if (shape[axis] > kMaxMapExtent)
    usage("--map draws extents up to " + std::to_string(kMaxMapExtent) + ", axis " +
          std::to_string(axis) + " has " + std::to_string(shape[axis]));
  std::vector<uint64_t> indices(shape[axis] * shape.size(), 0);
  for (uint64_t i = 0; i < shape[axis]; ++i) indices[i * shape.size() + axis] = i;
  std::vector<tessera_location> where = mapper.locate(layout, indices).take();
  std::vector<BlockMap::Range> out;
  for (uint64_t i = 0; i < shape[axis]; ++i) {
    if (i > 0 && where[i].core == where[i - 1].core)
      out.back().second = i;
    else
      out.push_back({i, i});
  }
  return out;
}

BlockMap block_map(const LayoutMapper& mapper, const Layout& layout,
                   const std::vector<uint64_t>& shape, const Levels& levels) {
  BlockMap map;
  size_t cols_axis = shape.size() - 1;
  map.has_rows = shape.size() >= 2;
  map.columns = segments(mapper, layout, shape, cols_axis);
  map.rows = map.has_rows ? segments(mapper, layout, shape, cols_axis - 1)
                          : std::vector<BlockMap::Range>{{0, 0}};
  size_t shown_rows = std::min(map.rows.size(), kMaxMapRows);
  size_t shown_cols = std::min(map.columns.size(), kMaxMapCols);
  std::vector<uint64_t> indices;
  for (size_t r = 0; r < shown_rows; ++r)
    for (size_t c = 0; c < shown_cols; ++c) {
      std::vector<uint64_t> index(shape.size(), 0);
      index[cols_axis] = map.columns[c].first;
      if (map.has_rows) index[cols_axis - 1] = map.rows[r].first;
      indices.insert(indices.end(), index.begin(), index.end());
    }
  std::vector<tessera_location> where = mapper.locate(layout, indices).take();
  map.cells.assign(shown_rows, {});
  for (size_t r = 0; r < shown_rows; ++r)
    for (size_t c = 0; c < shown_cols; ++c)
      map.cells[r].push_back(place_of(where[r * shown_cols + c], levels));
  return map;
}

LayoutChoice choose(const LayoutMapper& mapper, const LayoutRequest& request) {
  LayoutChoice choice{request.choose, request.shape, {}, {}, ""};
  for (size_t k = 1; k <= request.candidates; ++k) {
    auto layout =
        mapper.parse("choose(" + request.choose + ", " + std::to_string(k) + ")", request.shape);
    if (!layout && layout.error().code == StatusCode::not_found && k > 1) break;
    // "LAYOUT # candidate k of N: ESTIMATE"
    std::string text = mapper.format(std::move(layout).take()).take();
    size_t note = text.find(" # ");
    std::string rest = note == std::string::npos ? "" : text.substr(note + 3);
    size_t colon = rest.find(": ");
    if (k == 1) {
      choice.chosen = text.substr(0, note);
      size_t of = rest.find(" of ");
      std::string total = of == std::string::npos ? "" : rest.substr(of + 4, colon - of - 4);
      if (!total.empty() && total.size() < 19 &&
          total.find_first_not_of("0123456789") == std::string::npos)
        choice.considered = std::stoull(total);
    }
    choice.candidates.push_back(
        {k, text.substr(0, note), colon == std::string::npos ? rest : rest.substr(colon + 2)});
  }
  return choice;
}

LayoutDescription describe(const LayoutMapper& mapper, const LayoutRequest& request,
                           const Levels& levels) {
  const std::vector<uint64_t>& shape = request.shape;
  Layout layout = mapper.parse(request.layout, shape).take();
  LayoutDescription d{mapper.format(layout).take(), shape, {}, {}, {}};
  // The layout's memory level shows in any location's level count.
  uint32_t num_levels =
      mapper.locate(layout, std::vector<uint64_t>(shape.size(), 0)).take().front().num_levels;
  for (const auto& index : request.locate) {
    if (index.size() != shape.size()) {
      std::string spec;
      for (uint64_t i : index) spec += (spec.empty() ? "" : ",") + std::to_string(i);
      usage("--locate '" + spec + "': expected " + std::to_string(shape.size()) +
            " indices for shape " + shape_text(shape));
    }
    d.located.push_back({index, place_of(mapper.locate(layout, index).take().front(), levels)});
  }
  for (const auto& spec : request.inverse) {
    tessera_location where = parse_place(spec, levels, num_levels);
    d.inverted.push_back(
        {mapper.inverse(layout, {where}).take(), place_of(where, levels, /*located=*/false)});
  }
  if (request.map) d.map = block_map(mapper, layout, shape, levels);
  return d;
}

}  // namespace

Result<LayoutAnswer> query_layout(PluginSet& plugins, const LayoutRequest& request) {
  try {
    if (request.layout.empty() == request.choose.empty())
      usage("give a LAYOUT or --choose PATTERN (not both)");
    if (request.shape.empty()) usage("--shape: give the tensor's extents, e.g. 100x100");
    ChipSpec chip = resolve_chip(plugins, request.chip).take().spec;
    LayoutMapper mapper = build_layout_mapper(plugins, chip).take();
    LayoutAnswer answer;
    if (!request.choose.empty()) {
      answer.choice = choose(mapper, request);
      return answer;
    }
    Levels levels = chip_levels(build_topology(plugins, chip).take());
    answer.description = describe(mapper, request, levels);
    return answer;
  } catch (const Failure& failure) {
    return failure.error();
  }
}

std::string index_text(const std::vector<uint64_t>& index) {
  std::string text = "(";
  for (size_t a = 0; a < index.size(); ++a) text += (a ? ", " : "") + std::to_string(index[a]);
  return text + ")";
}

std::string shape_text(const std::vector<uint64_t>& shape) {
  std::string text;
  for (uint64_t e : shape) text += (text.empty() ? "" : "x") + std::to_string(e);
  return text;
}

}  // namespace tessera::driver
