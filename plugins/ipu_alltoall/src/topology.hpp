// Graphcore IPU Mk2 (GC200)-like chips: tiles exchange data through an all-to-all, non-blocking
// exchange, HBM controllers hang off the exchange, and chips connect all-to-all by IPU-Links.
// Sources: tagged per value below ([V] vendor code or documents, [S] secondary, [D] derived, [U] no
// source: a guess to replace when a measurement turns up); chips/ipu-mk2.yaml names each source.
//
// Model (kind alltoall): each chip's exchange is one ROUTER endpoint. Every tile has a link to and
// from it, so tile -> tile on one chip is 2 links and across chips 3 (tile, exchange, exchange,
// tile).
//
// Model (kind mesh, a design-space point [U] for Elk §6.4's all-to-all vs mesh comparison): the
// same tiles on a rows x columns 2D mesh per chip, numbered column by column: tile t at
// x = t / rows, y = t % rows, so runs of consecutive cores are bands of columns that the HBM
// traffic entering at the west and east edges must cross. Each
// tile is its own router, linked both ways to its N/S/E/W neighbours; routes are dimension-ordered
// (X, then Y). HBM controllers alternate between the west (even controllers) and east edge (odd);
// the j-th of an edge's k controllers sits at row (2j+1)*rows/(2k) and links both ways to
// `hbm.attach_rows` consecutive edge tiles centred at that row, every link at the controller's full
// rate (the planner counts a controller's fastest link once, so it never delivers more than its
// rate). A controller enters or leaves the mesh at its attach tile nearest in rows to the other
// end. The chip's ROUTER endpoint is a gateway port beside the middle tile of row 0 (one mesh link
// each way) and carries the IPU-Links: a route to another chip goes to the gateway tile, the port,
// the other chip's port and on from its gateway tile.
//
// Endpoints, in order: tiles (chip-major: chip c's tile t is core c*cores_per_chip + t), then one
// exchange (mesh: port) per chip, then the HBM controllers (chip-major). alltoall: a tile's x is
// its tile index, an HBM controller's x the tile it sits beside, y is -1 throughout (the exchange
// has no geometry). mesh: x, y of a tile are its mesh coordinates, those of a port or HBM
// controller the tile it sits beside (port: middle of row 0; controller: its edge tile at its row).
//
// Parameters (topology section of a chip file; defaults build a 1-chip Mk2 with 4 TB/s HBM3E):
//   name                      chip name for reports                        "ipu-mk2"
//   kind                      on-chip network: alltoall (the exchange) or  alltoall
//                             mesh (the same tiles on a 2D mesh)
//   chips                     IPUs, all-to-all linked, 1..64               1
//   cores_per_chip            tiles per IPU [S]                            1472
//   sram_bytes_per_core       In-Processor-Memory per tile, 624 KiB [D]    638976
//   clock_hz                  tile clock, ≈1.33 GHz [D]                    1.325e9
//   sram.bytes_per_cycle      one tile's memory port: 128-bit load [D]     16
//   exchange.bytes_per_cycle  tile <-> exchange, each way [V poplibs]      4
//                             (alltoall only)
//   exchange.latency_cycles   one traversal tile <-> exchange [U guess]    30
//                             (alltoall only)
//   hbm.controllers           HBM controllers per chip, >= 1               4
//   hbm.bytes_per_s           HBM bandwidth per chip, split evenly over    4e12
//                             its controllers (HBM3E-class, [U] design point)
//   hbm.capacity_bytes        off-chip memory per chip, split evenly over  103079215104
//                             its controllers (reported as their          (4 x 24 GiB)
//                             endpoints' memory_bytes): 4 HBM3E 8-high stacks of 24 GiB [S/U]
//   hbm.latency_cycles        controller <-> exchange (mesh: <-> edge      30
//                             tile) traversal [U guess]
//   hbm.placement             list, per controller: tile index it sits     evenly spread:
//                             beside (reported as the endpoint's x);       tile (2i+1)*cores/(2n)
//                             alltoall only: kind mesh rejects it (its
//                             controllers sit on the west and east edges)
//   hbm.attach_rows           mesh: edge tiles each controller links to,   every row
//                             clamped to the rows [U]                      (its PHY spans the edge)
//   mesh.columns              mesh: tiles per mesh row; must divide        as square as possible
//                             cores_per_chip (checked with either kind)    with columns >= rows:
//                                                                          1472 -> 46 x 32 rows
//   mesh.link_bytes_per_cycle mesh: tile <-> neighbour, each way [U]       32
//   mesh.latency_cycles       mesh: one hop tile -> neighbour [U]          2
//   chip_link.bytes_per_s     exchange -> exchange, per direction per      160e9 / (chips - 1)
//                             chip pair (10 IPU-Links, 320 GB/s per chip [S], counted as both
//                             directions, shared evenly among the other chips)
//   chip_link.latency_s       one IPU-Link traversal [U guess: Jia et al. 250e-9
//                             measured 4-7.7x on-chip latency]
//   flops_per_cycle.<dtype>   per tile; dtype: fp32 fp16 bf16 fp8 int8     fp32 32 [D]
//                             int32 fp64 bfp8                              fp16 128 [D], others 0
//                             (Mk2 has no fp8 or block fp8: weights are not stored in them)
#pragma once

