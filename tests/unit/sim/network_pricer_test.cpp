// The planner's prices of transfer sets (sim/network_pricer.hpp) against the simulator running
// the same sets alone, and against hand-worked link loads.
#include "framework/sim/network_pricer.hpp"

#include <gtest/gtest.h>

#include <memory>

#include "framework/sim/engine.hpp"
#include "tests/unit/sim/test_chips.hpp"

namespace tessera::sim {
namespace {

using codegen::InstructionKind;

std::unique_ptr<FlowNetworkPricer> pricer(const ChipGraph& chip, double hbm_latency_s = 0) {
  auto p = FlowNetworkPricer::build(chip, hbm_latency_s);
  EXPECT_TRUE(p.ok()) << p.error().message;
  return std::move(p).take();
}

// `n` cores in a line (32 GB/s each way between neighbours, 10 ns a hop), a memory controller
// at core 0; routes walk the line.
ChipGraph line(uint32_t n) {
  ChipGraph g;
  g.cores = n;
  g.sram_bytes_per_s = 64e9;
  for (uint32_t e = 0; e <= n; ++e) {
    Endpoint ep;
    ep.index = e;
    ep.kind = e < n ? TESSERA_ENDPOINT_CORE : TESSERA_ENDPOINT_MEMORY_CONTROLLER;
    g.endpoints.push_back(ep);
  }
  auto add = [&g](uint32_t src, uint32_t dst, tessera_link_class c) {
    g.links.push_back({static_cast<uint32_t>(g.links.size()), src, dst, c, 0, 32e9, 10e-9});
  };
  for (uint32_t i = 0; i + 1 < n; ++i) {
    add(i, i + 1, TESSERA_LINK_ON_CHIP);  // link 2i: +x
    add(i + 1, i, TESSERA_LINK_ON_CHIP);  // link 2i + 1: -x
  }
  add(n, 0, TESSERA_LINK_MEMORY);
  add(0, n, TESSERA_LINK_MEMORY);
  g.route = [n](uint32_t src, uint32_t dst) -> Result<std::vector<uint32_t>> {
    std::vector<uint32_t> links;
    uint32_t at = src == n ? 0 : src, to = dst == n ? 0 : dst;
    if (src == n) links.push_back(2 * (n - 1));
    for (; at < to; ++at) links.push_back(2 * at);
    for (; at > to; --at) links.push_back(2 * (at - 1) + 1);
    if (dst == n) links.push_back(2 * (n - 1) + 1);
    return links;
  };
  return g;
}

// Every core of 8 passes 100 kB to the core `stride` ahead (a ring over all of them).
planner::OpTraffic ring(uint32_t stride) {
  planner::OpTraffic t;
  t.cores = 8;
  for (uint32_t k = 0; k < 8; ++k) t.rotation_next.push_back((k + stride) % 8);
  t.rotation_bytes = 8e5;
  return t;
}

TEST(FlowNetworkPricer, PricesAnExchangeAsTheSimulatorRunsItAlone) {
  ChipGraph chip = line(8);
  auto p = pricer(chip);
  auto traffic = std::make_shared<planner::OpTraffic>(ring(1));
  traffic->combine_parts = 4;  // partials of one tile on 4 consecutive cores: 2 levels
  for (uint32_t k = 0; k < 8; ++k) traffic->combine_order.push_back(k);
  traffic->combine_bytes = 6 * 2e4;  // 8 × 3/4 partials of 20 kB
  auto rotation = p->exchange(*traffic, planner::Exchange::rotation, 0);
  ASSERT_TRUE(rotation.ok()) << rotation.error().message;
  // Every link carries one 100 kB transfer; the wrap-around one walks 7 hops.
  EXPECT_NEAR(rotation->seconds(8e5), 70e-9 + 1e5 / 32e9, 1e-15);
  double priced_s = rotation->seconds(8e5);
  for (int level = 0; level < traffic->combine_levels(); ++level) {
    auto tree = p->exchange(*traffic, planner::Exchange::combine, level);
    ASSERT_TRUE(tree.ok());
    double transfers = level == 0 ? 4 : 2;  // of the 6 partials
    priced_s += tree->seconds(traffic->combine_bytes * transfers / 6);
  }

  codegen::Program program;
  codegen::ProgramOp op;
  op.name = "mm";
  op.cores_used = 8;
  op.shift_bytes = traffic->rotation_bytes + traffic->combine_bytes;
  op.traffic = traffic;
  program.ops = {op};
  program.instructions = {{InstructionKind::execute, 0, 1}};
  auto network = SimNetwork::build(chip, 1);
  ASSERT_TRUE(network.ok());
  EngineConfig config;
  config.hbm_bytes_per_s = [](double) -> Result<double> { return 1e9; };
  auto simulated = run_program(*network, program, config);
  ASSERT_TRUE(simulated.ok()) << simulated.error().message;
  EXPECT_NEAR(simulated->latency_s, priced_s, 1e-12 * priced_s);
}

TEST(FlowNetworkPricer, PricesAPreloadOnTheNetworkAloneAndOncePerCoreCount) {
  chips::AllToAllSpec spec;
  spec.controller_link_bytes_per_s = 1e9;  // slower than the core links: the scheduler's to time
  spec.link_latency_s = 20e-9;
  auto p = pricer(chips::all_to_all(spec), 1e-6);
  auto preload = p->preload(8, nullptr);
  ASSERT_TRUE(preload.ok());
  // 2 MB from 2 controllers to 8 cores: each core link (4 GB/s) takes two transfers of 125 kB,
  // after the memory's first byte (1 us) and two hops.
  EXPECT_NEAR(preload->seconds(2e6), 1e-6 + 40e-9 + 2.5e5 / 4e9, 1e-12);
  EXPECT_EQ(preload->seconds(0), 0);
  auto four = p->preload(4, nullptr);
  ASSERT_TRUE(four.ok());
  EXPECT_NEAR(four->seconds(2e6), 1e-6 + 40e-9 + 5e5 / 4e9, 1e-12);
  EXPECT_EQ(p->preload(8, nullptr)->s_per_byte, preload->s_per_byte);
}

// A plan that places its cores itself (core_digits) is preloaded where it says, in price and in
// simulation: 2 cores at the far end of the line load every link on the way from the controller.
TEST(FlowNetworkPricer, PricesAndSimulatesAPreloadOnThePlansOwnCores) {
  ChipGraph chip = line(8);
  for (auto& link : chip.links)  // the memory's own links left to the HBM time: not what decides
    if (link.link_class == TESSERA_LINK_MEMORY) link.bytes_per_s = 1e13;
  auto p = pricer(chip);
  auto placed = std::make_shared<planner::OpTraffic>();
  placed->cores = 2;
  placed->physical = {6, 7};
  auto near = p->preload(2, nullptr);
  auto far = p->preload(2, placed.get());
  ASSERT_TRUE(near.ok() && far.ok());
  // 1 MB, half per core. Near (cores 0, 1): link 0->1 carries one transfer, after the memory
  // link and one hop. Far (cores 6, 7): links 0->1 .. 5->6 carry both, and the set joins 7 links
  // from the controller (at 5->6).
  EXPECT_NEAR(near->seconds(1e6), 20e-9 + 5e5 / 32e9, 1e-15);
  EXPECT_NEAR(far->seconds(1e6), 70e-9 + 1e6 / 32e9, 1e-15);
  EXPECT_NEAR(far->floor_latency_s, 80e-9, 1e-15);  // the memory link and 7 hops to core 7
  planner::OpTraffic beyond = *placed;
  beyond.physical = {6, 8};  // a plan made for a larger chip
  auto refused = p->preload(2, &beyond);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().message,
            "exec.core_digits: a tile on core 8, beyond the chip's 8 cores; re-run tessera "
            "compile for this chip");

