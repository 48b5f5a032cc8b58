// The simulator on the in-tree chip families' real topologies (all-to-all, 2D torus, tree), read
// through their plugins: programs finish, bytes are conserved, nothing beats the HBM bound, and
// runs are deterministic — per core and with core groups.
#include <gtest/gtest.h>

#include <string>

#include "framework/chip/chip_models.hpp"
#include "framework/sim/engine.hpp"

namespace tessera::sim {
namespace {

using codegen::InstructionKind;

codegen::Program program(double preload_bytes) {
  codegen::Program p;
  for (int i = 0; i < 4; ++i) {
    codegen::ProgramOp op;
    op.op = i;
    op.name = "op" + std::to_string(i);
    op.preload_bytes = preload_bytes * (i + 1);
    op.distribute_bytes = preload_bytes / 2;
    op.compute_s = 20e-6;
    op.shift_bytes = preload_bytes / 4;
    op.hbm_write_bytes = i == 3 ? preload_bytes / 8 : 0;
    op.sync_s = 1e-6;
    p.ops.push_back(op);
    p.instructions.push_back({InstructionKind::preload_async, i, 2 * i + 1});
    p.instructions.push_back({InstructionKind::execute, i, 2 * i + 2});
  }
  return p;
}

struct Family {
  const char* target;
  const char* chip;
};

class Topologies : public ::testing::TestWithParam<Family> {};

TEST_P(Topologies, ProgramsFinishConserveBytesAndRespectTheHbmBound) {
  PluginSet plugins{Registry::discover(plugin_search_dirs({}))};
  auto manifest = plugins.library(GetParam().target);
  ASSERT_TRUE(manifest.ok()) << manifest.error().message;
  ChipSpec spec = resolve_chip(GetParam().chip, (*manifest)->manifest()).take();
  Topology topology = build_topology(plugins, spec).take();
  ChipGraph chip = read_chip_graph(topology).take();
  const double hbm_bytes_per_s = 50e9, preload_bytes = 4e6;
  codegen::Program p = program(preload_bytes);
  EngineConfig config;
  config.hbm_bytes_per_s = [=](double) -> Result<double> { return hbm_bytes_per_s; };
  for (uint32_t groups : {chip.cores, 4u}) {
    SimNetwork network = SimNetwork::build(chip, groups, 1).take();
    SimResult r = run_program(network, p, config).take();
    SimNetwork again = SimNetwork::build(chip, groups, 1).take();
    EXPECT_EQ(run_program(again, p, config).take().latency_s, r.latency_s) << "deterministic";
    double preloaded = preload_bytes * (1 + 2 + 3 + 4);
    EXPECT_NEAR(r.bytes_by_kind[static_cast<size_t>(FlowKind::preload)], preloaded,
                1e-6 * preloaded);
    EXPECT_GE(r.latency_s, preloaded / (hbm_bytes_per_s * network.controllers().size()));
    for (size_t i = 1; i < r.ops.size(); ++i)
      EXPECT_GE(r.ops[i].execute_start_s, r.ops[i - 1].execute_end_s) << "rule 1";
    for (size_t i = 0; i < r.ops.size(); ++i)
      EXPECT_GE(r.ops[i].execute_start_s, r.ops[i].preload_end_s) << "rule 3";
  }
}

INSTANTIATE_TEST_SUITE_P(InTree, Topologies,
                         ::testing::Values(Family{"ipu_alltoall", "ipu-pod4"},
                                           Family{"mesh_tenstorrent", "wormhole-n150"},
                                           Family{"tree_simd", "mncore2-mini"}),
                         [](const auto& test) { return std::string(test.param.target); });

}  // namespace
}  // namespace tessera::sim
