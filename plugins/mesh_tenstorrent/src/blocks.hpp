// A fabric of many small cores simulated as a coarser mesh: each simulated core stands for a
// k × k block of the fabric's cores (`tile_edge: k` in the topology and cost_model sections).
// Used for wafer-scale fabrics (chips/wse2.yaml: 752,976 PEs), whose per-PE routes make planning
// and simulation take hours; a block keeps the fabric's totals (SRAM, compute, the bandwidth
// across any cut along the grid, the hop latency across a distance) and loses what happens
// inside a block (its traffic is free, its PEs share one SRAM). docs/validation.md, "Wafer
// scale", gives the error this costs on a wafer small enough to simulate PE by PE.
//
// The chip file keeps per-PE values and PE coordinates; the fold maps them:
//   - along each axis the workers' span [lo, hi] is cut into blocks of k (its length must be a
//     multiple of k); the PEs before lo fold into one node column (row), those after hi into one;
//   - every worker node must hold k × k worker PEs (no hole, no partial block);
//   - DRAM tiles move to the node their PE folds into (a fabric of one chip: no Ethernet);
//   - per node: SRAM, its bandwidth and compute × k², link bandwidth × k (k PE links cross each
//     block edge), hop latency × k (a hop crosses k routers), the core's link to its router ×
//     min(k², 4k) (its PEs inject side by side, and what leaves crosses the block's 4k edge links).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "topology.hpp"

namespace tessera::plugins::mesh {

struct Fabric {
  uint32_t grid_x = 0, grid_y = 0;
  std::vector<Node> cores;
  std::vector<std::vector<Node>> dram_tiles;
};

// `fabric` in blocks of `edge` × `edge` (edge 1: unchanged). Throws sdk::invalid_argument naming
// 'tile_edge' when the workers do not fill whole blocks.
Fabric fold_into_blocks(const Fabric& fabric, uint32_t edge);

}  // namespace tessera::plugins::mesh
