// Graphcore IPU Mk2 (GC200)-like chips: tiles exchange data through an all-to-all, non-blocking
// exchange, HBM controllers hang off the exchange, and chips connect all-to-all by IPU-Links.
// Sources are in the team reference notes (shared/reference/hardware-facts.md in the workspace) §1 ([S] secondary, [D] derived,
// [U] no source: a guess to replace when a measurement turns up).
//
// Model: each chip's exchange is one ROUTER endpoint. Every tile has a link to and from it, so
// tile -> tile on one chip is 2 links and across chips 3 (tile, exchange, exchange, tile).
//
// Endpoints, in order: tiles (chip-major: chip c's tile t is core c*cores_per_chip + t), then one
// exchange per chip, then the HBM controllers (chip-major). A tile's x is its tile index; an HBM
// controller's x is the tile it sits beside. y is -1 throughout (the exchange has no geometry).
//
// Parameters (topology section of a chip file; defaults build a 1-chip Mk2 with 4 TB/s HBM3E):
//   name                      chip name for reports                        "ipu-mk2"
//   chips                     IPUs, all-to-all linked, 1..64               1
//   cores_per_chip            tiles per IPU [S]                            1472
//   sram_bytes_per_core       In-Processor-Memory per tile, 624 KiB [D]    638976
//   clock_hz                  tile clock, ≈1.33 GHz [D]                    1.325e9
//   sram.bytes_per_cycle      one tile's memory port: 128-bit load [D]     16
//   exchange.bytes_per_cycle  tile <-> exchange, each way [V poplibs]      4
//   exchange.latency_cycles   one traversal tile <-> exchange [U guess]    30
//   hbm.controllers           HBM controllers per chip, >= 1               4
//   hbm.bytes_per_s           HBM bandwidth per chip, split evenly over    4e12
//                             its controllers (HBM3E-class, [U] design point)
//   hbm.latency_cycles        controller <-> exchange traversal [U guess]  30
//   hbm.placement             list, per controller: tile index it sits     evenly spread:
//                             beside (reported as the endpoint's x)        tile (2i+1)*cores/(2n)
//   chip_link.bytes_per_s     exchange -> exchange, per direction per      160e9 / (chips - 1)
//                             chip pair (10 IPU-Links, 320 GB/s per chip [S], counted as both
//                             directions, shared evenly among the other chips)
//   chip_link.latency_s       one IPU-Link traversal [U guess: Jia et al. 250e-9
//                             measured 4-7.7x on-chip latency]
//   flops_per_cycle.<dtype>   per tile; dtype: fp32 fp16 bf16 fp8 int8     fp32 32 [D]
//                             int32 fp64                                   fp16 128 [D], others 0
#pragma once

#include <string>
#include <tessera/sdk/interfaces.hpp>
#include <tessera/sdk/params.hpp>
#include <vector>

#include "common/topology_builder.hpp"

namespace tessera::plugins::ipu {

class IpuTopology final : public TableTopology {
 public:
  explicit IpuTopology(const sdk::Params& params);

  tessera_topology_info info() const override;
  void route(uint32_t src, uint32_t dst, std::vector<uint32_t>& links) const override;

  uint32_t exchange_of_chip(uint32_t chip) const { return first_exchange_ + chip; }
  uint32_t hbm_controller(uint32_t chip, uint32_t controller) const {
    return first_hbm_ + chip * hbm_controllers_ + controller;
  }

 private:
  void read_params(const sdk::Params& params);
  std::vector<int64_t> read_placement(const sdk::Params& params) const;
  void build(const std::vector<int64_t>& placement);

  std::string name_;
  uint32_t chips_ = 1;
  uint32_t cores_per_chip_ = 0;
  uint64_t sram_bytes_per_core_ = 0;
  double sram_bytes_per_cycle_ = 0;
  double exchange_bytes_per_cycle_ = 0;
  double exchange_latency_s_ = 0;
  uint32_t hbm_controllers_ = 0;
  double hbm_bytes_per_s_ = 0;  // per chip
  double hbm_latency_s_ = 0;
  double chip_link_bytes_per_s_ = 0;
  double chip_link_latency_s_ = 0;

  uint32_t first_exchange_ = 0;
  uint32_t first_hbm_ = 0;
};

}  // namespace tessera::plugins::ipu
