// The simulator on the in-tree chip families' real topologies (all-to-all, 2D torus, tree), read
// through their plugins: programs finish, bytes are conserved per op and link class, nothing beats
// the HBM bound, and runs are deterministic.
#include <gtest/gtest.h>

#include <array>
#include <memory>
#include <string>
#include <vector>

#include "framework/chip/chip_models.hpp"
#include "framework/sim/engine.hpp"
#include "framework/sim/link_load.hpp"
#include "framework/sim/network_pricer.hpp"
#include "tests/unit/sim/test_chips.hpp"

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

// Controllers -> cores (preload) or back (writes): each core's share over its chip's controllers.
std::vector<Transfer> expected_transfers(const SimNetwork& net, double bytes, bool preload) {
  std::vector<Transfer> out;
  for (const Core& core : net.cores()) {
    std::vector<uint32_t> feeding;
    for (const Controller& c : net.controllers())
      if (c.chip == core.chip) feeding.push_back(c.endpoint);
    for (uint32_t c : feeding) {
      double share = bytes / net.cores().size() / feeding.size();
      out.push_back(preload ? Transfer{c, core.endpoint, share}
                            : Transfer{core.endpoint, c, share});
    }
  }
  return out;
}

std::vector<Transfer> ring_transfers(const SimNetwork& net, double bytes) {
  std::vector<Transfer> out;
  const auto& cores = net.cores();
  for (size_t u = 0; u < cores.size(); ++u) {
    size_t next = u + 1;
    if (next == cores.size() || cores[next].chip != cores[u].chip) {
      next = u;
      while (next > 0 && cores[next - 1].chip == cores[u].chip) --next;
    }
    if (next != u) out.push_back({cores[u].endpoint, cores[next].endpoint, bytes / cores.size()});
  }
  return out;
}

TEST(LinkLoad, TransfersOffTheChipAreRefusedByIndex) {
  ChipGraph chip = chips::all_to_all({});
  std::vector<Transfer> bad{{0, 1, 10}, {0, 99, 10}};
  auto load = link_load(chip, bad);
  ASSERT_FALSE(load.ok());
  EXPECT_EQ(load.error().message, "transfer 1: endpoint 99 is not on the chip (11 endpoints)");
  bad = {{0, 1, -1}};
  load = link_load(chip, bad);
  ASSERT_FALSE(load.ok());
  EXPECT_EQ(load.error().message, "transfer 0: bytes must be finite and >= 0");
  chip.route = [](uint32_t, uint32_t) -> Result<std::vector<uint32_t>> {
    return std::vector<uint32_t>{999};
  };
  bad = {{0, 1, 10}};
  load = link_load(chip, bad);
  ASSERT_FALSE(load.ok());
  EXPECT_EQ(load.error().message, "transfer 0: the route names link 999, which does not exist");
}

// Routes longer than the host's first buffer (64 links) come back whole, and a short route asked
// after them is not padded with what the longer one left in the buffer. A one-row 200-wide
// mesh_tenstorrent torus: core 1-0 -> core 101-0 is 100 hops either way round (NoC0 wins the tie),
// so the NIU link out, 100 router links and the NIU link in.
TEST(PluginRoutes, LongRoutesComeBackWholeAndShortOnesAfterThem) {
  PluginSet plugins{Registry::discover(plugin_search_dirs({}))};
  auto manifest = plugins.library("mesh_tenstorrent");
  ASSERT_TRUE(manifest.ok()) << manifest.error().message;
  ChipSpec spec = parse_chip_text(R"(name: row
target: mesh_tenstorrent
topology:
  grid: {x_size: 200, y_size: 1}
  workers: "x=1-199 y=0"
  dram: {tiles: "0-0"}
)",
                                  "row.yaml")
                      .take();
  Topology topology = build_topology(plugins, spec).take();
  // Cores are endpoints 0..198, core x-0 being x - 1.
  EXPECT_EQ(topology.route(0, 100).take().size(), 102u);
  EXPECT_EQ(topology.route(100, 0).take().size(), 102u);
  EXPECT_EQ(topology.route(0, 100).take(), topology.route(0, 100).take());
  EXPECT_EQ(topology.route(0, 1).take().size(), 3u);
}

