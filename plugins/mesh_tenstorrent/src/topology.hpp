// Tenstorrent Wormhole B0 / Blackhole-like chips: Tensix cores and DRAM controller tiles on a 2D
// grid of routers, with two physically separate NoCs, both 2D tori (wraparound links).
// Sources: the team reference notes (shared/reference/hardware-facts.md in the workspace) §2 ([V]
// vendor, [W] Tenstorrent docs, [D] derived). Coordinates come from tt-metal
// `tt_metal/soc_descriptors/wormhole_b0_80_arch.yaml` and `blackhole_140_arch.yaml` @049e2880 (NoC
// coordinates, "x-y").
//
// Model: every grid node has one ROUTER endpoint per NoC. A tile's NIU (network interface) has a
// link to and from its node's router on each NoC (`network` = NoC id). NoC0 routers link to their
// +x and +y neighbours, NoC1 routers to their -x and -y neighbours, wrapping around the edges.
// Routing is dimension-ordered as in tt-npe's `route()`: NoC0 goes +x then +y, NoC1 goes -y then
// -x. A route takes the NoC with fewer router hops (tie: NoC0), so core -> core is hops + 2 links.
//
// DRAM: one MEMORY_CONTROLLER endpoint per controller (the unit a memory model serves), linked
// to the routers of each of its NoC tiles. A route to or from a controller uses the tile and NoC
// with the fewest hops (ties: NoC0, then the tile listed first). Each tile's link carries
// min(NoC link, controller bandwidth): one stream cannot beat either; several streams into one
// controller through different tiles are bounded by the memory model, not here.
//
// Endpoints, in order: cores (sorted by y, then x, like tt-metal's functional_workers), DRAM
// controllers (in `dram.tiles` order; x, y = first tile), NoC0 routers, NoC1 routers (each
// y-major over the grid). Router pairs on different NoCs have no route (they never exchange data).
//
// Parameters (topology section of a chip file; defaults build a Wormhole B0 n150):
//   name                     chip name for reports                         "wormhole-n150"
//   grid.x_size, grid.y_size NoC grid [Y]                                  10, 12
//   workers                  Tensix tiles: rectangles "x=RANGES y=RANGES" separated by ';',
//                            RANGES = "a" or "a-b" items joined by ','      "x=1-4,6-9 y=1-5,7-11"
//   dram.tiles               NoC tiles of each DRAM controller: controllers separated by ';',
//                            tiles "x-y" (tt-metal notation) by spaces     6 x 3 tiles [Y]
//   dram.bytes_per_s         all controllers together, split evenly [W]    288e9
//   dram.capacity_bytes      all controllers together, split evenly (their 12e9
//                            endpoints' memory_bytes): n150 12 GB GDDR6 [W]
//   clock_hz                 AI clock [W]                                  1e9
//   link_bytes_per_cycle     NoC link, one flit per cycle [V]              32
//   hop_latency_cycles       router -> router [V]                          9
//   niu_latency_cycles       NIU <-> router [V]                            5
//   sram_bytes_per_core      L1 per Tensix [Y]                             1499136
//   sram.bytes_per_cycle     L1: 16 banks x 128 bit per cycle [D]          256
//   flops_per_cycle.<dtype>  per Tensix: FPU 8x16 x 16x16 = 4096 FLOP/cycle at LoFi (one fidelity
//                            phase) for fp16, bf16, fp8, bfp8 (block fp8 weights, unpacked to
//                            the FPU's format); HiFi2/3/4 divide by 2/3/4 (set the value to model
//                            them); fp32 on the 32-lane SFPU = 64 [V]; others 0
#pragma once

#include <span>
#include <string>
#include <tessera/sdk/interfaces.hpp>
#include <tessera/sdk/params.hpp>
#include <vector>

#include "common/topology_builder.hpp"

namespace tessera::plugins::mesh {

struct Node {
  int32_t x = 0;
  int32_t y = 0;
  bool operator==(const Node&) const = default;
};

// Parsers for the compact coordinate parameters; they throw errors naming `key`.
std::vector<Node> parse_rectangles(const std::string& key, const std::string& text);
std::vector<std::vector<Node>> parse_controllers(const std::string& key, const std::string& text);

class MeshTopology final : public TableTopology {
 public:
  explicit MeshTopology(const sdk::Params& params);

  tessera_topology_info info() const override;
  void route(uint32_t src, uint32_t dst, std::vector<uint32_t>& links) const override;

  uint32_t router(uint32_t noc, Node node) const {
    return first_router_ + noc * grid_nodes() + node_index(node);
  }
  uint32_t dram_controller(uint32_t index) const { return first_dram_ + index; }
  // Router hops from `from` to `to` on `noc`, wraparound included.
  uint32_t hops(uint32_t noc, Node from, Node to) const;
  // The next router from `n` on `noc` along x (or y).
  Node neighbour(uint32_t noc, Node n, bool along_x) const;

 private:
  // Where an endpoint joins the NoCs: its grid nodes, and the one NoC it is bound to (routers).
  struct Attachment {
    std::span<const Node> nodes;
    int noc = -1;  // -1: both
    bool is_router = false;
  };
  struct Choice {
    uint32_t noc = 0;
    Node from, to;
  };

  void read_params(const sdk::Params& params);
  void check_placement() const;
  void build();
  void add_endpoints();
  void add_links();
  uint32_t grid_nodes() const { return grid_x_ * grid_y_; }
  uint32_t node_index(Node n) const { return static_cast<uint32_t>(n.y) * grid_x_ + n.x; }
  Attachment attachment(uint32_t endpoint) const;
  Choice choose(const Attachment& src, const Attachment& dst) const;
  void walk(const Choice& choice, std::vector<uint32_t>& links) const;

  std::string name_;
  uint32_t grid_x_ = 0;
  uint32_t grid_y_ = 0;
  std::vector<Node> cores_;
  std::vector<std::vector<Node>> dram_tiles_;
  double dram_bytes_per_s_ = 0;       // all controllers
  uint64_t dram_capacity_bytes_ = 0;  // all controllers
  double link_bytes_per_s_ = 0;
  double hop_latency_s_ = 0;
  double niu_latency_s_ = 0;
  uint64_t sram_bytes_per_core_ = 0;
  double sram_bytes_per_cycle_ = 0;

  std::vector<Node> grid_;  // node_index -> Node, so a router's attachment can point into it
  uint32_t first_dram_ = 0;
  uint32_t first_router_ = 0;
};

}  // namespace tessera::plugins::mesh