#include <string>
#include <tessera/sdk/interfaces.hpp>
#include <tessera/sdk/params.hpp>
#include <vector>

#include "common/topology_builder.hpp"

namespace tessera::plugins::ipu {

class IpuTopology final : public TableTopology {
 public:
  enum class Kind { alltoall, mesh };

  explicit IpuTopology(const sdk::Params& params);

  tessera_topology_info info() const override;
  void route(uint32_t src, uint32_t dst, std::vector<uint32_t>& links) const override;

  // The chip's ROUTER endpoint: its exchange (alltoall) or its gateway port (mesh).
  uint32_t exchange_of_chip(uint32_t chip) const { return first_exchange_ + chip; }
  uint32_t hbm_controller(uint32_t chip, uint32_t controller) const {
    return first_hbm_ + chip * hbm_controllers_ + controller;
  }
  // Mesh geometry (kind mesh): the tile at column x, row y of `chip`, and the tile beside the port.
  uint32_t mesh_rows() const { return cores_per_chip_ / mesh_columns_; }
  uint32_t mesh_columns() const { return mesh_columns_; }
  uint32_t mesh_tile(uint32_t chip, uint32_t x, uint32_t y) const {
    return chip * cores_per_chip_ + x * mesh_rows() + y;
  }
  uint32_t gateway_tile(uint32_t chip) const { return mesh_tile(chip, mesh_columns_ / 2, 0); }

 private:
  struct Position {
    int32_t x = -1, y = -1;
  };
  // Where a mesh HBM controller sits: the same on every chip.
  struct MeshSite {
    uint32_t column = 0, row = 0;
    uint32_t first_attach_row = 0;  // of hbm_attach_rows_ consecutive rows
  };

  void read_params(const sdk::Params& params);
  void read_mesh_params(const sdk::Params& params);
  std::vector<Position> controller_positions(const sdk::Params& params);
  std::vector<int64_t> read_placement(const sdk::Params& params) const;
  void place_mesh_controllers();
  void add_endpoints(const std::vector<Position>& controllers);
  void add_alltoall_links();
  void add_mesh_links();
  void add_chip_links();
  void index_alltoall_routes();
  void route_alltoall(uint32_t src, uint32_t dst, std::vector<uint32_t>& links) const;
  void route_mesh(uint32_t src, uint32_t dst, std::vector<uint32_t>& links) const;
  uint32_t chip_of(uint32_t endpoint) const { return tables_.endpoint(endpoint).chip; }
  uint32_t mesh_row_of(uint32_t endpoint) const;
  uint32_t mesh_entry(uint32_t endpoint, uint32_t toward_row) const;
  void walk_mesh(uint32_t from, uint32_t to, std::vector<uint32_t>& path) const;
  void walk_xy(uint32_t from_tile, uint32_t to_tile, std::vector<uint32_t>& path) const;

  std::string name_;
  Kind kind_ = Kind::alltoall;
  uint32_t chips_ = 1;
  uint32_t cores_per_chip_ = 0;
  uint64_t sram_bytes_per_core_ = 0;
  double sram_bytes_per_cycle_ = 0;
  double exchange_bytes_per_cycle_ = 0;
  double exchange_latency_s_ = 0;
  uint32_t hbm_controllers_ = 0;
  double hbm_bytes_per_s_ = 0;       // per chip
  uint64_t hbm_capacity_bytes_ = 0;  // per chip
  double hbm_latency_s_ = 0;
  double chip_link_bytes_per_s_ = 0;
  double chip_link_latency_s_ = 0;
  uint32_t mesh_columns_ = 1;
  double mesh_link_bytes_per_s_ = 0;
  double mesh_latency_s_ = 0;
  uint32_t hbm_attach_rows_ = 0;  // clamped to the mesh rows

  uint32_t first_exchange_ = 0;
  uint32_t first_hbm_ = 0;
  std::vector<MeshSite> mesh_sites_;  // per controller, kind mesh only
  // Kind alltoall only, by endpoint: its exchange (itself for an exchange), its links to and from
  // it; and by chip pair (from x chips + to): the chip link.
  std::vector<uint32_t> hub_, up_link_, down_link_, chip_link_;
};

}  // namespace tessera::plugins::ipu