// The planner's grid placements (planner/pricing.hpp, CoreGrid) need cores that fill rows of
// equal columns, numbered row by row on one chip: a mesh's workers (wormhole-n150's 8 x 8, whose
// rows skip a DRAM column), not rows of unequal length, not a mesh of chips, not an all-to-all's
// cores without coordinates.
TEST(CoreGrid, AMeshsWorkersFormOneAndOtherChipsDoNot) {
  PluginSet plugins{Registry::discover(plugin_search_dirs({}))};
  auto grid_of = [&](const ChipSpec& spec) {
    Topology topology = build_topology(plugins, spec).take();
    ChipGraph chip = read_chip_graph(topology).take();
    return FlowNetworkPricer::build(chip, 0).take()->core_grid();
  };
  auto preset = [&](const char* target, const char* chip) {
    return resolve_chip(chip, plugins.library(target).take()->manifest()).take();
  };
  auto mesh = [](const char* workers) {
    return parse_chip_text(std::string(R"(name: mesh
target: mesh_tenstorrent
topology:
  grid: {x_size: 7, y_size: 5}
  dram: {tiles: "0-0"}
  wraparound: false
)") + (*workers != 0 ? workers : "  workers: \"x=1-6 y=0-4\"\n"),
                           "mesh.yaml")
        .take();
  };
  EXPECT_EQ(grid_of(mesh("")), (planner::CoreGrid{6, 5}));
  EXPECT_EQ(grid_of(preset("mesh_tenstorrent", "wormhole-n150")), (planner::CoreGrid{8, 8}));
  EXPECT_EQ(grid_of(mesh("  workers: \"x=1-6 y=0-3; x=1-3 y=4\"\n")), std::nullopt);
  EXPECT_EQ(grid_of(preset("mesh_tenstorrent", "wormhole-galaxy")), std::nullopt);
  EXPECT_EQ(grid_of(preset("ipu_alltoall", "ipu-pod4")), std::nullopt);
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
  SimNetwork network = SimNetwork::build(chip, 1).take();
  SimResult r = run_program(network, p, config).take();
  SimNetwork again = SimNetwork::build(chip, 1).take();
  EXPECT_EQ(run_program(again, p, config).take().latency_s, r.latency_s) << "deterministic";
  double preloaded = preload_bytes * (1 + 2 + 3 + 4);
  EXPECT_NEAR(r.bytes_by_kind[static_cast<size_t>(FlowKind::preload)], preloaded, 1e-6 * preloaded);
  EXPECT_GE(r.latency_s, preloaded / (hbm_bytes_per_s * network.controllers().size()));
  for (size_t i = 1; i < r.ops.size(); ++i)
    EXPECT_GE(r.ops[i].execute_start_s, r.ops[i - 1].execute_end_s) << "rule 1";
  for (size_t i = 0; i < r.ops.size(); ++i)
    EXPECT_GE(r.ops[i].execute_start_s, r.ops[i].preload_end_s) << "rule 3";
  // What the flows moved is what the transfers put on the routes: per op and link class, the
  // on-chip, memory and chip-to-chip bytes of link_load over the same transfers, worked out here
  // from the endpoints (each core an equal share; preloads and writes split over the core's chip's
  // controllers; distribute and shift a ring over each chip's cores).
  for (size_t i = 0; i < r.ops.size(); ++i) {
    const auto& op = p.ops[i];
    std::array<double, kLinkClasses> expected{};
    auto add = [&](const std::vector<Transfer>& transfers) {
      LinkLoad load = link_load(chip, transfers).take();
      for (size_t k = 0; k < load.links.size(); ++k)
        expected[static_cast<size_t>(network.network().link_class(load.links[k]))] += load.bytes[k];
    };
    add(expected_transfers(network, op.preload_bytes, true));
    add(expected_transfers(network, op.hbm_write_bytes, false));
    add(ring_transfers(network, op.distribute_bytes + op.shift_bytes));
    for (LinkClass c : {LinkClass::on_chip, LinkClass::memory, LinkClass::chip_to_chip}) {
      size_t k = static_cast<size_t>(c);
      EXPECT_NEAR(r.ops[i].link_bytes_by_class[k], expected[k], 1e-6 * expected[k] + 1e-3)
          << "op " << i << " " << to_string(c);
    }
  }
}

