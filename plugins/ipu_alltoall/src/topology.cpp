#include "topology.hpp"

#include <algorithm>

namespace tessera::plugins::ipu {

namespace {

// Mk2 AMP units [D from 62.5 and 250 TFLOPS over 1472 tiles at ≈1.33 GHz]; no bf16/fp8/int
// figures are published for GC200, so those stay 0 (cannot compute) rather than guessed.
constexpr FlopsPerCycle::Table kFlopsPerCycle = {32, 128, 0, 0, 0, 0, 0, 0};

// An all-to-all among more chips than a pod is not how IPUs are cabled; the cap also keeps the
// chips² chip links modest.
constexpr int64_t kMaxChips = 64;
constexpr int64_t kMaxCoresPerChip = 1 << 16;
// Endpoint and link tables grow with the tile count; this keeps them under ~50 MB (about twice
// that for a mesh: four links per tile, not two).
constexpr int64_t kMaxTiles = 1 << 18;
constexpr int64_t kMaxControllers = 1024;

// The most square rows x columns == cores with columns >= rows: rows is the largest divisor of
// `cores` not above its square root.
uint32_t squarest_columns(uint32_t cores) {
  uint32_t rows = 1;
  for (uint32_t d = 1; uint64_t{d} * d <= cores; ++d)
    if (cores % d == 0) rows = d;
  return cores / rows;
}

IpuTopology::Kind parse_kind(const std::string& text) {
  if (text == "alltoall") return IpuTopology::Kind::alltoall;
  if (text == "mesh") return IpuTopology::Kind::mesh;
  throw sdk::invalid_argument("parameter 'kind': expected alltoall or mesh, got '" + text + "'");
}

}  // namespace

IpuTopology::IpuTopology(const sdk::Params& params)
    : TableTopology(params, 1.325e9, kFlopsPerCycle) {
  read_params(params);
  add_endpoints(controller_positions(params));
  if (kind_ == Kind::mesh)
    add_mesh_links();
  else
    add_alltoall_links();
  add_chip_links();
  if (kind_ == Kind::alltoall) index_alltoall_routes();
}

void IpuTopology::read_params(const sdk::Params& params) {
  name_ = params.get_string("name", "ipu-mk2");
  kind_ = parse_kind(params.get_string("kind", "alltoall"));
  chips_ = get_count(params, "chips", 1, kMaxChips);
  cores_per_chip_ = get_count(params, "cores_per_chip", 1472, kMaxCoresPerChip);
  if (int64_t{chips_} * cores_per_chip_ > kMaxTiles)
    throw sdk::invalid_argument("parameters 'chips' x 'cores_per_chip': more than " +
                                std::to_string(kMaxTiles) + " tiles");
  sram_bytes_per_core_ =
      static_cast<uint64_t>(params.get_int("sram_bytes_per_core", 624 * 1024, 1));
  sram_bytes_per_cycle_ = params.get_double("sram.bytes_per_cycle", 16, 0.0);
  exchange_bytes_per_cycle_ = params.get_double("exchange.bytes_per_cycle", 4, 0.0);
  exchange_latency_s_ = params.get_non_negative("exchange.latency_cycles", 30) / clock_hz_;
  hbm_controllers_ = get_count(params, "hbm.controllers", 4, kMaxControllers);
  hbm_bytes_per_s_ = params.get_double("hbm.bytes_per_s", 4e12, 0.0);
  hbm_latency_s_ = params.get_non_negative("hbm.latency_cycles", 30) / clock_hz_;
  hbm_capacity_bytes_ =
      static_cast<uint64_t>(params.get_double("hbm.capacity_bytes", 4.0 * 24 * (1 << 30), 0.0));
  // Two chips get all ten IPU-Links between them; more chips share them evenly.
  double per_pair_default = 160e9 / std::max<uint32_t>(1, chips_ - 1);
  chip_link_bytes_per_s_ = params.get_double("chip_link.bytes_per_s", per_pair_default, 0.0);
  chip_link_latency_s_ = params.get_non_negative("chip_link.latency_s", 250e-9);
  read_mesh_params(params);
}

// Read with either kind, so a sweep can flip `kind` alone without the mesh keys turning unknown.
void IpuTopology::read_mesh_params(const sdk::Params& params) {
  mesh_columns_ =
      get_count(params, "mesh.columns", squarest_columns(cores_per_chip_), kMaxCoresPerChip);
  if (cores_per_chip_ % mesh_columns_ != 0)
    throw sdk::invalid_argument("parameter 'mesh.columns': " + std::to_string(mesh_columns_) +
                                " does not divide the " + std::to_string(cores_per_chip_) +
                                " tiles of a chip ('cores_per_chip')");
  mesh_link_bytes_per_s_ = params.get_double("mesh.link_bytes_per_cycle", 32, 0.0) * clock_hz_;
  mesh_latency_s_ = params.get_non_negative("mesh.latency_cycles", 2) / clock_hz_;
  hbm_attach_rows_ =
      std::min(get_count(params, "hbm.attach_rows", mesh_rows(), kMaxCoresPerChip), mesh_rows());
}

// Each controller's reported x, y; for a mesh also fills mesh_sites_.
std::vector<IpuTopology::Position> IpuTopology::controller_positions(const sdk::Params& params) {
  std::vector<Position> positions;
  if (kind_ == Kind::alltoall) {
    for (int64_t tile : read_placement(params))
      positions.push_back({static_cast<int32_t>(tile), -1});
    return positions;
  }
  if (params.has("hbm.placement.0"))
    throw sdk::invalid_argument(
        "parameter 'hbm.placement': applies to kind alltoall only; kind mesh places the HBM "
        "controllers along the west and east edges");
  place_mesh_controllers();
  for (const MeshSite& site : mesh_sites_)
    positions.push_back({static_cast<int32_t>(site.column), static_cast<int32_t>(site.row)});
  return positions;
}

std::vector<int64_t> IpuTopology::read_placement(const sdk::Params& params) const {
  std::vector<int64_t> placement = params.get_int_list("hbm.placement", 0, cores_per_chip_ - 1);
  if (placement.empty()) {
    // Centre of each of n equal stretches of tiles, so no controller is favoured.
    for (uint32_t i = 0; i < hbm_controllers_; ++i)
      placement.push_back((2 * int64_t{i} + 1) * cores_per_chip_ / (2 * int64_t{hbm_controllers_}));
  } else if (placement.size() != hbm_controllers_) {
    throw sdk::invalid_argument(
        "parameter 'hbm.placement': lists " + std::to_string(placement.size()) + " tiles for " +
        std::to_string(hbm_controllers_) + " controllers ('hbm.controllers')");
  }
  return placement;
}

// Even controllers on the west edge, odd ones on the east (HBM stacks sit on both sides of a
// die), each edge's controllers at the centres of equal stretches of its rows.
void IpuTopology::place_mesh_controllers() {
  uint32_t rows = mesh_rows();
  for (uint32_t c = 0; c < hbm_controllers_; ++c) {
    bool east = c % 2 == 1;
    uint64_t on_edge = east ? hbm_controllers_ / 2 : (hbm_controllers_ + 1) / 2;
    auto row = static_cast<uint32_t>((2 * uint64_t{c / 2} + 1) * rows / (2 * on_edge));
    uint32_t first = std::min(row - std::min(row, hbm_attach_rows_ / 2), rows - hbm_attach_rows_);
    mesh_sites_.push_back({east ? mesh_columns_ - 1 : 0, row, first});
  }
}

void IpuTopology::add_endpoints(const std::vector<Position>& controllers) {
  bool mesh = kind_ == Kind::mesh;
  for (uint32_t chip = 0; chip < chips_; ++chip)
    for (uint32_t tile = 0; tile < cores_per_chip_; ++tile) {
      Position at = mesh ? Position{static_cast<int32_t>(tile / mesh_rows()),
                                    static_cast<int32_t>(tile % mesh_rows())}
                         : Position{static_cast<int32_t>(tile), -1};
      tables_.add_endpoint(
          flat_endpoint(TESSERA_ENDPOINT_CORE, chip, at.x, at.y, sram_bytes_per_core_),
          "chip" + std::to_string(chip) + ".tile" + std::to_string(tile));
    }
  first_exchange_ = tables_.num_endpoints();
  Position port = mesh ? Position{static_cast<int32_t>(mesh_columns_ / 2), 0} : Position{};
  for (uint32_t chip = 0; chip < chips_; ++chip)
    tables_.add_endpoint(flat_endpoint(TESSERA_ENDPOINT_ROUTER, chip, port.x, port.y, 0),
                         "chip" + std::to_string(chip) + (mesh ? ".port" : ".exchange"));
  first_hbm_ = tables_.num_endpoints();
  for (uint32_t chip = 0; chip < chips_; ++chip)
    for (uint32_t c = 0; c < hbm_controllers_; ++c)
      tables_.add_endpoint(flat_endpoint(TESSERA_ENDPOINT_MEMORY_CONTROLLER, chip, controllers[c].x,
                                         controllers[c].y, hbm_capacity_bytes_ / hbm_controllers_),
                           "chip" + std::to_string(chip) + ".hbm" + std::to_string(c));
}

void IpuTopology::add_alltoall_links() {
  double exchange_bytes_per_s = exchange_bytes_per_cycle_ * clock_hz_;
  for (uint32_t core = 0; core < first_exchange_; ++core)
    tables_.add_duplex(core, exchange_of_chip(core / cores_per_chip_), TESSERA_LINK_ON_CHIP, 0,
                       exchange_bytes_per_s, exchange_latency_s_);
  double controller_bytes_per_s = hbm_bytes_per_s_ / hbm_controllers_;
  for (uint32_t chip = 0; chip < chips_; ++chip)
    for (uint32_t c = 0; c < hbm_controllers_; ++c)
      tables_.add_duplex(hbm_controller(chip, c), exchange_of_chip(chip), TESSERA_LINK_MEMORY, 0,
                         controller_bytes_per_s, hbm_latency_s_);
}

// Every attach link carries the controller's whole rate: a controller streams through whichever
// tile is nearest its data, and the planner counts its fastest link once (chip_models.cpp).
void IpuTopology::add_mesh_links() {
  double controller_bytes_per_s = hbm_bytes_per_s_ / hbm_controllers_;
  for (uint32_t chip = 0; chip < chips_; ++chip) {
    for (uint32_t y = 0; y < mesh_rows(); ++y)
      for (uint32_t x = 0; x < mesh_columns_; ++x) {
        if (x + 1 < mesh_columns_)
          tables_.add_duplex(mesh_tile(chip, x, y), mesh_tile(chip, x + 1, y), TESSERA_LINK_ON_CHIP,
                             0, mesh_link_bytes_per_s_, mesh_latency_s_);
        if (y + 1 < mesh_rows())
          tables_.add_duplex(mesh_tile(chip, x, y), mesh_tile(chip, x, y + 1), TESSERA_LINK_ON_CHIP,
                             0, mesh_link_bytes_per_s_, mesh_latency_s_);
      }
    tables_.add_duplex(exchange_of_chip(chip), gateway_tile(chip), TESSERA_LINK_ON_CHIP, 0,
                       mesh_link_bytes_per_s_, mesh_latency_s_);
    for (uint32_t c = 0; c < hbm_controllers_; ++c) {
      const MeshSite& site = mesh_sites_[c];
      for (uint32_t row = site.first_attach_row; row < site.first_attach_row + hbm_attach_rows_;
           ++row)
        tables_.add_duplex(hbm_controller(chip, c), mesh_tile(chip, site.column, row),
                           TESSERA_LINK_MEMORY, 0, controller_bytes_per_s, hbm_latency_s_);
    }
  }
}

void IpuTopology::add_chip_links() {
  for (uint32_t from = 0; from < chips_; ++from)
    for (uint32_t to = 0; to < chips_; ++to)
      if (from != to)
        tables_.add_link(exchange_of_chip(from), exchange_of_chip(to), TESSERA_LINK_CHIP_TO_CHIP, 0,
                         chip_link_bytes_per_s_, chip_link_latency_s_);
}

tessera_topology_info IpuTopology::info() const {
  return make_info(tables_, chips_ * cores_per_chip_, chips_, 0, sram_bytes_per_core_,
                   sram_bytes_per_cycle_ * clock_hz_, clock_hz_, name_);
}

void IpuTopology::route(uint32_t src, uint32_t dst, std::vector<uint32_t>& links) const {
  if (src == dst) return;
  if (kind_ == Kind::mesh)
    route_mesh(src, dst, links);
  else
    route_alltoall(src, dst, links);
}

// The planner asks for every candidate's routes (millions per model), so the three links a route
// can take are looked up once here instead of hashed per route.
void IpuTopology::index_alltoall_routes() {
  const uint32_t endpoints = tables_.num_endpoints();
  hub_.resize(endpoints);
  up_link_.assign(endpoints, 0);
  down_link_.assign(endpoints, 0);
  for (uint32_t e = 0; e < endpoints; ++e) {
    bool is_exchange = e >= first_exchange_ && e < first_hbm_;
    hub_[e] = is_exchange ? e : exchange_of_chip(chip_of(e));
    if (is_exchange) continue;
    up_link_[e] = tables_.link_between(e, hub_[e]);
    down_link_[e] = tables_.link_between(hub_[e], e);
  }
  chip_link_.assign(size_t{chips_} * chips_, 0);
  for (uint32_t from = 0; from < chips_; ++from)
    for (uint32_t to = 0; to < chips_; ++to)
      if (from != to)
        chip_link_[size_t{from} * chips_ + to] =
            tables_.link_between(exchange_of_chip(from), exchange_of_chip(to));
}

// Every endpoint but an exchange hangs off its chip's exchange, so a route is at most
// endpoint -> own exchange -> other exchange -> endpoint.
void IpuTopology::route_alltoall(uint32_t src, uint32_t dst, std::vector<uint32_t>& links) const {
  uint32_t from = hub_.at(src);
  uint32_t to = hub_.at(dst);
  if (src != from) links.push_back(up_link_[src]);
  if (from != to)
    links.push_back(chip_link_[size_t{from - first_exchange_} * chips_ + (to - first_exchange_)]);
  if (to != dst) links.push_back(down_link_[dst]);
}

// Chips meet only at their ports, so a route to another chip walks to its own port first.
void IpuTopology::route_mesh(uint32_t src, uint32_t dst, std::vector<uint32_t>& links) const {
  std::vector<uint32_t> path{src};
  uint32_t src_chip = chip_of(src);
  uint32_t dst_chip = chip_of(dst);
  if (src_chip == dst_chip) {
    walk_mesh(src, dst, path);
  } else {
    walk_mesh(src, exchange_of_chip(src_chip), path);
    path.push_back(exchange_of_chip(dst_chip));
    walk_mesh(exchange_of_chip(dst_chip), dst, path);
  }
  tables_.append_walk(path, links);
}

// Appends the endpoints after `from` up to `to` (both on one chip): into the mesh at from's tile,
// XY to to's tile, out. A controller uses its attach tile nearest in rows to the other end.
void IpuTopology::walk_mesh(uint32_t from, uint32_t to, std::vector<uint32_t>& path) const {
  if (from == to) return;
  uint32_t in = mesh_entry(from, mesh_row_of(to));
  uint32_t out = mesh_entry(to, mesh_row_of(from));
  if (in != from) path.push_back(in);
  walk_xy(in, out, path);
  if (out != to) path.push_back(to);
}

// Every mesh endpoint reports the row it sits at or beside as its y.
uint32_t IpuTopology::mesh_row_of(uint32_t endpoint) const {
  return static_cast<uint32_t>(tables_.endpoint(endpoint).y);
}

// The tile where `endpoint` joins its chip's mesh on the way to or from a tile in `toward_row`.
uint32_t IpuTopology::mesh_entry(uint32_t endpoint, uint32_t toward_row) const {
  if (endpoint < first_exchange_) return endpoint;
  uint32_t chip = chip_of(endpoint);
  if (endpoint < first_hbm_) return gateway_tile(chip);
  const MeshSite& site = mesh_sites_[(endpoint - first_hbm_) % hbm_controllers_];
  uint32_t last_row = site.first_attach_row + hbm_attach_rows_ - 1;
  return mesh_tile(chip, site.column, std::clamp(toward_row, site.first_attach_row, last_row));
}

// Appends the tiles after `from_tile` up to `to_tile`, X first, then Y.
void IpuTopology::walk_xy(uint32_t from_tile, uint32_t to_tile, std::vector<uint32_t>& path) const {
  const tessera_endpoint& to = tables_.endpoint(to_tile);
  auto x = static_cast<uint32_t>(tables_.endpoint(from_tile).x);
  auto y = static_cast<uint32_t>(tables_.endpoint(from_tile).y);
  auto to_x = static_cast<uint32_t>(to.x);
  auto to_y = static_cast<uint32_t>(to.y);
  while (x != to_x) {
    x = x < to_x ? x + 1 : x - 1;
    path.push_back(mesh_tile(to.chip, x, y));
  }
  while (y != to_y) {
    y = y < to_y ? y + 1 : y - 1;
    path.push_back(mesh_tile(to.chip, x, y));
  }
}

}  // namespace tessera::plugins::ipu
