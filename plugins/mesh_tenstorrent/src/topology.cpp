#include "topology.hpp"

#include <algorithm>
#include <cstdlib>
#include <limits>
#include <map>
#include <sstream>

#include "blocks.hpp"

namespace tessera::plugins::mesh {

namespace {

// Wormhole B0 [Y: wormhole_b0_80_arch.yaml]: functional_workers and the 12 DRAM channels, paired
// into 6 controllers of 3 NoC tiles each.
constexpr const char* kWorkers = "x=1-4,6-9 y=1-5,7-11";
constexpr const char* kDramTiles =
    "0-0 0-1 0-11; 0-5 0-6 0-7; 5-0 5-1 5-11; 5-2 5-9 5-10; 5-3 5-4 5-8; 5-5 5-6 5-7";
// Ethernet tiles in channel order [Y: wormhole_b0_80_arch.yaml `eth`].
constexpr const char* kEthTiles = "9-0 1-0 8-0 2-0 7-0 3-0 6-0 4-0 9-6 1-6 8-6 2-6 7-6 3-6 6-6 4-6";
constexpr uint32_t kDirections = 4;  // +x, -x, +y, -y
// fp32, fp16, bf16, fp8, int8, int32, fp64 [V, see topology.hpp]
constexpr FlopsPerCycle::Table kFlopsPerCycle = {1024, 4096, 4096, 4096, 0, 0, 0, 4096, 4096, 4096};
// A wafer-scale fabric (chips/wse2.yaml: 757 x 996, wse3.yaml: 762 x 1172) fits; parse_coordinate
// reads 4 digits.
constexpr int64_t kMaxGridSide = 2048;
constexpr int64_t kMaxTileEdge = 64;

[[noreturn]] void fail(const std::string& key, const std::string& what) {
  throw sdk::invalid_argument("parameter '" + key + "': " + what);
}

// Pieces of `text` separated by any of `separators`, empty pieces dropped.
std::vector<std::string> split(const std::string& text, const std::string& separators) {
  std::vector<std::string> pieces;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find_first_of(separators, start);
    if (end == std::string::npos) end = text.size();
    if (end > start) pieces.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return pieces;
}

int32_t parse_coordinate(const std::string& key, const std::string& token) {
  if (token.empty() || token.size() > 4 ||
      !std::all_of(token.begin(), token.end(), [](char c) { return c >= '0' && c <= '9'; }))
    fail(key, "'" + token + "' is not a grid coordinate");
  return std::stoi(token);
}

// "1-4,6" -> 1 2 3 4 6
std::vector<int32_t> parse_ranges(const std::string& key, const std::string& text) {
  std::vector<int32_t> values;
  for (const std::string& item : split(text, ",")) {
    std::vector<std::string> ends = split(item, "-");
    if (ends.empty() || ends.size() > 2 || item.front() == '-' || item.back() == '-')
      fail(key, "'" + item + "' is not a coordinate or a range a-b");
    int32_t first = parse_coordinate(key, ends.front());
    int32_t last = parse_coordinate(key, ends.back());
    if (last < first) fail(key, "range '" + item + "' runs backwards");
    for (int32_t v = first; v <= last; ++v) values.push_back(v);
  }
  if (values.empty()) fail(key, "empty coordinate list");
  return values;
}

// One hop from `at` towards `to` along x (or y) on a mesh without wraparound.
Node step_toward(Node at, Node to, bool along_x) {
  if (along_x) return {at.x + (to.x > at.x ? 1 : -1), at.y};
  return {at.x, at.y + (to.y > at.y ? 1 : -1)};
}

std::string node_name(Node n) {
  return std::to_string(n.x) + "-" + std::to_string(n.y);
}

}  // namespace

std::vector<Node> parse_rectangles(const std::string& key, const std::string& text) {
  std::vector<Node> nodes;
  for (const std::string& rectangle : split(text, ";")) {
    std::vector<std::string> axes = split(rectangle, " \t");
    if (axes.size() != 2 || axes[0].rfind("x=", 0) != 0 || axes[1].rfind("y=", 0) != 0)
      fail(key, "'" + rectangle + "' is not of the form 'x=RANGES y=RANGES'");
    for (int32_t y : parse_ranges(key, axes[1].substr(2)))
      for (int32_t x : parse_ranges(key, axes[0].substr(2))) nodes.push_back({x, y});
  }
  if (nodes.empty()) fail(key, "lists no tiles");
  std::sort(nodes.begin(), nodes.end(),
            [](Node a, Node b) { return a.y != b.y ? a.y < b.y : a.x < b.x; });
  auto twice = std::adjacent_find(nodes.begin(), nodes.end());
  if (twice != nodes.end()) fail(key, "tile " + node_name(*twice) + " is listed twice");
  return nodes;
}

std::vector<std::vector<Node>> parse_controllers(const std::string& key, const std::string& text) {
  std::vector<std::vector<Node>> controllers;
  for (const std::string& controller : split(text, ";")) {
    std::vector<Node> tiles;
    for (const std::string& tile : split(controller, " \t,")) {
      std::vector<std::string> xy = split(tile, "-");
      if (xy.size() != 2 || tile.front() == '-' || tile.back() == '-')
        fail(key, "'" + tile + "' is not a tile 'x-y'");
      tiles.push_back({parse_coordinate(key, xy[0]), parse_coordinate(key, xy[1])});
    }
    if (!tiles.empty()) controllers.push_back(std::move(tiles));
  }
  if (controllers.empty()) fail(key, "lists no controllers");
  return controllers;
}

MeshTopology::MeshTopology(const sdk::Params& params) : TableTopology(params, 1e9, kFlopsPerCycle) {
  read_params(params);
  check_placement();
  build();
}

void MeshTopology::read_params(const sdk::Params& params) {
  name_ = params.get_string("name", "wormhole-n150");
  grid_x_ = get_count(params, "grid.x_size", 10, kMaxGridSide);
  grid_y_ = get_count(params, "grid.y_size", 12, kMaxGridSide);
  cores_ = parse_rectangles("workers", params.get_string("workers", kWorkers));
  dram_tiles_ = parse_controllers("dram.tiles", params.get_string("dram.tiles", kDramTiles));
  dram_bytes_per_s_ = params.get_double("dram.bytes_per_s", 288e9, 0.0);
  dram_capacity_bytes_ = static_cast<uint64_t>(params.get_double("dram.capacity_bytes", 12e9, 0.0));
  link_bytes_per_s_ = params.get_double("link_bytes_per_cycle", 32, 0.0) * clock_hz_;
  core_link_bytes_per_s_ = link_bytes_per_s_;
  hop_latency_s_ = params.get_non_negative("hop_latency_cycles", 9) / clock_hz_;
  niu_latency_s_ = params.get_non_negative("niu_latency_cycles", 5) / clock_hz_;
  sram_bytes_per_core_ = static_cast<uint64_t>(params.get_int("sram_bytes_per_core", 1499136, 1));
  sram_bytes_per_cycle_ = params.get_double("sram.bytes_per_cycle", 256, 0.0);
  wraparound_ = params.get_bool("wraparound", true);
  if (params.has("chips"))
    fail("chips", "expected a map {x: X, y: Y} of chips along each axis, got '" +
                      params.get_string("chips", "") + "'");
  chips_x_ = get_count(params, "chips.x", 1, kMaxChips);
  chips_y_ = get_count(params, "chips.y", 1, kMaxChips);
  if (chips_x_ * chips_y_ > kMaxChips)
    fail("chips", std::to_string(chips_x_) + "x" + std::to_string(chips_y_) + " = " +
                      std::to_string(chips_x_ * chips_y_) + " chips is more than " +
                      std::to_string(kMaxChips) + " ('chips.x' x 'chips.y')");
  eth_links_ = get_count(params, "ethernet.links_per_pair", 1, 4);
  eth_bytes_per_s_ = params.get_double("ethernet.bytes_per_s", 12.5e9, 0.0);
  eth_latency_s_ = params.get_non_negative("ethernet.latency_s", 1e-6);
  std::string eth_tiles = params.get_string("ethernet.tiles", kEthTiles);
  if (chips() > 1) {
    for (const auto& tiles : parse_controllers("ethernet.tiles", eth_tiles))
      eth_tiles_.insert(eth_tiles_.end(), tiles.begin(), tiles.end());
    if (eth_tiles_.size() < kDirections * eth_links_)
      fail("ethernet.tiles", "lists " + std::to_string(eth_tiles_.size()) +
                                 " tiles; 4 directions x " + std::to_string(eth_links_) +
                                 " links per pair ('ethernet.links_per_pair') need " +
                                 std::to_string(kDirections * eth_links_));
    eth_tiles_.resize(kDirections * eth_links_);
  }
  fold(get_count(params, "tile_edge", 1, kMaxTileEdge));
}

// Each simulated core a block of `edge` x `edge` of the fabric's (blocks.hpp), the per-PE values
// of the chip file scaled to a block.
void MeshTopology::fold(uint32_t edge) {
  if (edge == 1) return;
  if (chips() > 1)
    fail("tile_edge", "folds one fabric into blocks; set it on a single chip (chips 1x1)");
  Fabric blocks = fold_into_blocks({grid_x_, grid_y_, cores_, dram_tiles_}, edge);
  grid_x_ = blocks.grid_x;
  grid_y_ = blocks.grid_y;
  cores_ = std::move(blocks.cores);
  dram_tiles_ = std::move(blocks.dram_tiles);
  pes_per_core_ = edge * edge;
  sram_bytes_per_core_ *= pes_per_core_;
  sram_bytes_per_cycle_ *= pes_per_core_;
  // A block's PEs reach its router as one: k^2 PE links, but what leaves the block crosses the 4k
  // PE links of its edge, so its injection is the lesser (k = 1: the PE's own link).
  core_link_bytes_per_s_ = link_bytes_per_s_ * std::min(edge * edge, 4 * edge);
  link_bytes_per_s_ *= edge;
  hop_latency_s_ *= edge;
}

double MeshTopology::peak_flops_per_s(tessera_dtype dtype) const {
  return TableTopology::peak_flops_per_s(dtype) * pes_per_core_;
}

// Every tile inside the grid, and no grid node holding two tiles.
void MeshTopology::check_placement() const {
  std::map<std::pair<int32_t, int32_t>, std::string> owner;
  auto claim = [&](const std::string& key, Node n, const std::string& who) {
    if (n.x >= static_cast<int32_t>(grid_x_) || n.y >= static_cast<int32_t>(grid_y_))
      fail(key, "tile " + node_name(n) + " is outside the " + std::to_string(grid_x_) + "x" +
                    std::to_string(grid_y_) + " grid ('grid.x_size', 'grid.y_size')");
    auto [it, fresh] = owner.emplace(std::make_pair(n.x, n.y), who);
    if (!fresh) fail(key, "tile " + node_name(n) + " is already used by " + it->second);
  };
  for (Node n : cores_) claim("workers", n, "a worker");
  for (size_t c = 0; c < dram_tiles_.size(); ++c)
    for (Node n : dram_tiles_[c]) claim("dram.tiles", n, "DRAM controller " + std::to_string(c));
  for (Node n : eth_tiles_) claim("ethernet.tiles", n, "an Ethernet port");
}

void MeshTopology::build() {
  for (uint32_t y = 0; y < grid_y_; ++y)
    for (uint32_t x = 0; x < grid_x_; ++x)
      grid_.push_back({static_cast<int32_t>(x), static_cast<int32_t>(y)});
  add_endpoints();
  add_links();
  add_ethernet();
}

void MeshTopology::add_endpoints() {
  // One chip keeps the single-chip names; more prefix the chip ("chip3 tensix 1-1").
  auto prefix = [&](uint32_t chip) {
    return chips() > 1 ? "chip" + std::to_string(chip) + " " : std::string();
  };
  for (uint32_t chip = 0; chip < chips(); ++chip)
    for (Node n : cores_)
      tables_.add_endpoint(
          flat_endpoint(TESSERA_ENDPOINT_CORE, chip, n.x, n.y, sram_bytes_per_core_),
          prefix(chip) + "tensix " + node_name(n));
  first_dram_ = tables_.num_endpoints();
  for (uint32_t chip = 0; chip < chips(); ++chip)
    for (size_t c = 0; c < dram_tiles_.size(); ++c) {
      Node first = dram_tiles_[c].front();
      // The chip's DRAM rate is its controllers' together, each serving its share of the
      // channels: that share is the controller's own rate, whichever of its tiles a stream uses.
      tessera_endpoint controller =
          flat_endpoint(TESSERA_ENDPOINT_MEMORY_CONTROLLER, chip, first.x, first.y,
                        dram_capacity_bytes_ / dram_tiles_.size());
      controller.bytes_per_s = dram_bytes_per_s_ / static_cast<double>(dram_tiles_.size());
      tables_.add_endpoint(controller, prefix(chip) + "dram " + std::to_string(c));
    }
  first_router_ = tables_.num_endpoints();
  for (uint32_t chip = 0; chip < chips(); ++chip)
    for (uint32_t noc = 0; noc < nocs(); ++noc)
      for (Node n : grid_)
        tables_.add_endpoint(flat_endpoint(TESSERA_ENDPOINT_ROUTER, chip, n.x, n.y, 0),
                             prefix(chip) + "noc" + std::to_string(noc) + " r(" +
                                 std::to_string(n.x) + "," + std::to_string(n.y) + ")");
  first_port_ = tables_.num_endpoints();
  if (chips() == 1) return;
  static constexpr const char* kDirectionNames[kDirections] = {"+x", "-x", "+y", "-y"};
  ports_.assign(static_cast<size_t>(chips()) * kDirections * eth_links_, kNoPort);
  for (uint32_t chip = 0; chip < chips(); ++chip)
    for (uint32_t dir = 0; dir < kDirections; ++dir) {
      if (neighbour_chip(chip, dir) == kNoPort) continue;
      for (uint32_t link = 0; link < eth_links_; ++link) {
        uint32_t tile = dir * eth_links_ + link;
        Node n = eth_tiles_[tile];
        ports_[(chip * kDirections + dir) * eth_links_ + link] =
            tables_.add_endpoint(flat_endpoint(TESSERA_ENDPOINT_CHIP_PORT, chip, n.x, n.y, 0),
                                 prefix(chip) + "eth " + node_name(n) + " (" +
                                     kDirectionNames[dir] + " link " + std::to_string(link) + ")");
        port_tile_.push_back(tile);
      }
    }
}

uint32_t MeshTopology::neighbour_chip(uint32_t chip, uint32_t dir) const {
  uint32_t cx = chip % chips_x_, cy = chip / chips_x_;
  switch (dir) {
    case 0:
      return cx + 1 < chips_x_ ? chip + 1 : kNoPort;
    case 1:
      return cx > 0 ? chip - 1 : kNoPort;
    case 2:
      return cy + 1 < chips_y_ ? chip + chips_x_ : kNoPort;
    default:
      return cy > 0 ? chip - chips_x_ : kNoPort;
  }
}

// A DRAM tile joins its routers as a core's NIU does, at the NoC link rate; the controller's
// own rate (its endpoint's bytes_per_s) bounds what all its tiles deliver together.
void MeshTopology::add_links() {
  auto controllers = static_cast<uint32_t>(dram_tiles_.size());
  for (uint32_t chip = 0; chip < chips(); ++chip)
    for (uint32_t noc = 0; noc < nocs(); ++noc) {
      first_niu_link_.push_back(tables_.num_links());
      for (uint32_t c = 0; c < cores_.size(); ++c)
        tables_.add_duplex(core(chip, c), router(chip, noc, cores_[c]), TESSERA_LINK_ON_CHIP, noc,
                           core_link_bytes_per_s_, niu_latency_s_);
      for (uint32_t c = 0; c < controllers; ++c)
        for (Node tile : dram_tiles_[c])
          tables_.add_duplex(dram_controller(chip * controllers + c), router(chip, noc, tile),
                             TESSERA_LINK_MEMORY, noc, link_bytes_per_s_, niu_latency_s_);
      first_grid_link_.push_back(tables_.num_links());
      if (!wraparound_) {
        add_mesh_links(chip);
        continue;
      }
      // A 1-wide axis has no links along it (they would loop back to the same router).
      for (Node n : grid_) {
        if (grid_x_ > 1)
          tables_.add_link(router(chip, noc, n), router(chip, noc, neighbour(noc, n, true)),
                           TESSERA_LINK_ON_CHIP, noc, link_bytes_per_s_, hop_latency_s_);
        if (grid_y_ > 1)
          tables_.add_link(router(chip, noc, n), router(chip, noc, neighbour(noc, n, false)),
                           TESSERA_LINK_ON_CHIP, noc, link_bytes_per_s_, hop_latency_s_);
      }
    }
}

// Without wraparound: the links towards +x, -x, +y, then -y, each over the nodes with a neighbour
// that way in grid order, so grid_link finds a hop's link by arithmetic.
void MeshTopology::add_mesh_links(uint32_t chip) {
  auto w = static_cast<int32_t>(grid_x_), h = static_cast<int32_t>(grid_y_);
  for (Node step : {Node{1, 0}, Node{-1, 0}, Node{0, 1}, Node{0, -1}})
    for (Node n : grid_) {
      Node next{n.x + step.x, n.y + step.y};
      if (next.x < 0 || next.x >= w || next.y < 0 || next.y >= h) continue;
      tables_.add_link(router(chip, 0, n), router(chip, 0, next), TESSERA_LINK_ON_CHIP, 0,
                       link_bytes_per_s_, hop_latency_s_);
    }
}

// Each port joins its eth tile's routers like a core's NIU, and the port facing it on the
// neighbouring chip (same parallel link, opposite direction) by one Ethernet link each way.
void MeshTopology::add_ethernet() {
  for (uint32_t p = first_port_; p < tables_.num_endpoints(); ++p) {
    uint32_t chip = tables_.endpoint(p).chip;
    Node tile = eth_tiles_[port_tile_[p - first_port_]];
    for (uint32_t noc = 0; noc < nocs(); ++noc)
      tables_.add_duplex(p, router(chip, noc, tile), TESSERA_LINK_ON_CHIP, noc, link_bytes_per_s_,
                         niu_latency_s_);
  }
  for (uint32_t chip = 0; chip < chips(); ++chip)
    for (uint32_t dir : {0u, 2u}) {  // +x and +y: each neighbouring pair once
      uint32_t other = neighbour_chip(chip, dir);
      if (other == kNoPort) continue;
      for (uint32_t link = 0; link < eth_links_; ++link)
        tables_.add_duplex(port(chip, dir, link), port(other, dir + 1, link),
                           TESSERA_LINK_CHIP_TO_CHIP, 0, eth_bytes_per_s_, eth_latency_s_);
    }
}

tessera_topology_info MeshTopology::info() const {
  return make_info(tables_, static_cast<uint32_t>(cores_.size()) * chips(), chips(), 0,
                   sram_bytes_per_core_, sram_bytes_per_cycle_ * clock_hz_, clock_hz_, name_);
}

// NoC0 moves towards +x/+y, NoC1 towards -x/-y, wrapping around the torus.
Node MeshTopology::neighbour(uint32_t noc, Node n, bool along_x) const {
  int32_t step = noc == 0 ? 1 : -1;
  auto wrap = [](int32_t v, uint32_t size) {
    auto side = static_cast<int32_t>(size);
    return (v + side) % side;
  };
  if (along_x) return {wrap(n.x + step, grid_x_), n.y};
  return {n.x, wrap(n.y + step, grid_y_)};
}

uint32_t MeshTopology::hops(uint32_t noc, Node from, Node to) const {
  if (!wraparound_) return static_cast<uint32_t>(std::abs(to.x - from.x) + std::abs(to.y - from.y));
  auto forward = [](int32_t a, int32_t b, uint32_t size) {
    return static_cast<uint32_t>((b - a + static_cast<int32_t>(size)) % static_cast<int32_t>(size));
  };
  if (noc == 0) return forward(from.x, to.x, grid_x_) + forward(from.y, to.y, grid_y_);
  return forward(to.x, from.x, grid_x_) + forward(to.y, from.y, grid_y_);
}

MeshTopology::Attachment MeshTopology::attachment(uint32_t endpoint) const {
  auto cores = static_cast<uint32_t>(cores_.size());
  auto controllers = static_cast<uint32_t>(dram_tiles_.size());
  if (endpoint < first_dram_)
    return {std::span<const Node>(&cores_[endpoint % cores], 1), -1, false, endpoint / cores};
  if (endpoint < first_router_) {
    uint32_t index = endpoint - first_dram_;
    return {dram_tiles_[index % controllers], -1, false, index / controllers};
  }
  if (endpoint < first_port_) {
    uint32_t index = endpoint - first_router_;
    return {std::span<const Node>(&grid_[index % grid_nodes()], 1),
            static_cast<int>(index / grid_nodes() % nocs()), true, index / grid_nodes() / nocs()};
  }
  return {std::span<const Node>(&eth_tiles_[port_tile_[endpoint - first_port_]], 1), -1, false,
          tables_.endpoint(endpoint).chip};
}

// Fewest router hops over every NoC and tile pair the endpoints allow; ties keep the first found,
// so NoC0 beats NoC1 and earlier-listed DRAM tiles beat later ones.
MeshTopology::Choice MeshTopology::choose(const Attachment& src, const Attachment& dst) const {
  Choice best;
  best.chip = src.chip;
  uint32_t best_hops = std::numeric_limits<uint32_t>::max();
  for (uint32_t noc = 0; noc < nocs(); ++noc) {
    if ((src.noc >= 0 && src.noc != static_cast<int>(noc)) ||
        (dst.noc >= 0 && dst.noc != static_cast<int>(noc)))
      continue;
    for (Node from : src.nodes)
      for (Node to : dst.nodes)
        if (uint32_t h = hops(noc, from, to); h < best_hops)
          best_hops = h, best = {src.chip, noc, from, to};
  }
  if (best_hops == std::numeric_limits<uint32_t>::max())
    throw sdk::invalid_argument("no route between routers of different NoCs");
  return best;
}

// A hop's link is found by arithmetic: a lookup in the table of link ends per hop dominated
// planning on wafer-sized grids. On a torus add_links lays each NoC's router links out node by
// node in grid order, the x link (where the grid is wider than 1) before the y link; without
// wraparound add_mesh_links lays them out by direction, each block indexed by the link's lower end.
uint32_t MeshTopology::grid_link(uint32_t chip, uint32_t noc, Node at, Node next) const {
  uint32_t first = first_grid_link_[chip * nocs() + noc];
  bool along_x = at.x != next.x;
  if (wraparound_) {
    uint32_t per_node = (grid_x_ > 1 ? 1u : 0u) + (grid_y_ > 1 ? 1u : 0u);
    uint32_t offset = along_x || grid_x_ == 1 ? 0u : 1u;
    return first + node_index(at) * per_node + offset;
  }
  uint32_t x_links = (grid_x_ - 1) * grid_y_;  // per direction
  uint32_t y_links = grid_x_ * (grid_y_ - 1);
  if (along_x)
    return first + (next.x > at.x ? 0 : x_links) + static_cast<uint32_t>(at.y) * (grid_x_ - 1) +
           static_cast<uint32_t>(std::min(at.x, next.x));
  return first + 2 * x_links + (next.y > at.y ? 0 : y_links) +
         static_cast<uint32_t>(std::min(at.y, next.y)) * grid_x_ + static_cast<uint32_t>(at.x);
}

// Router-to-router links of one dimension-ordered route (tt-npe order: NoC0 x then y, NoC1 y
// then x; without wraparound x then y on the one NoC, each hop towards the destination).
void MeshTopology::walk(const Choice& choice, std::vector<uint32_t>& links) const {
  Node at = choice.from;
  auto move = [&](bool along_x) {
    Node next =
        wraparound_ ? neighbour(choice.noc, at, along_x) : step_toward(at, choice.to, along_x);
    links.push_back(grid_link(choice.chip, choice.noc, at, next));
    at = next;
  };
  bool x_first = choice.noc == 0;
  for (int pass = 0; pass < 2; ++pass, x_first = !x_first) {
    if (x_first)
      while (at.x != choice.to.x) move(true);
    else
      while (at.y != choice.to.y) move(false);
  }
}

void MeshTopology::segment(uint32_t src, uint32_t dst, std::vector<uint32_t>& links) const {
  if (src == dst) return;
  Attachment from = attachment(src);
  Attachment to = attachment(dst);
  Choice choice = choose(from, to);
  // A core's NIU links sit two by two (to its router, back) at the head of each NoC's links.
  auto cores = static_cast<uint32_t>(cores_.size());
  uint32_t first_niu = first_niu_link_[choice.chip * nocs() + choice.noc];
  if (src < first_dram_)
    links.push_back(first_niu + 2 * (src % cores));
  else if (!from.is_router)
    links.push_back(tables_.link_between(src, router(choice.chip, choice.noc, choice.from)));
  walk(choice, links);
  if (dst < first_dram_)
    links.push_back(first_niu + 2 * (dst % cores) + 1);
  else if (!to.is_router)
    links.push_back(tables_.link_between(router(choice.chip, choice.noc, choice.to), dst));
}

void MeshTopology::route(uint32_t src, uint32_t dst, std::vector<uint32_t>& links) const {
  if (src == dst) return;
  uint32_t chip = attachment(src).chip;
  uint32_t last = attachment(dst).chip;
  if (chip == last) return segment(src, dst, links);
  uint32_t link = (src + dst) % eth_links_;
  uint32_t at = src;
  while (chip != last) {
    uint32_t cx = chip % chips_x_, tx = last % chips_x_;
    uint32_t dir = cx < tx ? 0 : cx > tx ? 1 : chip < last ? 2 : 3;
    uint32_t out = port(chip, dir, link);
    uint32_t next = neighbour_chip(chip, dir);
    uint32_t in = port(next, dir ^ 1, link);
    segment(at, out, links);
    links.push_back(tables_.link_between(out, in));
    at = in;
    chip = next;
  }
  segment(at, dst, links);
}

}  // namespace tessera::plugins::mesh
