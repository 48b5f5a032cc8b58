// Collectives on the simulator's flow network: alone on their links they take what the planner
// prices them at (one computation), collectives that share links slow each other down, and the
// planner's price of a use with every replica's copy is what the simulator moves.
#include "framework/sim/collective_sim.hpp"

#include <gtest/gtest.h>

#include "tests/unit/collective/graphs.hpp"

namespace tessera::collective {
namespace {

using test::chips_upto;
using A = CollectiveAlgorithm;
using K = CollectiveKind;

constexpr double kBytes = 64.0 * 1024 * 1024;

void expect_as_priced(const ChipGraph& graph, const Collective& c) {
  SCOPED_TRACE(std::string(to_string(c.kind)) + " " + to_string(c.algorithm));
  CollectivePrice priced = sim::price_collective(graph, c).take();
  sim::CollectiveRun run = sim::simulate_collectives(graph, std::span(&c, 1)).take();
  ASSERT_EQ(run.seconds.size(), 1u);
  EXPECT_NEAR(run.seconds[0], priced.seconds, priced.seconds * 1e-12);
  EXPECT_EQ(run.algorithms[0], priced.algorithm);
  EXPECT_DOUBLE_EQ(run.total_link_bytes, priced.link_bytes);
  EXPECT_DOUBLE_EQ(run.makespan_s, run.seconds[0]);
}

TEST(SimulateCollectives, AloneTheyTakeWhatTheyArePriced) {
  ChipGraph ring = test::ring_graph(8);
  for (A a : {A::ring, A::bidirectional_ring, A::tree})
    for (double n : {4096.0, kBytes}) expect_as_priced(ring, {K::all_reduce, a, n, chips_upto(8)});
  // Every pair linked: direct messages have their links to themselves too.
  ChipGraph full = test::full_graph(8);
  for (A a : {A::tree, A::direct, A::automatic})
    for (double n : {4096.0, kBytes}) expect_as_priced(full, {K::all_reduce, a, n, chips_upto(8)});
  expect_as_priced(full, {K::all_gather, A::tree, kBytes, chips_upto(8)});
  expect_as_priced(full, {K::all_to_all, A::direct, kBytes, chips_upto(8)});
  expect_as_priced(test::mesh_graph(4, 2, 2), {K::all_reduce, A::ring_2d, kBytes, chips_upto(8)});
  expect_as_priced(test::line_graph(4), {K::send_recv, A::direct, kBytes, {0, 3}});
}

TEST(SimulateCollectives, MessageOverheadIsPaidAsPriced) {
  ChipGraph ring = test::ring_graph(8);
  ring.message_overhead_s = 3e-6;
  expect_as_priced(ring, {K::all_reduce, A::ring, kBytes, chips_upto(8)});
  expect_as_priced(ring, {K::all_reduce, A::tree, 1024, chips_upto(8)});
}

TEST(SimulateCollectives, CollectivesSharingLinksTakeLonger) {
  ChipGraph ring = test::ring_graph(8);
  // Even and odd chips: each ring's hops are two links, and each link is on one hop of each.
  std::vector<Collective> both{{K::all_reduce, A::ring, kBytes, {0, 2, 4, 6}},
                               {K::all_reduce, A::ring, kBytes, {1, 3, 5, 7}}};
  double alone_s = sim::price_collective(ring, both[0]).take().seconds;
  auto run = sim::simulate_collectives(ring, both).take();
  ASSERT_EQ(run.seconds.size(), 2u);
  for (double seconds : run.seconds) EXPECT_GT(seconds, 1.8 * alone_s);
  // The bytes are the same however the links are shared.
  double priced_bytes = 2 * sim::price_collective(ring, both[0]).take().link_bytes;
  EXPECT_DOUBLE_EQ(run.total_link_bytes, priced_bytes);
  // Disjoint halves of the ring do not meet: each takes what it would alone.
  std::vector<Collective> apart{{K::all_reduce, A::ring, kBytes, {0, 1}},
                                {K::all_reduce, A::ring, kBytes, {4, 5}}};
  auto apart_run = sim::simulate_collectives(ring, apart).take();
  double pair_s = sim::price_collective(ring, apart[0]).take().seconds;
  for (double seconds : apart_run.seconds) EXPECT_NEAR(seconds, pair_s, pair_s * 0.01);
}

TEST(CollectivePricer, CopiesArePricedTogetherUnderCopyZerosAlgorithm) {
  ChipGraph ring = test::ring_graph(8);
  ring.message_overhead_s = 5e-6;
  // Copy 0 alone takes a tree for 1 KiB; copy 1 then runs a tree too, and both meet on the links.
  std::vector<Collective> copies{{K::all_reduce, A::automatic, 1024, {0, 2, 4, 6}},
                                 {K::all_reduce, A::automatic, 1024, {1, 3, 5, 7}}};
  sim::CollectivePricer pricer(ring);
  CollectivePrice together = pricer.price(copies).take();
  CollectivePrice alone = sim::price_collective(ring, copies[0]).take();
  EXPECT_EQ(together.algorithm, alone.algorithm);
  EXPECT_EQ(together.algorithm, A::tree);
  for (Collective& c : copies) c.algorithm = A::tree;
  auto run = sim::simulate_collectives(ring, copies).take();
  EXPECT_NEAR(together.seconds, run.makespan_s, 1e-12 * run.makespan_s);
  EXPECT_GE(together.seconds, alone.seconds);
  // One copy: its price alone; asked again, the same answer.
  CollectivePrice one = pricer.price(std::span(copies.data(), 1)).take();
  EXPECT_NEAR(one.seconds, sim::price_collective(ring, copies[0]).take().seconds, 1e-15);
  EXPECT_EQ(pricer.price(copies).take().seconds, together.seconds);
}

TEST(SimulateCollectives, AnErrorNamesTheCollective) {
  ChipGraph ring = test::ring_graph(8);
  std::vector<Collective> bad{{K::all_reduce, A::ring, kBytes, {0, 1}},
                              {K::all_reduce, A::ring, kBytes, {2, 2}}};
  EXPECT_EQ(sim::simulate_collectives(ring, bad).error().message,
            "collective 1: group: chip 2 is listed twice");
}

}  // namespace
}  // namespace tessera::collective
