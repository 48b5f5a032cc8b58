// The chip graph: parallel links merged, shortest routes, meshes found from links alone, ring
// orders whose neighbours are direct neighbours where a cycle exists, and the graphs of two
// shipped presets read off their topologies.
#include <gtest/gtest.h>

#include <set>
#include <utility>

#include "framework/driver/driver.hpp"
#include "tests/unit/collective/graphs.hpp"

namespace tessera::collective {
namespace {

using test::chips_upto;
using test::kLatencyS;

void expect_cycle_of_neighbours(const ChipGraph& graph, const std::vector<uint32_t>& order) {
  for (size_t i = 0; i < order.size(); ++i) {
    uint32_t a = order[i], b = order[(i + 1) % order.size()];
    EXPECT_TRUE(graph.link_between(a, b)) << "chips " << a << " and " << b << " at " << i;
  }
}

TEST(ChipGraph, ParallelLinksAreOneLinkWithTheirRatesSummed) {
  ChipGraph graph = test::mesh_graph(4, 2, 2);
  EXPECT_EQ(graph.links.size(), 20u);  // 10 neighbour pairs, both ways
  for (const ChipLink& link : graph.links) {
    EXPECT_EQ(link.links, 2u);
    EXPECT_DOUBLE_EQ(link.bytes_per_s, 25e9);
    EXPECT_DOUBLE_EQ(link.latency_s, kLatencyS);
  }
  ChipGraph slower(2, std::vector<ChipLink>{{0, 1, 1e9, 2e-6, 1}, {0, 1, 3e9, 1e-6, 2}});
  ASSERT_EQ(slower.links.size(), 1u);
  EXPECT_DOUBLE_EQ(slower.links[0].bytes_per_s, 4e9);
  EXPECT_DOUBLE_EQ(slower.links[0].latency_s, 1e-6);
  EXPECT_EQ(slower.links[0].links, 3u);
}

TEST(ChipGraph, RoutesAreShortestAndDeterministic) {
  ChipGraph ring = test::ring_graph(8);
  auto route = ring.route(4, 0).take();
  ASSERT_EQ(route.size(), 4u);
  std::vector<uint32_t> chips{ring.links[route[0]].from_chip};
  for (uint32_t l : route) chips.push_back(ring.links[l].to_chip);
  EXPECT_EQ(chips, (std::vector<uint32_t>{4, 3, 2, 1, 0}));  // the lower neighbour first
  EXPECT_TRUE(ring.route(3, 3).take().empty());
  EXPECT_EQ(ring.route(2, 7).take().size(), 3u);
}

TEST(ChipGraph, RouteErrors) {
  ChipGraph graph(4,
                  std::vector<ChipLink>{
                      {0, 1, 1e9, 0, 1}, {1, 0, 1e9, 0, 1}, {2, 3, 1e9, 0, 1}, {3, 2, 1e9, 0, 1}});
  EXPECT_EQ(graph.route(0, 2).error().message, "no chip-to-chip path from chip 0 to chip 2");
  EXPECT_EQ(graph.route(0, 9).error().message,
            "chip 9 is not in the chip graph (4 chips, numbered from 0)");
}

TEST(RingOrder, A2x4MeshGoesInSnakeOrder) {
  ChipGraph graph = test::mesh_graph(4, 2, 2);
  auto mesh = mesh_of(graph, chips_upto(8));
  ASSERT_TRUE(mesh);
  EXPECT_EQ(mesh->x, 4u);
  EXPECT_EQ(mesh->y, 2u);
  EXPECT_EQ(mesh->chips, chips_upto(8));
  auto order = ring_order(graph, chips_upto(8));
  EXPECT_EQ(order, (std::vector<uint32_t>{0, 1, 2, 3, 7, 6, 5, 4}));
  expect_cycle_of_neighbours(graph, order);
}

TEST(RingOrder, AGalaxy4x8MeshHasACycleOfNeighbours) {
  ChipGraph graph = test::mesh_graph(8, 4, 4);
  auto mesh = mesh_of(graph, chips_upto(32));
  ASSERT_TRUE(mesh);
  EXPECT_EQ(mesh->x, 8u);
  EXPECT_EQ(mesh->y, 4u);
  auto order = ring_order(graph, chips_upto(32));
  EXPECT_EQ(std::set<uint32_t>(order.begin(), order.end()).size(), 32u);
  expect_cycle_of_neighbours(graph, order);
  // A sub-mesh starting elsewhere: columns 2..5 of rows 1..2, given out of order.
  std::vector<uint32_t> part{21, 10, 11, 12, 13, 18, 19, 20};
  auto sub = mesh_of(graph, part);
  ASSERT_TRUE(sub);
  EXPECT_EQ(sub->chips, (std::vector<uint32_t>{10, 11, 12, 13, 18, 19, 20, 21}));
  auto part_order = ring_order(graph, part);
  EXPECT_EQ(part_order.front(), 21u);
  expect_cycle_of_neighbours(graph, part_order);
}

TEST(RingOrder, FullyConnectedAndRingGraphsAndALine) {
  ChipGraph full = test::full_graph(6);
  std::vector<uint32_t> group{5, 2, 0, 3};
  auto order = ring_order(full, group);
  EXPECT_EQ(order.front(), 5u);
  expect_cycle_of_neighbours(full, order);
  EXPECT_FALSE(mesh_of(full, chips_upto(6)));
  ChipGraph ring = test::ring_graph(8);
  EXPECT_EQ(ring_order(ring, chips_upto(8)), chips_upto(8));
  EXPECT_FALSE(mesh_of(ring, chips_upto(8)));
  // No cycle: the fewest hops around (1 + 1 + 1 + 3).
  EXPECT_EQ(ring_order(test::line_graph(4), chips_upto(4)), chips_upto(4));
}

// A mesh of odd sides has no cycle (it is bipartite with an odd number of chips): the search
// tour of fewest hops has one two-hop step.
TEST(RingOrder, AnOddMeshHasNoCycleAndOneStepOfTwoHops) {
  ChipGraph graph = test::mesh_graph(5, 5, 1);
  auto order = ring_order(graph, chips_upto(25));
  EXPECT_EQ(std::set<uint32_t>(order.begin(), order.end()).size(), 25u);
  uint32_t hops = 0;
  for (size_t i = 0; i < order.size(); ++i)
    hops += *graph.hops_from(order[i])[order[(i + 1) % order.size()]];
  EXPECT_EQ(hops, 26u);
  EXPECT_EQ(ring_order(graph, std::vector<uint32_t>{7, 0, 1, 2, 5, 6, 10, 11, 12}).front(), 7u);
}

driver::OpenChip open(const std::string& target, const std::string& chip) {
  static PluginSet plugins(Registry::discover(plugin_search_dirs({})));
  return driver::open_chip(plugins, driver::ChipChoice{target, chip}).take();
}

TEST(ChipGraphOfPreset, WormholeT3000IsA4x2MeshOfDoubleEthernetLinks) {
  auto chip = open("mesh_tenstorrent", "wormhole-t3000");
  ChipGraph graph = chip_graph(chip.models.topology).take();
  EXPECT_EQ(graph.chips, 8u);
  std::set<std::pair<uint32_t, uint32_t>> pairs, expected;
  for (const ChipLink& link : graph.links) {
    pairs.emplace(link.from_chip, link.to_chip);
    EXPECT_DOUBLE_EQ(link.bytes_per_s, 25e9);
    EXPECT_EQ(link.links, 2u);
  }
  for (uint32_t c = 0; c < 8; ++c) {  // chip c at column c % 4, row c / 4
    if (c % 4 != 3) expected.insert({{c, c + 1}, {c + 1, c}});
    if (c < 4) expected.insert({{c, c + 4}, {c + 4, c}});
  }
  EXPECT_EQ(pairs, expected);
  expect_cycle_of_neighbours(graph, ring_order(graph, chips_upto(8)));
}

TEST(ChipGraphOfPreset, IpuPod4IsFullyConnected) {
  auto chip = open("ipu_alltoall", "ipu-pod4");
  ChipGraph graph = chip_graph(chip.models.topology).take();
  EXPECT_EQ(graph.chips, 4u);
  ASSERT_EQ(graph.links.size(), 12u);
  for (const ChipLink& link : graph.links) {
    EXPECT_NE(link.from_chip, link.to_chip);
    EXPECT_DOUBLE_EQ(link.bytes_per_s, 53.333e9);
    EXPECT_EQ(link.links, 1u);
  }
}

}  // namespace
}  // namespace tessera::collective