  codegen::Program program;
  codegen::ProgramOp op;
  op.name = "far";
  op.cores_used = 2;
  op.preload_bytes = 1e6;
  op.hbm_read_bytes = 1e6;
  op.traffic = placed;
  program.ops = {op};
  program.instructions = {{InstructionKind::preload_async, 0, 0}, {InstructionKind::execute, 0, 1}};
  auto network = SimNetwork::build(chip, 1);
  ASSERT_TRUE(network.ok());
  EngineConfig config;
  config.hbm_bytes_per_s = [](double) -> Result<double> { return 1e15; };  // the network decides
  auto simulated = run_program(*network, program, config);
  ASSERT_TRUE(simulated.ok()) << simulated.error().message;
  EXPECT_NEAR(simulated->ops[0].preload_end_s - simulated->ops[0].preload_start_s,
              far->seconds(1e6), 1e-3 * far->seconds(1e6));
  program.ops[0].traffic = nullptr;
  simulated = run_program(*network, program, config);
  EXPECT_NEAR(simulated->ops[0].preload_end_s - simulated->ops[0].preload_start_s,
              near->seconds(1e6), 1e-3 * near->seconds(1e6));
}

TEST(FlowNetworkPricer, BoundsEveryTransferByItsCoresFastestWay) {
  chips::AllToAllSpec spec;  // core links 4 GB/s, SRAM ports 16 GB/s
  EXPECT_EQ(pricer(chips::all_to_all(spec))->fastest_transfer_bytes_per_s(), 4e9);
  spec.sram_bytes_per_s = 1e9;
  EXPECT_EQ(pricer(chips::all_to_all(spec))->fastest_transfer_bytes_per_s(), 1e9);
}

TEST(FlowNetworkPricer, KeepsOnePricePerPatternAndTellsPatternsApart) {
  ChipGraph chip = line(8);
  auto p = pricer(chip);
  auto first = p->exchange(ring(1), planner::Exchange::rotation, 0);
  auto again = p->exchange(ring(1), planner::Exchange::rotation, 0);
  ASSERT_TRUE(first.ok() && again.ok());
  EXPECT_EQ(first->s_per_byte, again->s_per_byte);
  EXPECT_EQ(first->floor_latency_s, again->floor_latency_s);
  // Two cores ahead: the link between cores 3 and 4 carries 2→4 and 3→5, the one between 1 and
  // 2 (going back) 6→0 and 7→1: twice the load.
  auto stride2 = p->exchange(ring(2), planner::Exchange::rotation, 0);
  ASSERT_TRUE(stride2.ok());
  EXPECT_NEAR(stride2->s_per_byte, 2 * first->s_per_byte, 1e-24);
}

TEST(FlowNetworkPricer, ARouteTheTopologyCannotGiveIsItsError) {
  ChipGraph chip = chips::all_to_all({});
  chip.route = [](uint32_t, uint32_t) -> Result<std::vector<uint32_t>> {
    return input_error("no route from here");
  };
  // The preload every exchange is priced beside is laid when the pricer is built.
  auto p = FlowNetworkPricer::build(chip, 0);
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.error().message, "no route from here");
}

