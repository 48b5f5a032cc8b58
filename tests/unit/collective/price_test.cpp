// The planner's prices (sim::price_collective: a collective alone on the simulator's flow network)
// against the textbook bounds of Thakur, Rabenseifner and Gropp, "Optimization of Collective
// Communication Operations in MPICH" (IJHPCA 2005): with alpha a message's latency, B a link's
// rate, n the bytes and p the chips, a ring all-reduce takes 2 (p - 1) (alpha + n / (p B)), an
// all-gather (p - 1) (alpha + n / (p B)), a binomial tree all-reduce 2 ceil(log2 p)
// (alpha + n / B). Then what the chip graph adds: hops, contention, meshes, and the errors.
#include <gtest/gtest.h>

#include "framework/sim/collective_sim.hpp"
#include "tests/unit/collective/graphs.hpp"

namespace tessera::collective {
namespace {

using test::chips_upto;
using test::kLatencyS;
using test::kLinkBytesPerS;
using A = CollectiveAlgorithm;
using K = CollectiveKind;

constexpr double kBytes = 64.0 * 1024 * 1024;

CollectivePrice priced(const ChipGraph& graph, K kind, A algorithm, double bytes,
                       std::vector<uint32_t> group) {
  return sim::price_collective(graph, Collective{kind, algorithm, bytes, std::move(group)}).take();
}

void expect_seconds(double actual, double expected) {
  EXPECT_NEAR(actual, expected, expected * 1e-12);
}

TEST(Price, RingAllReduceIsTheTextbookBound) {
  ChipGraph ring = test::ring_graph(8);
  for (double n : {1024.0, kBytes}) {
    auto p = priced(ring, K::all_reduce, A::ring, n, chips_upto(8));
    expect_seconds(p.seconds, 2 * 7 * (kLatencyS + n / (8 * kLinkBytesPerS)));
    EXPECT_EQ(p.links_used, 8u);  // one way round
    EXPECT_DOUBLE_EQ(p.link_bytes, 14 * 8 * n / 8);
  }
}

TEST(Price, AllGatherAndReduceScatterAreHalfARingAllReduce) {
  ChipGraph ring = test::ring_graph(8);
  for (K kind : {K::all_gather, K::reduce_scatter}) {
    auto p = priced(ring, kind, A::ring, kBytes, chips_upto(8));
    expect_seconds(p.seconds, 7 * (kLatencyS + kBytes / (8 * kLinkBytesPerS)));
  }
}

TEST(Price, ABidirectionalRingHalvesTheBandwidthTerm) {
  auto p = priced(test::ring_graph(8), K::all_reduce, A::bidirectional_ring, kBytes, chips_upto(8));
  expect_seconds(p.seconds, 2 * 7 * (kLatencyS + kBytes / (2 * 8 * kLinkBytesPerS)));
  EXPECT_EQ(p.links_used, 16u);
}

TEST(Price, TreeAllReduceIsTheBinomialBoundWhenEveryPairIsLinked) {
  auto p = priced(test::full_graph(8), K::all_reduce, A::tree, kBytes, chips_upto(8));
  expect_seconds(p.seconds, 2 * 3 * (kLatencyS + kBytes / kLinkBytesPerS));
  // On a ring the partners of round k are 2^k hops apart: 1 + 2 + 4 latencies each way.
  auto ring = priced(test::ring_graph(8), K::all_reduce, A::tree, kBytes, chips_upto(8));
  expect_seconds(ring.seconds, 2 * (7 * kLatencyS + 3 * kBytes / kLinkBytesPerS));
}

TEST(Price, AutomaticTakesATreeForShortMessagesAndARingForLongOnes) {
  ChipGraph ring = test::ring_graph(8);
  // A few microseconds to issue a message, as collective libraries take.
  ring.message_overhead_s = 5e-6;
  EXPECT_EQ(priced(ring, K::all_reduce, A::automatic, 1024, chips_upto(8)).algorithm, A::tree);
  EXPECT_EQ(priced(ring, K::all_reduce, A::automatic, kBytes, chips_upto(8)).algorithm,
            A::bidirectional_ring);
  // Links one way only: the reverse ring would go the long way round.
  ChipGraph one_way = test::ring_graph(8, false);
  one_way.message_overhead_s = 5e-6;
  EXPECT_EQ(priced(one_way, K::all_reduce, A::automatic, kBytes, chips_upto(8)).algorithm, A::ring);
}

TEST(Price, MessageOverheadIsPaidPerMessageAChipSends) {
  ChipGraph ring = test::ring_graph(8);
  ring.message_overhead_s = 2e-6;
  auto p = priced(ring, K::all_reduce, A::ring, kBytes, chips_upto(8));
  expect_seconds(p.seconds, 14 * (kLatencyS + 2e-6 + kBytes / (8 * kLinkBytesPerS)));
  auto direct = priced(ring, K::all_to_all, A::direct, 1024, chips_upto(8));
  EXPECT_GT(direct.seconds, 7 * 2e-6);
}

TEST(Price, ALineHasNoCycleSoTheRingClosesOverThreeHops) {
  // Chip i's step s waits only for chip i - 1's step s - 1, so a chain of the 6 steps crosses the
  // three-hop closing message (3 -> 0) twice at most: chip 3's last message waits on steps sent by
  // chips 3, 2, 1, 0, 3, 2 (hops 3, 1, 1, 1, 3, 1), 6 transfers and 10 latencies; no link carries
  // two messages at once. A barrier after every step would take 6 (3 alpha + n / (4 B)).
  double transfer_s = kBytes / (4 * kLinkBytesPerS);
  auto ring = priced(test::line_graph(4), K::all_reduce, A::ring, kBytes, chips_upto(4));
  expect_seconds(ring.seconds, 6 * transfer_s + 10 * kLatencyS);
}

TEST(Price, SendRecvOverThreeHops) {
  auto p = priced(test::line_graph(4), K::send_recv, A::automatic, kBytes, {0, 3});
  EXPECT_EQ(p.algorithm, A::direct);
  expect_seconds(p.seconds, 3 * kLatencyS + kBytes / kLinkBytesPerS);
  EXPECT_DOUBLE_EQ(p.link_bytes, 3 * kBytes);
  EXPECT_EQ(p.links_used, 3u);
}

TEST(Price, Ring2dOnA2x2MeshGoesAlongRowsColumnsRows) {
  // Rows: one step of n/2 each way; columns: two steps of n/4; rows again: one of n/2. Every
  // message one hop, the rows' (and the columns') on links of their own.
  auto p = priced(test::mesh_graph(2, 2, 1), K::all_reduce, A::ring_2d, kBytes, chips_upto(4));
  expect_seconds(p.seconds, 4 * kLatencyS + 1.5 * kBytes / kLinkBytesPerS);
  EXPECT_EQ(p.links_used, 8u);
}

TEST(Price, DirectAllReduceOnA2x2MeshByHand) {
  // Chips 0 1 / 2 3, no latency. Each phase, every chip sends n/4 to its 3 peers; a diagonal goes
  // by the lower-numbered neighbour (0 -> 1 -> 3, 1 -> 0 -> 2, 2 -> 0 -> 1, 3 -> 1 -> 0), so links
  // 0 -> 1 and 1 -> 0 carry three messages, at B/3 each, four links two and two links one.
  // Max-min fairness gives the others more, but the phase ends with the three-way links: 3 (n/4)
  // / B; every chip's second phase waits for its last arrival, all at that time. Two phases:
  // 1.5 n / B, which a barrier after each phase gives too.
  ChipGraph mesh = test::mesh_graph(2, 2, 1);
  for (ChipLink& link : mesh.links) link.latency_s = 0;
  Collective c{K::all_reduce, A::direct, kBytes, chips_upto(4)};
  auto p = sim::price_collective(mesh, c).take();
  EXPECT_NEAR(p.seconds, 1.5 * kBytes / kLinkBytesPerS, 1e-9 * p.seconds);
  EXPECT_DOUBLE_EQ(p.link_bytes, 2 * (8 + 2 * 4) * kBytes / 4);  // 8 one-hop, 4 two-hop a phase
  // The simulator moves it in the same time: one computation.
  auto run = sim::simulate_collectives(mesh, std::span(&c, 1)).take();
  EXPECT_NEAR(run.seconds[0], p.seconds, 1e-9 * p.seconds);
}

TEST(Price, TreeAllGatherNeedsAPowerOfTwo) {
  ChipGraph full = test::full_graph(8);
  auto p = priced(full, K::all_gather, A::tree, kBytes, chips_upto(8));
  // Recursive doubling: n/8, n/4, n/2 over one hop each.
  expect_seconds(p.seconds, 3 * kLatencyS + 7 * kBytes / 8 / kLinkBytesPerS);
  Collective six{K::all_gather, A::tree, kBytes, chips_upto(6)};
  EXPECT_EQ(sim::price_collective(full, six).error().message,
            "tree all_gather (recursive doubling) needs a power-of-two number of chips; the group "
            "has 6");
  six.algorithm = A::automatic;
  EXPECT_TRUE(sim::price_collective(full, six).ok());
}

std::string error_of(const ChipGraph& graph, K kind, A algorithm, std::vector<uint32_t> group) {
  auto p = sim::price_collective(graph, Collective{kind, algorithm, 1024, std::move(group)});
  EXPECT_FALSE(p.ok());
  return p ? "" : p.error().message;
}

TEST(Price, Errors) {
  ChipGraph ring = test::ring_graph(8);
  EXPECT_EQ(error_of(ring, K::all_reduce, A::ring, {0, 3, 3}), "group: chip 3 is listed twice");
  EXPECT_EQ(error_of(ring, K::all_reduce, A::automatic, {0, 9}),
            "group: chip 9 is not in the chip graph (8 chips, numbered from 0)");
  EXPECT_EQ(error_of(ring, K::all_reduce, A::ring_2d, chips_upto(8)),
            "ring_2d needs a group that is a mesh of at least 2 x 2 chips, neighbours joined both "
            "ways; chips {0, 1, 2, 3, 4, 5, 6, 7} are not one");
  EXPECT_EQ(error_of(ring, K::all_to_all, A::ring, chips_upto(8)),
            "all_to_all has no ring algorithm; its algorithms: direct");
  EXPECT_EQ(error_of(ring, K::send_recv, A::direct, {0, 1, 2}),
            "send_recv needs a group of exactly 2 chips (from, to); got 3");
  EXPECT_EQ(error_of(ring, K::all_gather, A::ring, {4}),
            "all_gather needs a group of at least 2 chips; got 1");
  ChipGraph halves(4,
                   std::vector<ChipLink>{
                       {0, 1, 1e9, 0, 1}, {1, 0, 1e9, 0, 1}, {2, 3, 1e9, 0, 1}, {3, 2, 1e9, 0, 1}});
  EXPECT_EQ(error_of(halves, K::all_reduce, A::automatic, {0, 1, 2}),
            "no chip-to-chip path from chip 0 to chip 2");
  auto zero = sim::price_collective(ring, Collective{K::all_reduce, A::ring, 0, {0, 1}});
  EXPECT_EQ(zero.error().message, "all_reduce: bytes must be finite and > 0; got 0");
}

TEST(Names, ToStringAndParse) {
  for (A a : {A::automatic, A::ring, A::bidirectional_ring, A::ring_2d, A::tree, A::direct})
    EXPECT_EQ(parse_collective_algorithm(to_string(a)).take(), a);
  for (K k : {K::all_reduce, K::all_gather, K::reduce_scatter, K::send_recv, K::all_to_all})
    EXPECT_EQ(parse_collective_kind(to_string(k)).take(), k);
  EXPECT_EQ(parse_collective_algorithm("rings").error().message,
            "unknown collective algorithm 'rings'; expected one of automatic, ring, "
            "bidirectional_ring, ring_2d, tree, direct");
  EXPECT_EQ(parse_collective_kind("allreduce").error().message,
            "unknown collective 'allreduce'; expected one of all_reduce, all_gather, "
            "reduce_scatter, send_recv, all_to_all");
}

}  // namespace
}  // namespace tessera::collective
