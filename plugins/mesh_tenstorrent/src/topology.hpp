// Tenstorrent Wormhole B0 / Blackhole-like chips: Tensix cores and DRAM controller tiles on a 2D
// grid of routers, with two physically separate NoCs, both 2D tori (wraparound links); or, for
// Cerebras-like wafers, one router per node in a mesh without wraparound.
// Sources: tagged per value below ([V] vendor, [W] Tenstorrent docs, [D] derived, [Y] the SoC
// descriptors). Coordinates come from tt-metal
// `tt_metal/soc_descriptors/wormhole_b0_80_arch.yaml` and `blackhole_140_arch.yaml` @049e2880 (NoC
// coordinates, "x-y").
//
// Model: every grid node has one ROUTER endpoint per NoC. A tile's NIU (network interface) has a
// link to and from its node's router on each NoC (`network` = NoC id). NoC0 routers link to their
// +x and +y neighbours, NoC1 routers to their -x and -y neighbours, wrapping around the edges.
// Routing is dimension-ordered as in tt-npe's `route()`: NoC0 goes +x then +y, NoC1 goes -y then
// -x. A route takes the NoC with fewer router hops (tie: NoC0), so core -> core is hops + 2 links.
//
// Without wraparound (`wraparound: false`, the Cerebras wafers: "a two-dimensional rectangular
// mesh" whose router links "to the routers of the four nearest neighboring PEs", Cerebras SDK
// docs, "A Conceptual View", sdk.cerebras.net/computing-with-cerebras): ONE router per node
// (endpoints and links of NoC 0 only), linked to each neighbour inside the grid, no link across an
// edge. Not two one-way NoCs as above: a route turning from +x (NoC0) to -y (NoC1) would cross a
// link between a node's two routers, shared by all traffic turning there, which the wafer's one
// router per PE does not have. A route goes x first, then y [assumed: the SDK configures each
// colour's routes router by router; no source found for a fixed order], each hop towards the
// destination, so router hops = |dx| + |dy|; every router reaches every other.
//
// DRAM: one MEMORY_CONTROLLER endpoint per controller (the unit a memory model serves), linked
// to the routers of each of its NoC tiles. A route to or from a controller uses the tile and NoC
// with the fewest hops (ties: NoC0, then the tile listed first). Each tile's link carries
// min(NoC link, controller bandwidth): one stream cannot beat either; several streams into one
// controller through different tiles are bounded by the memory model, not here.
//
// Multi-chip (chips.x * chips.y > 1): every chip is a copy of the grid above (cores, DRAM
// controllers, routers), the chips a 2D mesh without wraparound [assumed: no source found that
// the n300/T3000/Galaxy boxes wrap around]. Each Ethernet link is a CHIP_PORT endpoint at each
// end, on an eth tile (NIU links to that tile's router on both NoCs, like a core), with one
// CHIP_TO_CHIP link each way to the port on the neighbouring chip. Direction d (0 +x, 1 -x, 2 +y,
// 3 -y) uses `ethernet.tiles` entries d*L .. d*L+L-1 (L = links_per_pair): a chip's ports
// towards +x are on the first L tiles, its +x neighbour's ports back (-x) on the next L. Which
// eth channel faces which neighbour on real boards is not modelled [assumed]. A route to
// another chip: in-chip route to an eth port, Ethernet hop(s) chip to chip (x first, then y),
// in-chip routes through each transit chip, then to dst; of the L parallel links it takes link
// (src + dst) mod L, so pairs spread evenly and deterministically.
//
// Endpoints, in order: cores (per chip sorted by y, then x, like tt-metal's functional_workers;
// without wraparound every other row right to left, so consecutive cores are neighbours;
// chip-major), DRAM controllers (per chip in `dram.tiles` order, x, y = first tile; chip-major),
// routers (per chip: NoC0 then NoC1 (NoC0 only without wraparound), each y-major over the grid;
// chip-major), then the Ethernet ports (only with more than one chip). Chip c is at column
// c % chips.x, row c / chips.x. Router pairs on different NoCs of one chip have no route (they
// never exchange data). A 1x1 machine is exactly the single chip: same endpoints, names, links and
// routes. The planner prices partial results merged between chips on the Ethernet links
// (Machine::chip_link_bytes_per_s).
//
// Parameters (topology section of a chip file; defaults build a Wormhole B0 n150):
//   name                     chip name for reports                         "wormhole-n150"
//   grid.x_size, grid.y_size NoC grid [Y]                                  10, 12
//   workers                  Tensix tiles: rectangles "x=RANGES y=RANGES" separated by ';',
//                            RANGES = "a" or "a-b" items joined by ','      "x=1-4,6-9 y=1-5,7-11"
//   dram.tiles               NoC tiles of each DRAM controller: controllers separated by ';',
//                            tiles "x-y" (tt-metal notation) by spaces     6 x 3 tiles [Y]
//   dram.bytes_per_s         one chip's controllers together, split evenly 288e9
//                            (their endpoints' bytes_per_s; each tile's  [W]
//                            links run at the NoC rate)
//   dram.capacity_bytes      one chip's controllers together, split evenly 12e9
//                            (their endpoints' memory_bytes): 12 GB GDDR6 [W]
//   chips.x, chips.y         the chip mesh, a map `chips: {x: X, y: Y}`;   1, 1
//                            each >= 1 and x*y <= 128 (kMaxChips: four
//                            32-chip Galaxies; tables stay small)
//   ethernet.links_per_pair  links joining two neighbouring chips, 1..4    1
//                            (16 eth tiles over 4 directions)
//   ethernet.bytes_per_s     per link per direction: 100 GbE [I] = 12.5    12.5e9
//                            B/cycle in tt-npe [V]
//   ethernet.latency_s       one Ethernet traversal, port to port [U]      1e-6
//   ethernet.tiles           eth tiles "x-y" in channel order, read only   the 16 `eth`
//                            with more than one chip [Y]                   tiles [Y]
//   wraparound               true: two NoCs of 2-D tori (Tenstorrent);     true
//                            false: one router per node, a mesh without
//                            wraparound (Cerebras), also per chip of a
//                            chip mesh
//   clock_hz                 AI clock [W]                                  1e9
//   link_bytes_per_cycle     NoC link, one flit per cycle [V]              32
//   hop_latency_cycles       router -> router [V]                          9
//   niu_latency_cycles       NIU <-> router [V]                            5
//   sram_bytes_per_core      L1 per Tensix [Y]                             1499136
//   sram.bytes_per_cycle     L1: 16 banks x 128 bit per cycle [D]          256
//   tile_edge                each simulated core a k x k block of the      1
//                            fabric's (blocks.hpp), 1..64, one chip only;
//                            the values above stay per PE, in PE coordinates
//   flops_per_cycle.<dtype>  per Tensix: FPU 8x16 x 16x16 = 4096 FLOP/cycle at LoFi (one fidelity
//                            phase) for fp16, bf16, fp8, bfp8, bfp4, bfp2 (block weights,
//                            unpacked to the FPU's format); HiFi2/3/4 divide by 2/3/4 (set the
//                            value to model them); fp32 = 1024: the FPU at HiFi4, its
//                            full-precision mode (the rate cost_model.hpp times fp32 matmuls at)
//                            [V]; others 0
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
  double peak_flops_per_s(tessera_dtype dtype) const override;
  void route(uint32_t src, uint32_t dst, std::vector<uint32_t>& links) const override;

  static constexpr uint32_t kMaxChips = 128;
  static constexpr uint32_t kNoPort = UINT32_MAX;

  uint32_t router(uint32_t chip, uint32_t noc, Node node) const {
    return first_router_ + (chip * nocs() + noc) * grid_nodes() + node_index(node);
  }
  uint32_t router(uint32_t noc, Node node) const { return router(0, noc, node); }
  // Controller `index` over all chips (chip-major).
  uint32_t dram_controller(uint32_t index) const { return first_dram_ + index; }
  uint32_t core(uint32_t chip, uint32_t index) const {
    return chip * static_cast<uint32_t>(cores_.size()) + index;
  }
  uint32_t chips() const { return chips_x_ * chips_y_; }
  // NoCs per chip: two tori, or the one router of a mesh without wraparound.
  uint32_t nocs() const { return wraparound_ ? 2 : 1; }
  // The link from endpoint a to endpoint b (they must be linked).
  uint32_t link_between(uint32_t a, uint32_t b) const { return tables_.link_between(a, b); }
  // The Ethernet port of `chip` towards direction `dir` (0 +x, 1 -x, 2 +y, 3 -y), parallel link
  // `link`; kNoPort where the chip has no neighbour that way.
  uint32_t port(uint32_t chip, uint32_t dir, uint32_t link) const {
    return ports_.empty() ? kNoPort : ports_[(chip * 4 + dir) * eth_links_ + link];
  }
  // Router hops from `from` to `to` on `noc`: around the torus, or |dx| + |dy| without wraparound.
  uint32_t hops(uint32_t noc, Node from, Node to) const;
  // The next router from `n` on `noc` along x (or y) of a torus.
  Node neighbour(uint32_t noc, Node n, bool along_x) const;

 private:
  // Where an endpoint joins the NoCs: its grid nodes, and the one NoC it is bound to (routers).
  struct Attachment {
    std::span<const Node> nodes;
    int noc = -1;  // -1: both
    bool is_router = false;
    uint32_t chip = 0;
  };
  struct Choice {
    uint32_t chip = 0;
    uint32_t noc = 0;
    Node from, to;
  };

  void read_params(const sdk::Params& params);
  void fold(uint32_t edge);
  void check_placement() const;
  void build();
  void add_endpoints();
  void add_links();
  void add_mesh_links(uint32_t chip);
  void add_ethernet();
  // The chip beside `chip` in direction `dir`, or kNoPort at the edge of the chip mesh.
  uint32_t neighbour_chip(uint32_t chip, uint32_t dir) const;
  // The in-chip route between two endpoints of one chip.
  void segment(uint32_t src, uint32_t dst, std::vector<uint32_t>& links) const;
  uint32_t grid_nodes() const { return grid_x_ * grid_y_; }
  uint32_t node_index(Node n) const { return static_cast<uint32_t>(n.y) * grid_x_ + n.x; }
  Attachment attachment(uint32_t endpoint) const;
  Choice choose(const Attachment& src, const Attachment& dst) const;
  void walk(const Choice& choice, std::vector<uint32_t>& links) const;
  // The link from router `at` of `noc` on `chip` to its neighbour `next`.
  uint32_t grid_link(uint32_t chip, uint32_t noc, Node at, Node next) const;

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
  uint32_t pes_per_core_ =
      1;  // tile_edge squared: the fabric's cores one simulated core stands for
  bool wraparound_ = true;
  // A core's NIU links: the NoC link rate, or a block's injection under `tile_edge` (fold).
  double core_link_bytes_per_s_ = 0;
  uint32_t chips_x_ = 1;
  uint32_t chips_y_ = 1;
  uint32_t eth_links_ = 1;
  double eth_bytes_per_s_ = 0;
  double eth_latency_s_ = 0;
  std::vector<Node> eth_tiles_;

  std::vector<Node> grid_;  // node_index -> Node, so a router's attachment can point into it
  uint32_t first_dram_ = 0;
  uint32_t first_router_ = 0;
  uint32_t first_port_ = 0;
  std::vector<uint32_t> first_niu_link_;  // per chip and NoC: core 0's link to its router
  std::vector<uint32_t>
      first_grid_link_;          // per chip and NoC (chip * nocs() + noc): its first router link
  std::vector<uint32_t> ports_;  // (chip * 4 + dir) * eth_links_ + link -> endpoint
  std::vector<uint32_t> port_tile_;  // endpoint - first_port_ -> index into eth_tiles_
};

}  // namespace tessera::plugins::mesh