TEST(FlowNetworkPricer, SlowsAnExchangeOnTheLinksAPreloadInFlightLoads) {
  // The preload to all 8 cores of the line leaves from core 0: the +x link out of core i
  // carries the 7 - i transfers to the cores beyond it, so link 0 saturates it, at 32/7 GB/s a
  // transfer. The ring(1) exchange puts one transfer on every +x link (and the way back on the
  // -x links, which the preload leaves free). At busy b the preload takes 7 × b × 32/7 GB/s of
  // link 0, leaving the exchange 32 (1 - b) GB/s, and never less than its fair share, 32/8.
  auto p = pricer(line(8));
  auto rotation = p->exchange(ring(1), planner::Exchange::rotation, 0);
  ASSERT_TRUE(rotation.ok());
  const double per_transfer = 1.0 / 8;  // of the instruction's bytes
  EXPECT_NEAR(rotation->s_per_byte, per_transfer / 32e9, 1e-24);
  const double left_bytes_per_s[] = {24e9, 16e9, 8e9, 4e9};
  for (size_t k = 0; k < planner::kPreloadBusy.size(); ++k)
    EXPECT_NEAR(rotation->beside_s_per_byte[k], per_transfer / left_bytes_per_s[k], 1e-24) << k;
  planner::BesideSeconds beside = rotation->seconds_beside(8e5);
  // One hop to link 0, then its 100 kB at 16 GB/s: past the floor (7 hops, 100 kB at 32 GB/s).
  EXPECT_NEAR(beside[1], 10e-9 + 1e5 / 16e9, 1e-15);
  // A preload's own price is not slowed by itself.
  EXPECT_EQ(p->preload(8, nullptr)->beside_s_per_byte, planner::BesideSeconds{});
}

