#include "topology.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>

#include "common/preset_params.hpp"
#include "common/topology_builder.hpp"

namespace tessera::plugins::mesh {
namespace {

using Values = std::map<std::string, std::string>;

MeshTopology make(Values values = {}) {
  return build_topology<MeshTopology>(std::move(values));
}

// Wormhole cores are numbered row-major over x=1-4,6-9, y=1-5,7-11.
uint32_t wormhole_core(int32_t x, int32_t y) {
  uint32_t column = static_cast<uint32_t>(x <= 4 ? x - 1 : x - 2);
  uint32_t row = static_cast<uint32_t>(y <= 5 ? y - 1 : y - 2);
  return row * 8 + column;
}

// Router -> router links of a core -> core route, and the NoC it took.
std::pair<size_t, uint32_t> hops_and_noc(const MeshTopology& t, uint32_t src, uint32_t dst) {
  std::vector<uint32_t> links = checked_route(t, src, dst);
  if (links.size() < 2) return {0, UINT32_MAX};
  return {links.size() - 2, t.link(links.front()).network};
}

TEST(Defaults, DescribeWormholeB0) {
  MeshTopology t = make();
  tessera_topology_info info = t.info();
  EXPECT_STREQ(info.name, "wormhole-n150");
  EXPECT_EQ(info.num_cores, 80u);
  EXPECT_EQ(info.num_chips, 1u);
  EXPECT_EQ(info.sram_bytes_per_core, 1499136u);
  EXPECT_DOUBLE_EQ(info.clock_hz, 1e9);
  EXPECT_DOUBLE_EQ(info.sram_bytes_per_s, 256e9);
  EXPECT_EQ(info.num_endpoints, 80u + 6 + 2 * 120);
  // Per NoC: NIU links of 80 cores and 18 DRAM tiles both ways, one x and one y link per router.
  EXPECT_EQ(info.num_links, 2u * (2 * 80 + 2 * 18 + 2 * 120));
  EXPECT_DOUBLE_EQ(t.peak_flops_per_s(TESSERA_DTYPE_BF16), 4096e9);
  EXPECT_DOUBLE_EQ(t.peak_flops_per_s(TESSERA_DTYPE_FP8), 4096e9);
  EXPECT_DOUBLE_EQ(t.peak_flops_per_s(TESSERA_DTYPE_BFP8), 4096e9);  // bfp8 weights, unpacked
  EXPECT_DOUBLE_EQ(t.peak_flops_per_s(TESSERA_DTYPE_FP32), 1024e9);
  EXPECT_EQ(t.peak_flops_per_s(TESSERA_DTYPE_FP64), 0.0);
}

TEST(Endpoints, CoresFollowTheSocDescriptor) {
  MeshTopology t = make();
  EXPECT_STREQ(t.endpoint(0).name, "tensix 1-1");
  EXPECT_STREQ(t.endpoint(7).name, "tensix 9-1");
  EXPECT_STREQ(t.endpoint(79).name, "tensix 9-11");
  EXPECT_EQ(t.endpoint(wormhole_core(6, 7)).x, 6);
  EXPECT_EQ(t.endpoint(wormhole_core(6, 7)).y, 7);
  tessera_endpoint dram = t.endpoint(t.dram_controller(3));
  EXPECT_EQ(dram.kind, TESSERA_ENDPOINT_MEMORY_CONTROLLER);
  EXPECT_EQ(dram.x, 5);
  EXPECT_EQ(dram.y, 2);
  EXPECT_DOUBLE_EQ(dram.bytes_per_s, 288e9 / 6);  // its share of the card's 288 GB/s
  tessera_endpoint r = t.endpoint(t.router(1, {3, 4}));
  EXPECT_EQ(r.kind, TESSERA_ENDPOINT_ROUTER);
  EXPECT_STREQ(r.name, "noc1 r(3,4)");
}

TEST(Routes, NeighbourTakesTheShorterNoc) {
  MeshTopology t = make();
  std::vector<uint32_t> east = checked_route(t, wormhole_core(1, 1), wormhole_core(2, 1));
  ASSERT_EQ(east.size(), 3u);
  EXPECT_EQ(t.link(east[0]).network, 0u);
  EXPECT_DOUBLE_EQ(t.link(east[0]).latency_s, 5e-9);
  EXPECT_DOUBLE_EQ(t.link(east[1]).latency_s, 9e-9);
  EXPECT_DOUBLE_EQ(t.link(east[1]).bytes_per_s, 32e9);
  EXPECT_EQ(hops_and_noc(t, wormhole_core(2, 1), wormhole_core(1, 1)),
            (std::pair<size_t, uint32_t>{1, 1}));
}

TEST(Routes, WrapAroundTheTorus) {
  MeshTopology t = make();
  // 9 -> 0 -> 1 along +x on NoC0 (2 hops) beats 8 hops along -x on NoC1.
  std::vector<uint32_t> r = checked_route(t, wormhole_core(9, 1), wormhole_core(1, 1));
  ASSERT_EQ(r.size(), 4u);
  EXPECT_EQ(t.link(r[1]).dst, t.router(0, {0, 1}));
  // y: 11 -> 0 -> 1 on NoC0.
  EXPECT_EQ(hops_and_noc(t, wormhole_core(1, 11), wormhole_core(1, 1)),
            (std::pair<size_t, uint32_t>{2, 0}));
  EXPECT_EQ(t.hops(1, {1, 1}, {9, 11}), 2u + 2u);
}

TEST(Routes, TieGoesToNoc0) {
  MeshTopology t = make();
  EXPECT_EQ(hops_and_noc(t, wormhole_core(1, 1), wormhole_core(6, 1)),
            (std::pair<size_t, uint32_t>{5, 0}));
  EXPECT_EQ(hops_and_noc(t, wormhole_core(6, 1), wormhole_core(1, 1)),
            (std::pair<size_t, uint32_t>{5, 0}));
  EXPECT_EQ(hops_and_noc(t, wormhole_core(2, 1), wormhole_core(2, 7)),
            (std::pair<size_t, uint32_t>{6, 0}));
}

TEST(Routes, Noc1GoesMinusYThenMinusX) {
  MeshTopology t = make();
  // NoC0: 3 + 10 = 13 hops; NoC1: 2 (y 1 -> 0 -> 11) + 7 (x 1 -> 0 -> 9 ... -> 4) = 9.
  std::vector<uint32_t> r = checked_route(t, wormhole_core(1, 1), wormhole_core(4, 11));
  ASSERT_EQ(r.size(), 11u);
  EXPECT_EQ(t.link(r[0]).network, 1u);
  EXPECT_EQ(t.link(r[1]).dst, t.router(1, {1, 0}));
  EXPECT_EQ(t.link(r[2]).dst, t.router(1, {1, 11}));
  EXPECT_EQ(t.link(r[3]).dst, t.router(1, {0, 11}));
  EXPECT_EQ(t.link(r[4]).dst, t.router(1, {9, 11}));
}

TEST(Routes, DramUsesTheNearestTile) {
  MeshTopology t = make();
  // Controller 0 sits at 0-0, 0-1, 0-11; from 1-1 the closest is 0-1, one hop -x on NoC1.
  std::vector<uint32_t> r = checked_route(t, wormhole_core(1, 1), t.dram_controller(0));
  ASSERT_EQ(r.size(), 3u);
  EXPECT_EQ(t.link(r[1]).dst, t.router(1, {0, 1}));
  tessera_link last = t.link(r[2]);
  EXPECT_EQ(last.link_class, TESSERA_LINK_MEMORY);
  EXPECT_DOUBLE_EQ(last.bytes_per_s, 32e9);  // a NoC link (the controller's 48 GB/s bounds all six)
  // Back from the controller: 0-1 -> 1-1 is one hop +x on NoC0.
  std::vector<uint32_t> back = checked_route(t, t.dram_controller(0), wormhole_core(1, 1));
  ASSERT_EQ(back.size(), 3u);
  EXPECT_EQ(t.link(back[0]).dst, t.router(0, {0, 1}));
}

TEST(Routes, EveryCoreReachesEveryCoreAndController) {
  MeshTopology t = make();
  std::vector<uint32_t> ends(80 + 6);
  std::iota(ends.begin(), ends.end(), 0u);
  EXPECT_EQ(check_routes(t, ends, ends), "");
}

TEST(Routes, RoutersOnlyReachTheirOwnNoc) {
  MeshTopology t = make();
  EXPECT_EQ(checked_route(t, t.router(0, {2, 2}), t.router(0, {4, 5})).size(), 5u);
  EXPECT_EQ(checked_route(t, t.router(1, {2, 2}), wormhole_core(2, 2)).size(), 1u);
  std::vector<uint32_t> links;
  EXPECT_THROW(t.route(t.router(0, {2, 2}), t.router(1, {2, 2}), links), sdk::Error);
}

TEST(Routes, OneWideGridHasNoXLinks) {
  MeshTopology t = make({{"grid.x_size", "1"},
                         {"grid.y_size", "4"},
                         {"workers", "x=0 y=0-2"},
                         {"dram.tiles", "0-3"}});
  EXPECT_EQ(t.info().num_links, 2u * (2 * 3 + 2 * 1 + 4));
  std::vector<uint32_t> all(t.info().num_endpoints - 8);  // cores and the controller
  std::iota(all.begin(), all.end(), 0u);
  EXPECT_EQ(check_routes(t, all, all), "");
}

TEST(Params, CompactCoordinateLists) {
  std::vector<Node> nodes = parse_rectangles("workers", "x=1-2 y=3; x=5 y=0");
  EXPECT_EQ(nodes, (std::vector<Node>{{5, 0}, {1, 3}, {2, 3}}));
  auto controllers = parse_controllers("dram.tiles", "0-0 0-1, 0-11;5-2");
  ASSERT_EQ(controllers.size(), 2u);
  EXPECT_EQ(controllers[0], (std::vector<Node>{{0, 0}, {0, 1}, {0, 11}}));
  EXPECT_EQ(controllers[1], (std::vector<Node>{{5, 2}}));
}

TEST(Params, BadValuesNameTheirKey) {
  auto error = [](Values v) { return construction_error<MeshTopology>(std::move(v)); };
  auto has = [](const std::string& message, const std::string& part) {
    return message.find(part) != std::string::npos;
  };
  EXPECT_TRUE(has(error({{"link_bytes_per_cycle", "-1"}}),
                  "parameter 'link_bytes_per_cycle': must be greater than 0"));
  EXPECT_TRUE(has(error({{"grid.x_size", "0"}}), "parameter 'grid.x_size': must be in [1,"));
  EXPECT_TRUE(has(error({{"workers", "x=1-12 y=1"}}),
                  "parameter 'workers': tile 10-1 is outside the 10x12 grid"));
  EXPECT_TRUE(has(error({{"workers", "x=0 y=1"}}),
                  "parameter 'dram.tiles': tile 0-1 is already used by a worker"));
  EXPECT_TRUE(has(error({{"workers", "1-4 x 1-5"}}),
                  "parameter 'workers': '1-4 x 1-5' is not of the form 'x=RANGES y=RANGES'"));
  EXPECT_TRUE(
      has(error({{"workers", "x=4-1 y=1"}}), "parameter 'workers': range '4-1' runs backwards"));
  EXPECT_TRUE(
      has(error({{"dram.tiles", "0-0 7"}}), "parameter 'dram.tiles': '7' is not a tile 'x-y'"));
  EXPECT_TRUE(has(error({{"hop_latency_cycles", "-9"}}),
                  "parameter 'hop_latency_cycles': must be at least 0"));
  EXPECT_EQ(error({{"link_byte_per_cycle", "64"}}),
            "unknown topology parameter 'link_byte_per_cycle' (did you mean "
            "'link_bytes_per_cycle'?)");
}

// ---- Several chips -----------------------------------------------------------------------------

TEST(MultiChip, DefaultIsOneChipExactly) {
  MeshTopology one = make();
  MeshTopology explicit_one = make({{"chips.x", "1"}, {"chips.y", "1"}});
  ASSERT_EQ(explicit_one.info().num_endpoints, one.info().num_endpoints);
  ASSERT_EQ(explicit_one.info().num_links, one.info().num_links);
  EXPECT_EQ(one.info().num_chips, 1u);
  for (uint32_t e = 0; e < one.info().num_endpoints; ++e) {
    EXPECT_STREQ(explicit_one.endpoint(e).name, one.endpoint(e).name);
    EXPECT_NE(one.endpoint(e).kind, TESSERA_ENDPOINT_CHIP_PORT);
  }
  for (uint32_t l = 0; l < one.info().num_links; ++l) {
    EXPECT_EQ(explicit_one.link(l).src, one.link(l).src);
    EXPECT_EQ(explicit_one.link(l).dst, one.link(l).dst);
    EXPECT_NE(one.link(l).link_class, TESSERA_LINK_CHIP_TO_CHIP);
  }
}

TEST(MultiChip, TwoChipsDoubleEveryPart) {
  MeshTopology one = make();
  MeshTopology two = make({{"chips.x", "2"}, {"ethernet.links_per_pair", "2"}});
  tessera_topology_info info = two.info();
  EXPECT_EQ(info.num_chips, 2u);
  EXPECT_EQ(info.num_cores, 2 * one.info().num_cores);
  // Cores, controllers and routers twice, then 2 ports per chip (its one neighbour, 2 links).
  EXPECT_EQ(info.num_endpoints, 2 * one.info().num_endpoints + 2 * 2);
  // Every chip's links, plus per port 2 NIU links each way, plus 2 Ethernet links each way.
  EXPECT_EQ(info.num_links, 2 * one.info().num_links + 4 * 2 * 2 + 2 * 2);
  // Chip-major: chip 1's first core, first controller and routers follow chip 0's.
  EXPECT_STREQ(two.endpoint(80).name, "chip1 tensix 1-1");
  EXPECT_EQ(two.endpoint(80).chip, 1u);
  EXPECT_EQ(two.endpoint(two.dram_controller(6)).kind, TESSERA_ENDPOINT_MEMORY_CONTROLLER);
  EXPECT_EQ(two.endpoint(two.dram_controller(6)).chip, 1u);
  EXPECT_STREQ(two.endpoint(two.router(1, 1, {3, 4})).name, "chip1 noc1 r(3,4)");
  tessera_endpoint port = two.endpoint(two.port(0, 0, 1));
  EXPECT_EQ(port.kind, TESSERA_ENDPOINT_CHIP_PORT);
  EXPECT_STREQ(port.name, "chip0 eth 1-0 (+x link 1)");  // channel 1 of the eth list
  EXPECT_EQ(two.port(0, 1, 0), MeshTopology::kNoPort);   // no chip at -x of chip 0
  // Per-chip DRAM: the capacity is per chip, so the machine has twice the memory.
  uint64_t memory = 0;
  for (uint32_t e = 0; e < info.num_endpoints; ++e) memory += two.endpoint(e).memory_bytes;
  EXPECT_EQ(memory - 160u * 1499136u, 2 * 12000000000u);
}

TEST(MultiChip, RouteCrossesTheEthernetLink) {
  MeshTopology t = make({{"chips.x", "2"}, {"ethernet.links_per_pair", "2"}});
  uint32_t src = t.core(0, wormhole_core(9, 1));  // endpoint 7
  uint32_t dst = t.core(1, wormhole_core(1, 1));  // endpoint 80
  std::vector<uint32_t> r = checked_route(t, src, dst);
  // (7 + 80) mod 2 = link 1: chip 0's +x port at eth 1-0, chip 1's -x port at eth 2-0 (channel 3).
  uint32_t out = t.port(0, 0, 1), in = t.port(1, 1, 1);
  EXPECT_STREQ(t.endpoint(in).name, "chip1 eth 2-0 (-x link 1)");
  // 9-1 -> 1-0 on chip 0: NoC0 +x 9 -> 0 -> 1 (2 hops), +y 1 -> ... -> 0 (11 hops) = 13; NoC1
  // -y 1 -> 0 (1 hop), -x 9 -> ... -> 1 (8 hops) = 9: NoC1.
  std::vector<uint32_t> expected = {t.link_between(src, t.router(0, 1, {9, 1})),
                                    t.link_between(t.router(0, 1, {9, 1}), t.router(0, 1, {9, 0}))};
  for (int32_t x = 9; x > 1; --x)
    expected.push_back(t.link_between(t.router(0, 1, {x, 0}), t.router(0, 1, {x - 1, 0})));
  expected.push_back(t.link_between(t.router(0, 1, {1, 0}), out));
  expected.push_back(t.link_between(out, in));
  // 2-0 -> 1-1 on chip 1: NoC0 +x 2 -> ... -> 1 (9) + 1 = 10; NoC1 -y 0 -> 11 -> 1 (11) + 1 =
  // 12: NoC0, x first (2 -> 1 wraps: 2,3,...,9,0,1), then y 0 -> 1.
  expected.push_back(t.link_between(in, t.router(1, 0, {2, 0})));
  for (int32_t x = 2; x != 1; x = (x + 1) % 10)
    expected.push_back(t.link_between(t.router(1, 0, {x, 0}), t.router(1, 0, {(x + 1) % 10, 0})));
  expected.push_back(t.link_between(t.router(1, 0, {1, 0}), t.router(1, 0, {1, 1})));
  expected.push_back(t.link_between(t.router(1, 0, {1, 1}), dst));
  EXPECT_EQ(r, expected);
  tessera_link eth = t.link(expected[11]);
  EXPECT_EQ(eth.link_class, TESSERA_LINK_CHIP_TO_CHIP);
  EXPECT_DOUBLE_EQ(eth.bytes_per_s, 12.5e9);
  EXPECT_DOUBLE_EQ(eth.latency_s, 1e-6);
  // The neighbouring source core takes the other parallel link.
  std::vector<uint32_t> other = checked_route(t, src + 1, dst);
  EXPECT_NE(std::find(other.begin(), other.end(), t.link_between(t.port(0, 0, 0), t.port(1, 1, 0))),
            other.end());
}

TEST(MultiChip, ChipMeshRoutesXThenY) {
  MeshTopology t = make({{"chips.x", "2"}, {"chips.y", "2"}});
  // Chip 0 (0,0) -> chip 3 (1,1): +x to chip 1, then +y to chip 3.
  std::vector<uint32_t> r = checked_route(t, t.core(0, 0), t.core(3, 0));
  std::vector<uint32_t> eth;
  for (uint32_t l : r)
    if (t.link(l).link_class == TESSERA_LINK_CHIP_TO_CHIP) eth.push_back(l);
  ASSERT_EQ(eth.size(), 2u);
  EXPECT_EQ(t.link(eth[0]).src, t.port(0, 0, 0));
  EXPECT_EQ(t.link(eth[0]).dst, t.port(1, 1, 0));
  EXPECT_EQ(t.link(eth[1]).src, t.port(1, 2, 0));
  EXPECT_EQ(t.link(eth[1]).dst, t.port(3, 3, 0));
}

TEST(MultiChip, EveryEndpointReachesEveryCoreAndController) {
  MeshTopology t = make({{"chips.x", "3"}, {"chips.y", "2"}, {"ethernet.links_per_pair", "4"}});
  std::vector<uint32_t> ends;
  for (uint32_t chip = 0; chip < 6; ++chip) {
    ends.push_back(t.core(chip, 0));
    ends.push_back(t.core(chip, 79));
    ends.push_back(t.dram_controller(chip * 6 + 5));
  }
  ends.push_back(t.router(4, 1, {5, 5}));
  ends.push_back(t.port(2, 1, 3));
  EXPECT_EQ(check_routes(t, ends, ends), "");
}

TEST(MultiChip, BadChipCountsNameTheirKey) {
  auto error = [](Values v) { return construction_error<MeshTopology>(std::move(v)); };
  auto has = [](const std::string& message, const std::string& part) {
    return message.find(part) != std::string::npos;
  };
  EXPECT_TRUE(has(error({{"chips.x", "0"}}), "parameter 'chips.x': must be in [1, 128]"))
      << error({{"chips.x", "0"}});
  EXPECT_TRUE(has(error({{"chips.y", "-2"}}), "parameter 'chips.y': must be in [1, 128]"));
  EXPECT_TRUE(has(error({{"chips.x", "1000000"}}), "parameter 'chips.x': must be in [1, 128]"));
  EXPECT_EQ(error({{"chips.x", "16"}, {"chips.y", "16"}}),
            "parameter 'chips': 16x16 = 256 chips is more than 128 ('chips.x' x 'chips.y')");
  EXPECT_EQ(error({{"chips", "4"}}),
            "parameter 'chips': expected a map {x: X, y: Y} of chips along each axis, got '4'");
  EXPECT_TRUE(has(error({{"chips.x", "2"}, {"ethernet.links_per_pair", "5"}}),
                  "parameter 'ethernet.links_per_pair': must be in [1, 4]"));
  EXPECT_TRUE(has(error({{"chips.x", "2"}, {"ethernet.tiles", "1-1"}}),
                  "parameter 'ethernet.tiles': lists 1 tiles"));
  EXPECT_TRUE(has(error({{"chips.x", "2"}, {"ethernet.tiles", "1-1 1-0 2-0 3-0"}}),
                  "parameter 'ethernet.tiles': tile 1-1 is already used by a worker"));
}

// 8 x 10 workers east of an I/O column holding two DRAM tiles (the shape of chips/wse2.yaml).
Values fabric(const char* edge) {
  return {{"tile_edge", edge},
          {"grid.x_size", "9"},
          {"grid.y_size", "10"},
          {"workers", "x=1-8 y=0-9"},
          {"dram.tiles", "0-0; 0-5"}};
}

TEST(Blocks, ABlockIsOneCoreWithItsPesSramComputeAndTheLinksAcrossItsEdge) {
  MeshTopology pes = make(fabric("1"));
  MeshTopology blocks = make(fabric("2"));
  EXPECT_EQ(pes.info().num_cores, 80u);
  EXPECT_EQ(blocks.info().num_cores, 20u);  // 4 x 5 blocks
  EXPECT_EQ(blocks.info().sram_bytes_per_core, 4 * pes.info().sram_bytes_per_core);
  EXPECT_DOUBLE_EQ(blocks.info().sram_bytes_per_s, 4 * pes.info().sram_bytes_per_s);
  EXPECT_DOUBLE_EQ(blocks.peak_flops_per_s(TESSERA_DTYPE_FP16),
                   4 * pes.peak_flops_per_s(TESSERA_DTYPE_FP16));
  // The I/O column folds into node column 0, the workers' 8 columns into 1-4.
  tessera_endpoint core0 = blocks.endpoint(blocks.core(0, 0));
  EXPECT_EQ(core0.x, 1);
  EXPECT_EQ(core0.y, 0);
  tessera_endpoint dram1 = blocks.endpoint(blocks.dram_controller(1));
  EXPECT_EQ(dram1.x, 0);
  EXPECT_EQ(dram1.y, 2);  // PE row 5 in block row 2
  // A hop between blocks crosses two routers and two PE links side by side.
  std::vector<uint32_t> east = checked_route(blocks, blocks.core(0, 0), blocks.core(0, 1));
  ASSERT_EQ(east.size(), 3u);
  EXPECT_DOUBLE_EQ(blocks.link(east[1]).latency_s, 2 * 9e-9);
  EXPECT_DOUBLE_EQ(blocks.link(east[1]).bytes_per_s, 2 * 32e9);
  // Its 4 PEs reach the router side by side: 4 PE links (the 8 of its edge do not bound them).
  EXPECT_DOUBLE_EQ(blocks.link(east[0]).bytes_per_s, 4 * 32e9);
  EXPECT_DOUBLE_EQ(pes.link(checked_route(pes, pes.core(0, 0), pes.core(0, 1))[0]).bytes_per_s,
                   32e9);
}

TEST(Blocks, WorkersThatDoNotFillWholeBlocksAreRefusedSayingWhy) {
  auto error = [](Values v) { return construction_error<MeshTopology>(std::move(v)); };
  EXPECT_EQ(error(fabric("3")),
            "parameter 'tile_edge': the workers span 8 columns (1 to 8), not a multiple of 3; "
            "choose an edge that divides it");
  Values holed = fabric("2");
  holed["workers"] = "x=1-8 y=0-4; x=1-7 y=5-9";  // PE 8-5 missing
  EXPECT_EQ(error(holed),
            "parameter 'tile_edge': the block at 4-2 holds 3 worker PEs of 4; the workers must "
            "fill whole 2x2 blocks");
  Values two_chips = fabric("2");
  two_chips["chips.x"] = "2";
  two_chips["ethernet.tiles"] = "0-1 0-2 0-3 0-4";
  EXPECT_EQ(error(two_chips),
            "parameter 'tile_edge': folds one fabric into blocks; set it on a single chip (chips "
            "1x1)");
}

// ---- Without wraparound ------------------------------------------------------------------------

// 4 x 3 nodes: 11 workers, DRAM at the corner 3-2.
Values mesh() {
  return {{"wraparound", "false"},
          {"grid.x_size", "4"},
          {"grid.y_size", "3"},
          {"workers", "x=0-3 y=0-1; x=0-2 y=2"},
          {"dram.tiles", "3-2"}};
}

// Router -> router links of a route, as the nodes it visits.
std::vector<Node> nodes_visited(const MeshTopology& t, const std::vector<uint32_t>& links) {
  std::vector<Node> nodes;
  for (uint32_t l : links)
    if (tessera_endpoint e = t.endpoint(t.link(l).src); e.kind == TESSERA_ENDPOINT_ROUTER)
      nodes.push_back({e.x, e.y});
  if (!links.empty())
    if (tessera_endpoint e = t.endpoint(t.link(links.back()).dst);
        e.kind == TESSERA_ENDPOINT_ROUTER)
      nodes.push_back({e.x, e.y});
  return nodes;
}

TEST(NoWraparound, OneRouterPerNodeLinkedToItsNeighboursInsideTheGrid) {
  MeshTopology t = make(mesh());
  tessera_topology_info info = t.info();
  EXPECT_EQ(info.num_endpoints, 11u + 1 + 12);
  // NIU links of 11 cores and 1 DRAM tile both ways, then 2 * ((W-1) * H + W * (H-1)) router links.
  EXPECT_EQ(info.num_links, 2u * 11 + 2 * 1 + 2 * (3 * 3 + 4 * 2));
  EXPECT_STREQ(t.endpoint(t.router(0, {3, 2})).name, "noc0 r(3,2)");
  uint32_t router_links = 0;
  for (uint32_t l = 0; l < info.num_links; ++l) {
    tessera_endpoint a = t.endpoint(t.link(l).src), b = t.endpoint(t.link(l).dst);
    if (a.kind != TESSERA_ENDPOINT_ROUTER || b.kind != TESSERA_ENDPOINT_ROUTER) continue;
    ++router_links;
    EXPECT_EQ(std::abs(a.x - b.x) + std::abs(a.y - b.y), 1) << "link " << l << " wraps";
    EXPECT_EQ(t.link(l).network, 0u);
  }
  EXPECT_EQ(router_links, 34u);
}

TEST(NoWraparound, RoutesGoXThenYTowardsTheDestination) {
  MeshTopology t = make(mesh());
  // Corner to corner: 3 + 2 router hops, plus the NIU link and the memory link.
  std::vector<uint32_t> across = checked_route(t, t.core(0, 0), t.dram_controller(0));
  EXPECT_EQ(across.size(), 3u + 2 + 2);
  EXPECT_EQ(nodes_visited(t, across),
            (std::vector<Node>{{0, 0}, {1, 0}, {2, 0}, {3, 0}, {3, 1}, {3, 2}}));
  EXPECT_EQ(t.hops(0, {0, 0}, {3, 2}), 5u);
  // (+x, -y) from 0-2 to 3-0 and (-x, +y) from 3-0 to 0-2: x first, then y, one turn each.
  uint32_t south_west = t.core(0, 8), north_east = t.core(0, 3);  // cores 0-2 and 3-0
  EXPECT_EQ(nodes_visited(t, checked_route(t, south_west, north_east)),
            (std::vector<Node>{{0, 2}, {1, 2}, {2, 2}, {3, 2}, {3, 1}, {3, 0}}));
  EXPECT_EQ(nodes_visited(t, checked_route(t, north_east, south_west)),
            (std::vector<Node>{{3, 0}, {2, 0}, {1, 0}, {0, 0}, {0, 1}, {0, 2}}));
  // Along an edge there is no way round: 0-0 -> 3-0 is 3 hops, 3-0 -> 0-0 too.
  EXPECT_EQ(checked_route(t, t.core(0, 3), t.core(0, 0)).size(), 3u + 2);
}

TEST(NoWraparound, EveryEndpointReachesEveryEndpointInManhattanHops) {
  MeshTopology t = make(mesh());
  std::vector<uint32_t> all(t.info().num_endpoints);  // routers too: one NoC, no refusal
  std::iota(all.begin(), all.end(), 0u);
  EXPECT_EQ(check_routes(t, all, all), "");
  for (uint32_t src : all)
    for (uint32_t dst : all) {
      if (src == dst) continue;
      tessera_endpoint a = t.endpoint(src), b = t.endpoint(dst);
      // Router hops |dx| + |dy|, plus a NIU link at each end that is not a router.
      int ends =
          (a.kind != TESSERA_ENDPOINT_ROUTER ? 1 : 0) + (b.kind != TESSERA_ENDPOINT_ROUTER ? 1 : 0);
      EXPECT_EQ(static_cast<int>(checked_route(t, src, dst).size()),
                std::abs(a.x - b.x) + std::abs(a.y - b.y) + ends)
          << src << " -> " << dst;
    }
}

TEST(NoWraparound, EachChipOfAChipMeshIsAMesh) {
  MeshTopology t = make({{"wraparound", "false"}, {"chips.x", "2"}});
  EXPECT_EQ(t.info().num_endpoints, 2u * (80 + 6 + 120) + 2);
  // 1-1 -> 9-11 on chip 1: 8 + 10 hops (a torus: 3 + 2 on NoC1).
  EXPECT_EQ(
      checked_route(t, t.core(1, wormhole_core(1, 1)), t.core(1, wormhole_core(9, 11))).size(),
      8u + 10 + 2);
  std::vector<uint32_t> ends;
  for (uint32_t chip = 0; chip < 2; ++chip)
    ends.insert(ends.end(), {t.core(chip, 0), t.core(chip, 79), t.dram_controller(chip * 6 + 5),
                             t.router(chip, 0, {5, 5}), t.port(chip, chip == 0 ? 0 : 1, 0)});
  EXPECT_EQ(check_routes(t, ends, ends), "");
}

// Row by row, as on the tori: the planner lays an op's tiles on a rectangle of the rows
// (op_traffic.hpp, grid_placements), a row's next core one hop along it, a column's one row down.
TEST(NoWraparound, CoresAreNumberedRowByRow) {
  MeshTopology t = make({{"wraparound", "false"}, {"workers", "x=1-4 y=1-3"}});
  std::vector<std::string> names;
  for (uint32_t c = 0; c < 12; ++c) names.emplace_back(t.endpoint(t.core(0, c)).name);
  EXPECT_EQ(names,
            (std::vector<std::string>{"tensix 1-1", "tensix 2-1", "tensix 3-1", "tensix 4-1",
                                      "tensix 1-2", "tensix 2-2", "tensix 3-2", "tensix 4-2",
                                      "tensix 1-3", "tensix 2-3", "tensix 3-3", "tensix 4-3"}));
  EXPECT_EQ(checked_route(t, t.core(0, 3), t.core(0, 7)).size(), 1u + 2);  // down a column
  EXPECT_EQ(checked_route(t, t.core(0, 3), t.core(0, 4)).size(), 4u + 2);  // a row's end
}

TEST(NoWraparound, FoldedBlocksFormAMesh) {
  Values values = fabric("2");
  values["wraparound"] = "false";
  MeshTopology blocks = make(values);
  // 5 x 5 nodes (the I/O column and 4 block columns, 5 block rows): no link wraps.
  EXPECT_EQ(blocks.info().num_links, 2u * 20 + 2 * 2 + 2 * (4 * 5 + 5 * 4));
  // Block 1-0 to block 4-4: 3 + 4 hops, each crossing 2 routers' latency.
  std::vector<uint32_t> r = checked_route(blocks, blocks.core(0, 0), blocks.core(0, 19));
  ASSERT_EQ(r.size(), 3u + 4 + 2);
  EXPECT_DOUBLE_EQ(blocks.link(r[1]).latency_s, 2 * 9e-9);
  std::vector<uint32_t> all(blocks.info().num_endpoints);
  std::iota(all.begin(), all.end(), 0u);
  EXPECT_EQ(check_routes(blocks, all, all), "");
}

TEST(NoWraparound, Wse2IsAMeshOfBlocks) {
  MeshTopology wse2 = make(load_preset(std::string(TESSERA_CHIPS_DIR) + "/wse2.yaml").topology);
  // 64 x 83 nodes (the I/O column, 63 x 83 blocks of 12 x 12 PEs), 12 I/O tiles.
  EXPECT_EQ(wse2.info().num_cores, 5229u);
  EXPECT_EQ(wse2.info().num_links, 2u * 5229 + 2 * 12 + 2 * (63 * 83 + 64 * 82));
  // Corner block to corner block: 62 + 82 hops, not the torus's shorter way round.
  EXPECT_EQ(checked_route(wse2, wse2.core(0, 0), wse2.core(0, 5228)).size(), 62u + 82 + 2);
}

TEST(NoWraparound, Wse3FoldsTheWholeBlocksItsWorkersFill) {
  MeshTopology wse3 = make(load_preset(std::string(TESSERA_CHIPS_DIR) + "/wse3.yaml").topology);
  // 63 x 97 blocks of the 756 x 1164 workers; the 5 PE columns and 8 PE rows beyond them fold into
  // one node column and row of routers, beside the I/O column: 65 x 98 nodes.
  EXPECT_EQ(wse3.info().num_cores, 6111u);
  EXPECT_EQ(wse3.info().num_links, 2u * 6111 + 2 * 12 + 2 * (64 * 98 + 65 * 97));
  EXPECT_EQ(wse3.info().sram_bytes_per_core, 144u * 49152);
}

TEST(NoWraparound, ABadValueIsRefusedSayingWhatIsExpected) {
  Values values = mesh();
  values["wraparound"] = "maybe";
  EXPECT_EQ(construction_error<MeshTopology>(values),
            "parameter 'wraparound': expected true or false, got 'maybe'");
}

TEST(Presets, WormholeAndBlackholeBuild) {
  for (const char* file :
       {"wormhole-n150", "blackhole-p150", "wormhole-n300", "wormhole-t3000", "wormhole-galaxy"}) {
    Preset preset = load_preset(std::string(TESSERA_CHIPS_DIR) + "/" + file + ".yaml");
    EXPECT_EQ(preset.target, "mesh_tenstorrent");
    EXPECT_EQ(construction_error<MeshTopology>(preset.topology), "") << file;
  }
  MeshTopology n300 =
      make(load_preset(std::string(TESSERA_CHIPS_DIR) + "/wormhole-n300.yaml").topology);
  EXPECT_EQ(n300.info().num_chips, 2u);
  EXPECT_EQ(n300.info().num_cores, 2u * 64);  // 2 x 64 Tensix [W]
  MeshTopology t3000 =
      make(load_preset(std::string(TESSERA_CHIPS_DIR) + "/wormhole-t3000.yaml").topology);
  EXPECT_EQ(t3000.info().num_chips, 8u);
  MeshTopology galaxy =
      make(load_preset(std::string(TESSERA_CHIPS_DIR) + "/wormhole-galaxy.yaml").topology);
  EXPECT_EQ(galaxy.info().num_chips, 32u);
  // Corner to corner of the 8 x 4 chip mesh: 7 Ethernet hops along x, then 3 along y.
  std::vector<uint32_t> across = checked_route(galaxy, galaxy.core(0, 0), galaxy.core(31, 63));
  EXPECT_EQ(std::count_if(
                across.begin(), across.end(),
                [&](uint32_t l) { return galaxy.link(l).link_class == TESSERA_LINK_CHIP_TO_CHIP; }),
            10);
  MeshTopology bh =
      make(load_preset(std::string(TESSERA_CHIPS_DIR) + "/blackhole-p150.yaml").topology);
  EXPECT_STREQ(bh.info().name, "blackhole-p150");
  EXPECT_EQ(bh.info().num_cores, 140u);
  EXPECT_EQ(bh.info().num_endpoints, 140u + 8 + 2 * 17 * 12);
  EXPECT_DOUBLE_EQ(bh.peak_flops_per_s(TESSERA_DTYPE_FP16), 4096 * 1.35e9);
  std::vector<uint32_t> r = checked_route(bh, 0, 1);  // 1-2 -> 2-2
  ASSERT_EQ(r.size(), 3u);
  EXPECT_DOUBLE_EQ(bh.link(r[1]).bytes_per_s, 64 * 1.35e9);
  // Controller 0 (0-0, 0-1, 0-11) from 1-2: 0-1 is 1 + 1 hops on NoC1.
  std::vector<uint32_t> d = checked_route(bh, 0, bh.dram_controller(0));
  ASSERT_EQ(d.size(), 4u);
  EXPECT_DOUBLE_EQ(bh.link(d.back()).bytes_per_s, 64 * 1.35e9);
  EXPECT_DOUBLE_EQ(bh.endpoint(bh.dram_controller(0)).bytes_per_s, 512e9 / 8);
}

}  // namespace
}  // namespace tessera::plugins::mesh