// An op whose plan names its cores (a plugin's core_digits) moves its bytes to and from those
// cores: the preload and the writes between them and their chip's controllers, the combine tree
// between them level by level, and a distribute its description has no ring for round them —
// per link class what link_load gives for the same transfers.
TEST_P(Topologies, AnOpOnTheCoresItsPlanNamesMovesItsBytesThere) {
  PluginSet plugins{Registry::discover(plugin_search_dirs({}))};
  auto manifest = plugins.library(GetParam().target);
  ASSERT_TRUE(manifest.ok()) << manifest.error().message;
  ChipSpec spec = resolve_chip(GetParam().chip, (*manifest)->manifest()).take();
  Topology topology = build_topology(plugins, spec).take();  // the graph's routes ask it
  ChipGraph chip = read_chip_graph(topology).take();
  SimNetwork network = SimNetwork::build(chip, 1).take();
  const auto cores = static_cast<uint32_t>(network.cores().size());
  ASSERT_GE(cores, 8u);
  auto traffic = std::make_shared<planner::OpTraffic>();
  traffic->cores = 4;
  traffic->physical = {cores - 1, cores / 2 + 1, cores / 2, 1};  // apart, out of order
  traffic->combine_parts = 4;
  traffic->combine_order = {0, 1, 2, 3};
  traffic->combine_bytes = 3 * 1e5;  // three partials of 100 kB
  codegen::Program p;
  codegen::ProgramOp op;
  op.name = "placed";
  op.cores_used = 4;
  op.preload_bytes = 4e6;
  op.hbm_write_bytes = 4e5;
  op.compute_s = 1e-6;
  op.shift_bytes = traffic->combine_bytes;
  op.distribute_bytes = 2e5;  // no gather ring in the description: the even ring, on its cores
  op.traffic = traffic;
  p.ops = {op};
  p.instructions = {{InstructionKind::preload_async, 0, 1}, {InstructionKind::execute, 0, 2}};
  EngineConfig config;
  config.hbm_bytes_per_s = [](double) -> Result<double> { return 50e9; };
  SimResult r = run_program(network, p, config).take();

  std::vector<Transfer> transfers;
  for (uint32_t u : traffic->physical) {
    const Core& core = network.cores()[u];
    std::vector<uint32_t> feeding;
    for (const Controller& c : network.controllers())
      if (c.chip == core.chip) feeding.push_back(c.endpoint);
    for (uint32_t c : feeding) {
      transfers.push_back({c, core.endpoint, op.preload_bytes / 4 / feeding.size()});
      transfers.push_back({core.endpoint, c, op.hbm_write_bytes / 4 / feeding.size()});
    }
  }
  std::vector<std::vector<uint32_t>> ring(network.chips());
  for (uint32_t u : traffic->physical) ring[network.cores()[u].chip].push_back(u);
  for (const auto& members : ring)
    for (size_t i = 0; members.size() > 1 && i < members.size(); ++i)
      transfers.push_back({network.cores()[members[i]].endpoint,
                           network.cores()[members[(i + 1) % members.size()]].endpoint,
                           op.distribute_bytes / 4});
  for (int level = 0; level < traffic->combine_levels(); ++level) {
    auto pairs = planner::combine_transfers(*traffic, level);
    for (auto [a, b] : pairs)
      transfers.push_back({network.cores()[traffic->physical[a]].endpoint,
                           network.cores()[traffic->physical[b]].endpoint,
                           planner::combine_step_bytes(*traffic, level) / pairs.size()});
  }
  std::array<double, kLinkClasses> expected{};
  LinkLoad load = link_load(chip, transfers).take();
  for (size_t k = 0; k < load.links.size(); ++k)
    expected[static_cast<size_t>(network.network().link_class(load.links[k]))] += load.bytes[k];
  for (LinkClass c : {LinkClass::on_chip, LinkClass::memory, LinkClass::chip_to_chip}) {
    size_t k = static_cast<size_t>(c);
    EXPECT_NEAR(r.ops[0].link_bytes_by_class[k], expected[k], 1e-6 * expected[k] + 1e-3)
        << to_string(c);
  }
  EXPECT_GT(expected[static_cast<size_t>(LinkClass::on_chip)], 0);
}

INSTANTIATE_TEST_SUITE_P(InTree, Topologies,
                         ::testing::Values(Family{"ipu_alltoall", "ipu-pod4"},
                                           Family{"mesh_tenstorrent", "wormhole-n150"},
                                           Family{"tree_simd", "mncore2-mini"}),
                         [](const auto& test) { return std::string(test.param.target); });

}  // namespace
}  // namespace tessera::sim
