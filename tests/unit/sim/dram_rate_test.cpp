// Wormhole n150's DRAM streamed as tt-metal's DRAM microbenchmark streams it: one long read spread
// over every core, on the preset as shipped. The card's GDDR6 is 288 GB/s (12 GT/s, 192 bits) and
// tt-metal's reader kernels reach 267 GB/s of it (tenstorrent/tt-metal
// tech_reports/Saturating_DRAM_bandwidth/Saturating_DRAM_bandwidth.md @0c3eb94a, "DRAM
// u-benchmark"). The preset has no DRAM model, so the simulator streams at what the controllers'
// routes to the 64 user cores carry: 279.3 GB/s, 97 % of the controllers' own 288 (on all 80
// cores of the die it was the whole 288), within 4 % of the Machine's rate. The 7.9 % the
// hardware loses to refresh, row switches and NoC request traffic is not modelled, so the
// tolerance against the measured figure is 10 %.
#include <gtest/gtest.h>

#include "framework/chip/chip_models.hpp"
#include "framework/sim/simulate.hpp"

namespace tessera::sim {
namespace {

constexpr double kMeasuredBytesPerS = 267e9;  // tt-metal DRAM u-benchmark, n150 at 12 GT/s
constexpr double kCardBytesPerS = 288e9;      // GDDR6 12 GT/s x 192 bit

ChipModels wormhole_n150() {
  PluginSet plugins{Registry::discover(plugin_search_dirs({}))};
  auto manifest = plugins.library("mesh_tenstorrent");
  EXPECT_TRUE(manifest.ok()) << manifest.error().message;
  ChipSpec spec = resolve_chip("wormhole-n150", (*manifest)->manifest()).take();
  return build_chip(plugins, spec).take();
}

// One op whose only work is a preload of `bytes` (the engine spreads it over every core from
// every controller of its chip); its preload span is the stream's time.
codegen::Program one_read(double bytes) {
  codegen::Program p;
  codegen::ProgramOp op;
  op.name = "dram_read";
  op.preload_bytes = bytes;
  p.ops.push_back(op);
  p.instructions.push_back({codegen::InstructionKind::preload_async, 0, 1});
  p.instructions.push_back({codegen::InstructionKind::execute, 0, 2});
  return p;
}

TEST(DramRate, WormholeN150StreamsAtTheCardsRateWithinTenPercentOfTtMetal) {
  ChipModels chip = wormhole_n150();
  EXPECT_DOUBLE_EQ(chip.machine.hbm_bytes_per_s, kCardBytesPerS);
  const double bytes = 1e9;  // long enough that the route latency (~µs) vanishes
  SimResult r = simulate_program(one_read(bytes), chip, {}).take();
  ASSERT_EQ(r.ops.size(), 1u);
  double simulated = bytes / (r.ops[0].preload_end_s - r.ops[0].preload_start_s);
  EXPECT_NEAR(simulated, 279.27e9, 0.01e9) << "the routes from the controllers to the user cores";
  EXPECT_NEAR(simulated, chip.machine.hbm_bytes_per_s, 0.04 * chip.machine.hbm_bytes_per_s)
      << "planner and simulator read one rate";
  EXPECT_NEAR(simulated, kMeasuredBytesPerS, 0.10 * kMeasuredBytesPerS);
}

}  // namespace
}  // namespace tessera::sim