// SimNetwork::path's latency on line(): each link's 10 ns added in turn, the very double.
double walked_latency_s(size_t links) {
  double s = 0;
  for (size_t i = 0; i < links; ++i) s += 10e-9;
  return s;
}

// The routes a pricer keeps per thread: every pair of a 64-core line (4,225 paths, past several
// doublings of the table) is SimNetwork::path's, asked once of the Topology; an error is the
// route's and is asked again next time.
TEST(PathCache, KeepsEachRouteAsTheNetworkGivesIt) {
  ChipGraph g = line(64);
  auto asked = std::make_shared<int>(0);
  auto walk = g.route;
  g.route = [asked, walk](uint32_t src, uint32_t dst) -> Result<std::vector<uint32_t>> {
    ++*asked;
    if (src == 5 && dst == 6) return input_error("no route from 5 to 6");
    return walk(src, dst);
  };
  auto net = SimNetwork::build(g, 1e12);
  ASSERT_TRUE(net.ok()) << net.error().message;
  PathCache cache;
  for (int pass = 0; pass < 2; ++pass)
    for (uint32_t src = 0; src < 65; ++src)
      for (uint32_t dst = 0; dst < 65; ++dst) {
        if (src == 5 && dst == 6) continue;
        auto kept = cache.path(*net, src, dst);
        ASSERT_TRUE(kept.ok()) << kept.error().message;
        auto fresh = walk(src, dst).take();
        EXPECT_EQ(std::vector<uint32_t>(kept->links.begin(), kept->links.end()), fresh);
        EXPECT_EQ(kept->latency_s, walked_latency_s(fresh.size()));
      }
  EXPECT_EQ(*asked, 65 * 65 - 1);
  for (int twice = 0; twice < 2; ++twice) {
    auto failed = cache.path(*net, 5, 6);
    ASSERT_FALSE(failed.ok());
    EXPECT_EQ(failed.error().message, "no route from 5 to 6");
  }
  EXPECT_EQ(*asked, 65 * 65 + 1);
}

// Past its bound of link entries the cache forgets every path and keeps going: on a line of
// 4,096 cores the path from core 0 to core d holds d links (and two words of latency), and the
// 1,499th of those to cores 2,048-4,095 (to core 3,546) would take the entries past 4 Mi. Every
// answer is still the network's, and the forgotten paths are asked of the Topology again.
TEST(PathCache, ForgetsEveryPathPastItsBoundAndAsksAgain) {
  ChipGraph g = line(4096);
  auto asked = std::make_shared<int>(0);
  auto walk = g.route;
  g.route = [asked, walk](uint32_t src, uint32_t dst) {
    ++*asked;
    return walk(src, dst);
  };
  auto net = SimNetwork::build(g, 1e12);
  ASSERT_TRUE(net.ok()) << net.error().message;
  PathCache cache;
  for (uint32_t dst = 2048; dst < 4096; ++dst) {
    auto kept = cache.path(*net, 0, dst);
    ASSERT_TRUE(kept.ok()) << kept.error().message;
    ASSERT_EQ(kept->links.size(), dst);
    EXPECT_EQ(kept->links.back(), 2 * (dst - 1));
    EXPECT_EQ(kept->latency_s, walked_latency_s(dst));
  }
  EXPECT_EQ(*asked, 2048);
  for (uint32_t kept : {3546u, 4095u}) ASSERT_TRUE(cache.path(*net, 0, kept).ok());
  EXPECT_EQ(*asked, 2048);
  for (uint32_t forgotten : {2048u, 3545u}) ASSERT_TRUE(cache.path(*net, 0, forgotten).ok());
  EXPECT_EQ(*asked, 2050);
}

}  // namespace
}  // namespace tessera::sim
