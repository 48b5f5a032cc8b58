// The flow-level network against hand calculations: max-min fair sharing, a mesh hot spot; the
// per-link sums transfer sets are built from.
#include "framework/sim/flow_network.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <utility>
#include <vector>

#include "framework/sim/link_load.hpp"

namespace tessera::sim {
namespace {

std::vector<uint32_t> finish(FlowNetwork& net, double seconds) {
  std::vector<uint32_t> owners, ids;
  net.advance(seconds, owners, ids);
  return owners;
}

TEST(FlowNetwork, OneFlowTakesBytesOverBandwidth) {
  FlowNetwork net;
  uint32_t link = net.add_link(10e9, LinkClass::on_chip);
  net.add_flow(net.add_route(std::vector<uint32_t>{link}), 1e6, 7, FlowKind::shift);
  net.recompute();
  EXPECT_DOUBLE_EQ(net.next_finish_s(), 1e-4);
  EXPECT_EQ(finish(net, 1e-4), std::vector<uint32_t>{7});
  EXPECT_EQ(net.active(), 0u);
}

// A denormal byte count (a compute stage of 1e-320 s on a 10 GB/s port): its finish time reached,
// the flow is done, though rate x time has lost the bits to take its bytes to 0.
TEST(FlowNetwork, ADenormalFlowFinishesAtItsFinishTime) {
  FlowNetwork net;
  uint32_t link = net.add_link(10e9, LinkClass::on_chip);
  net.add_flow(net.add_route(std::vector<uint32_t>{link}), 1e-320 * 10e9, 7, FlowKind::compute);
  net.recompute();
  EXPECT_EQ(finish(net, net.next_finish_s()), std::vector<uint32_t>{7});
  EXPECT_EQ(net.active(), 0u);
}

// A transfer set of 4 transfers on the shared link (and 2 on its own) beside one plain flow: the
// link is shared per transfer, 10 GB/s over 5, so the set runs at 2 GB/s per transfer (8 on the
// link) and the flow at 2; the set's own link (weight 2, 10 GB/s) has room to spare.
TEST(FlowNetwork, ATransferSetSharesALinkPerTransfer) {
  FlowNetwork net;
  uint32_t shared = net.add_link(10e9, LinkClass::on_chip);
  uint32_t own = net.add_link(10e9, LinkClass::sram_port);
  uint32_t set =
      net.add_set(net.add_route(std::vector<uint32_t>{shared, own}, std::vector<double>{4, 2}), 1e6,
                  4e6, 1, FlowKind::preload);
  uint32_t flow =
      net.add_flow(net.add_route(std::vector<uint32_t>{shared}), 1e6, 2, FlowKind::shift);
  net.recompute();
  EXPECT_DOUBLE_EQ(net.rate(set), 2e9);
  EXPECT_DOUBLE_EQ(net.rate(flow), 2e9);
  EXPECT_DOUBLE_EQ(net.kind_rate(FlowKind::preload), 8e9);  // the set's payload, 4 transfers
  EXPECT_DOUBLE_EQ(net.class_rate(LinkClass::on_chip), 8e9 + 2e9);
  EXPECT_DOUBLE_EQ(net.class_rate(LinkClass::sram_port), 4e9);
}

TEST(FlowNetwork, TwoFlowsOnOneLinkEachGetHalfThenTheSurvivorGetsAll) {
  FlowNetwork net;
  uint32_t link = net.add_link(10e9, LinkClass::on_chip);
  uint32_t small =
      net.add_flow(net.add_route(std::vector<uint32_t>{link}), 1e6, 1, FlowKind::shift);
  uint32_t big = net.add_flow(net.add_route(std::vector<uint32_t>{link}), 3e6, 2, FlowKind::shift);
  net.recompute();
  EXPECT_DOUBLE_EQ(net.rate(small), 5e9);
  EXPECT_DOUBLE_EQ(net.rate(big), 5e9);
  EXPECT_DOUBLE_EQ(net.next_finish_s(), 2e-4);  // 1 MB at 5 GB/s
  EXPECT_EQ(finish(net, 2e-4), std::vector<uint32_t>{1});
  net.recompute();
  EXPECT_DOUBLE_EQ(net.rate(big), 10e9);
  EXPECT_NEAR(net.next_finish_s(), 2e-4, 1e-15);  // the other 2 MB at 10 GB/s
}

TEST(FlowNetwork, MaxMinWithUnequalBottlenecks) {
  // a: L1 only; b: L1 and L2; c: L2 only. L2 (4 GB/s) is the tighter: b and c get 2 each; a gets
  // what b leaves of L1 (10 - 2 = 8), not an equal 5.
  FlowNetwork net;
  uint32_t l1 = net.add_link(10e9, LinkClass::on_chip), l2 = net.add_link(4e9, LinkClass::on_chip);
  uint32_t a = net.add_flow(net.add_route(std::vector<uint32_t>{l1}), 1, 0, FlowKind::shift);
  uint32_t b = net.add_flow(net.add_route(std::vector<uint32_t>{l1, l2}), 1, 0, FlowKind::shift);
  uint32_t c = net.add_flow(net.add_route(std::vector<uint32_t>{l2}), 1, 0, FlowKind::shift);
  net.recompute();
  EXPECT_DOUBLE_EQ(net.rate(a), 8e9);
  EXPECT_DOUBLE_EQ(net.rate(b), 2e9);
  EXPECT_DOUBLE_EQ(net.rate(c), 2e9);
  EXPECT_DOUBLE_EQ(net.class_rate(LinkClass::on_chip), 8e9 + 2 * 2e9 + 2e9);
}

// A 3 x 3 mesh, 1 GB/s per directed link, dimension-order routes (x first, then y). Every other
// core sends 1 MB to core (2,0): the six flows from rows 1 and 2 all arrive over (2,1)->(2,0),
// the two from row 0 over (1,0)->(2,0). By hand: 1/6 GB/s and 1/2 GB/s, done at 6 ms and 2 ms.
TEST(FlowNetwork, MeshHotSpotMatchesHandCalculation) {
  FlowNetwork net;
  std::map<std::pair<int, int>, uint32_t> link;  // (from core, to core) -> link
  auto core = [](int x, int y) { return y * 3 + x; };
  for (int y = 0; y < 3; ++y) {
    for (int x = 0; x < 3; ++x) {
      for (auto [dx, dy] : {std::pair{1, 0}, {-1, 0}, {0, 1}, {0, -1}}) {
        int nx = x + dx, ny = y + dy;
        if (nx >= 0 && nx < 3 && ny >= 0 && ny < 3)
          link[{core(x, y), core(nx, ny)}] = net.add_link(1e9, LinkClass::on_chip);
      }
    }
  }
  auto route = [&](int x, int y, int tx, int ty) {
    std::vector<uint32_t> r;
    for (; x != tx; x += tx > x ? 1 : -1)
      r.push_back(link[{core(x, y), core(x + (tx > x ? 1 : -1), y)}]);
    for (; y != ty; y += ty > y ? 1 : -1)
      r.push_back(link[{core(x, y), core(x, y + (ty > y ? 1 : -1))}]);
    return r;
  };
  std::vector<uint32_t> flows;
  for (int y = 0; y < 3; ++y) {
    for (int x = 0; x < 3; ++x) {
      if (x == 2 && y == 0) continue;
      flows.push_back(net.add_flow(net.add_route(route(x, y, 2, 0)), 1e6,
                                   static_cast<uint32_t>(core(x, y)), FlowKind::distribute));
    }
  }
  net.recompute();
  for (size_t i = 0; i < flows.size(); ++i)
    EXPECT_DOUBLE_EQ(net.rate(flows[i]), i < 2 ? 1e9 / 2 : 1e9 / 6) << "flow " << i;
  EXPECT_DOUBLE_EQ(net.next_finish_s(), 2e-3);
  EXPECT_EQ(finish(net, 2e-3), (std::vector<uint32_t>{0, 1}));
  net.recompute();  // the row-0 flows leave nothing the others could use: still 1/6 GB/s
  EXPECT_NEAR(net.next_finish_s(), 4e-3, 1e-15);
  EXPECT_EQ(finish(net, net.next_finish_s()).size(), 6u);
}

TEST(FlowNetwork, CapacityChangesTakeEffectAtRecompute) {
  FlowNetwork net;
  uint32_t link = net.add_link(1e9, LinkClass::hbm);
  uint32_t f = net.add_flow(net.add_route(std::vector<uint32_t>{link}), 1e6, 0, FlowKind::preload);
  net.recompute();
  net.set_capacity(link, 4e9);
  EXPECT_DOUBLE_EQ(net.rate(f), 1e9);
  net.recompute();
  EXPECT_DOUBLE_EQ(net.rate(f), 4e9);
  EXPECT_DOUBLE_EQ(net.class_capacity(LinkClass::hbm), 4e9);
}

// Solves are kept by the routes and the capacities of the classes they cross, by value: the HBM
// rate going up and back gives the first rates again, and changing it changes them.
TEST(FlowNetwork, ASolveRecursWhenItsRoutesAndCapacitiesDo) {
  FlowNetwork net;
  uint32_t hbm = net.add_link(1e9, LinkClass::hbm), link = net.add_link(3e9, LinkClass::on_chip);
  uint32_t a =
      net.add_flow(net.add_route(std::vector<uint32_t>{hbm, link}), 1, 0, FlowKind::preload);
  uint32_t b = net.add_flow(net.add_route(std::vector<uint32_t>{link}), 1, 0, FlowKind::shift);
  for (double hbm_bytes_per_s : {1e9, 4e9, 1e9}) {
    net.set_capacity(hbm, hbm_bytes_per_s);
    net.recompute();
    // At 1 GB/s the HBM link holds a to 1 and b takes the 2 left; at 4 GB/s they halve the 3.
    const bool slow = hbm_bytes_per_s == 1e9;
    EXPECT_DOUBLE_EQ(net.rate(a), slow ? 1e9 : 1.5e9) << hbm_bytes_per_s;
    EXPECT_DOUBLE_EQ(net.rate(b), slow ? 2e9 : 1.5e9) << hbm_bytes_per_s;
    EXPECT_DOUBLE_EQ(net.class_rate(LinkClass::hbm), slow ? 1e9 : 1.5e9) << hbm_bytes_per_s;
    EXPECT_DOUBLE_EQ(net.class_rate(LinkClass::on_chip), 3e9) << hbm_bytes_per_s;
    EXPECT_DOUBLE_EQ(net.kind_rate(FlowKind::shift), slow ? 2e9 : 1.5e9) << hbm_bytes_per_s;
  }
}

// A sum lists each loaded link once, ascending, whether it loads few of the links it has seen
// (sorted) or most of them (scanned); a transfer of no bytes loads nothing.
TEST(LoadSum, ListsLoadedLinksOnceInAscendingOrder) {
  LoadSum sum;
  std::vector<uint32_t> links;
  std::vector<double> bytes, least_s;
  sum.add(std::vector<uint32_t>{63}, 1, 0);  // 64 links seen: 3 of them is a sparse set
  sum.take(links, bytes, least_s);
  sum.add(std::vector<uint32_t>{40, 3, 40}, 2, 5e-9);
  sum.add(std::vector<uint32_t>{3, 17}, 1, 2e-9);
  sum.add(std::vector<uint32_t>{9}, 0, 1e-9);
  sum.take(links, bytes, least_s);
  EXPECT_EQ(links, (std::vector<uint32_t>{3, 17, 40}));
  EXPECT_EQ(bytes, (std::vector<double>{3, 1, 4}));
  EXPECT_EQ(least_s, (std::vector<double>{2e-9, 2e-9, 5e-9}));
  std::vector<uint32_t> most;  // 60 of 64: scanned
  for (uint32_t l = 63; l >= 4; --l) most.push_back(l);
  sum.add(most, 1, 1e-9);
  sum.take(links, bytes, least_s);
  ASSERT_EQ(links.size(), 60u);
  EXPECT_TRUE(std::is_sorted(links.begin(), links.end()));
  EXPECT_EQ(links.front(), 4u);
  EXPECT_EQ(bytes, std::vector<double>(60, 1));
  sum.take(links, bytes, least_s);  // taken: empty again
  EXPECT_TRUE(links.empty());
}

}  // namespace
}  // namespace tessera::sim
