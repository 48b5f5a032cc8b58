#include "topology.hpp"

#include <gtest/gtest.h>

#include <numeric>

#include "common/preset_params.hpp"
#include "common/topology_builder.hpp"

namespace tessera::plugins::tree {
namespace {

using Values = std::map<std::string, std::string>;

constexpr double kClockHz = 750e6;

TreeTopology make(Values values = {}) {
  return build_topology<TreeTopology>(std::move(values));
}

// 2 groups x 2 L2B x 2 L1B x 2 MAB x 4 PE = 64 PEs.
TreeTopology mini() {
  return make(
      {{"group.fanout", "2"}, {"l2b.fanout", "2"}, {"l1b.fanout", "2"}, {"mab.fanout", "2"}});
}

TEST(Defaults, DescribeMnCore2) {
  TreeTopology t = make();
  tessera_topology_info info = t.info();
  EXPECT_STREQ(info.name, "mncore2");
  EXPECT_EQ(info.num_cores, 4096u);
  EXPECT_EQ(info.num_levels, 6u);
  EXPECT_EQ(info.sram_bytes_per_core, 32768u);
  EXPECT_DOUBLE_EQ(info.sram_bytes_per_s, 32 * kClockHz);
  EXPECT_DOUBLE_EQ(info.clock_hz, kClockHz);
  uint32_t inner = 1 + 4 + 8 + 64 + 1024;
  EXPECT_EQ(info.num_endpoints, 4096 + inner + 4);
  EXPECT_EQ(info.num_links, 2 * (4096 + inner - 1) + 2 * 4);  // both ways on every edge
  EXPECT_DOUBLE_EQ(t.peak_flops_per_s(TESSERA_DTYPE_FP16), 128 * kClockHz);
  EXPECT_DOUBLE_EQ(t.peak_flops_per_s(TESSERA_DTYPE_FP32), 16 * kClockHz);
  EXPECT_DOUBLE_EQ(t.peak_flops_per_s(TESSERA_DTYPE_FP64), 4 * kClockHz);
  EXPECT_EQ(t.peak_flops_per_s(TESSERA_DTYPE_BF16), 0.0);
}

TEST(Levels, TopDownWithFactsPerEdge) {
  TreeTopology t = make();
  std::vector<std::string> names;
  for (uint32_t i = 0; i < kLevels; ++i) names.push_back(t.level(i).name);
  EXPECT_EQ(names, (std::vector<std::string>{"chip", "group", "L2B", "L1B", "MAB", "PE"}));
  EXPECT_EQ(t.level(0).fanout, 1u);
  EXPECT_EQ(t.level(0).nodes, 1u);
  EXPECT_EQ(t.level(0).down_bytes_per_s, 0.0);
  EXPECT_EQ(t.level(1).memory_bytes, 4u << 20);
  tessera_level l2b = t.level(2);
  EXPECT_EQ(l2b.fanout, 2u);
  EXPECT_EQ(l2b.nodes, 8u);
  EXPECT_EQ(l2b.memory_bytes, 256u << 10);
  EXPECT_DOUBLE_EQ(l2b.down_bytes_per_s, 8 * 8 * kClockHz);
  EXPECT_DOUBLE_EQ(t.level(3).down_bytes_per_s, 16 * 8 * kClockHz);
  EXPECT_EQ(t.level(3).memory_bytes, 64u << 10);
  EXPECT_EQ(t.level(4).nodes, 1024u);
  EXPECT_EQ(t.level(4).memory_bytes, 0u);
  tessera_level pe = t.level(5);
  EXPECT_EQ(pe.fanout, 4u);
  EXPECT_EQ(pe.nodes, 4096u);
  EXPECT_EQ(pe.memory_bytes, 32u << 10);
  EXPECT_DOUBLE_EQ(pe.down_bytes_per_s, 8 * kClockHz);
  EXPECT_DOUBLE_EQ(pe.up_bytes_per_s, 8 * kClockHz);
}

TEST(Endpoints, PesThenInnerNodesThenDram) {
  TreeTopology t = make();
  tessera_endpoint pe = t.endpoint(5);
  EXPECT_EQ(pe.kind, TESSERA_ENDPOINT_CORE);
  EXPECT_EQ(pe.level, 5u);
  EXPECT_EQ(pe.parent, t.node(4, 1));
  EXPECT_EQ(pe.memory_bytes, 32768u);
  tessera_endpoint root = t.endpoint(t.node(0, 0));
  EXPECT_EQ(root.kind, TESSERA_ENDPOINT_TREE_NODE);
  EXPECT_EQ(root.parent, kNoParent);
  EXPECT_EQ(t.node(0, 0), 4096u);
  tessera_endpoint l1b = t.endpoint(t.node(3, 9));
  EXPECT_EQ(l1b.level, 3u);
  EXPECT_EQ(l1b.parent, t.node(2, 1));
  EXPECT_EQ(l1b.memory_bytes, 65536u);
  EXPECT_STREQ(l1b.name, "L1B 9");
  tessera_endpoint dram = t.endpoint(t.dram(3));
  EXPECT_EQ(dram.kind, TESSERA_ENDPOINT_MEMORY_CONTROLLER);
  EXPECT_EQ(dram.x, 3);
}

TEST(Routes, LowestCommonAncestorSetsTheLength) {
  TreeTopology t = make();
  EXPECT_TRUE(checked_route(t, 9, 9).empty());
  EXPECT_EQ(checked_route(t, 0, 3).size(), 2u);    // same MAB
  EXPECT_EQ(checked_route(t, 0, 4).size(), 4u);    // same L1B (64 PEs)
  EXPECT_EQ(checked_route(t, 0, 64).size(), 6u);   // same L2B (512 PEs)
  EXPECT_EQ(checked_route(t, 0, 512).size(), 8u);  // same group (1024 PEs)
  std::vector<uint32_t> far = checked_route(t, 0, 4095);
  ASSERT_EQ(far.size(), 10u);  // up to the chip and down: 2 x 5
  EXPECT_EQ(t.link(far[4]).dst, t.node(0, 0));
  EXPECT_DOUBLE_EQ(t.link(far[0]).bytes_per_s, 8 * kClockHz);    // PE -> MAB
  EXPECT_DOUBLE_EQ(t.link(far[2]).bytes_per_s, 128 * kClockHz);  // L1B -> L2B
  EXPECT_DOUBLE_EQ(t.link(far[0]).latency_s, 4 / kClockHz);
}

TEST(Routes, InnerNodesAndDram) {
  TreeTopology t = make();
  EXPECT_EQ(checked_route(t, t.node(3, 0), 63).size(), 2u);  // L1B 0 down to its last PE
  EXPECT_EQ(checked_route(t, 64, t.node(3, 0)).size(),
            4u);  // PE of L1B 1 up to L2B 0, down to L1B 0
  std::vector<uint32_t> own = checked_route(t, 0, t.dram(0));
  ASSERT_EQ(own.size(), 5u);  // PE, MAB, L1B, L2B, group, DRAM
  EXPECT_EQ(t.link(own.back()).link_class, TESSERA_LINK_MEMORY);
  EXPECT_DOUBLE_EQ(t.link(own.back()).bytes_per_s, 128e9);
  EXPECT_EQ(checked_route(t, t.dram(3), 0).size(), 7u);  // DRAM 3, group 3, chip, group 0, ..., PE
  EXPECT_EQ(checked_route(t, t.dram(1), t.dram(2)).size(), 4u);
}

TEST(Routes, EveryEndpointReachesEveryOtherOnMini) {
  TreeTopology t = mini();
  EXPECT_EQ(t.info().num_cores, 64u);
  std::vector<uint32_t> all(t.info().num_endpoints);
  std::iota(all.begin(), all.end(), 0u);
  EXPECT_EQ(all.size(), 64u + 1 + 2 + 4 + 8 + 16 + 2);
  EXPECT_EQ(check_routes(t, all, all), "");
  EXPECT_EQ(checked_route(t, 0, 32).size(), 10u);  // different groups
  EXPECT_EQ(checked_route(t, 0, 31).size(), 8u);   // same group, different L2B
}

TEST(Routes, EveryPeReachesFarPesAndEveryDram) {
  TreeTopology t = make();
  std::vector<uint32_t> pes(4096);
  std::iota(pes.begin(), pes.end(), 0u);
  EXPECT_EQ(check_routes(t, pes, {0, 1023, 1024, 4095, t.dram(0), t.dram(1), t.dram(2), t.dram(3)}),
            "");
}

TEST(Params, AsymmetricAndCustomLevels) {
  TreeTopology t =
      make({{"l1b.up_bytes_per_cycle", "4"}, {"pe.memory_bytes", "1024"}, {"mab.fanout", "1"}});
  EXPECT_DOUBLE_EQ(t.level(3).up_bytes_per_s, 4 * kClockHz);
  EXPECT_DOUBLE_EQ(t.level(3).down_bytes_per_s, 128 * kClockHz);
  EXPECT_EQ(t.info().sram_bytes_per_core, 1024u);
  EXPECT_EQ(t.info().num_cores, 256u);
}

TEST(Params, BadValuesNameTheirKey) {
  auto error = [](Values v) { return construction_error<TreeTopology>(std::move(v)); };
  auto has = [](const std::string& message, const std::string& part) {
    return message.find(part) != std::string::npos;
  };
  EXPECT_TRUE(
      has(error({{"pe.fanout", "0"}}), "parameter 'pe.fanout': must be in [1, 1024], got 0"));
  EXPECT_TRUE(has(error({{"l2b.down_bytes_per_cycle", "-1"}}),
                  "parameter 'l2b.down_bytes_per_cycle': must be greater than 0"));
  EXPECT_TRUE(
      has(error({{"pe.memory_bytes", "0"}}), "parameter 'pe.memory_bytes': must be in [1,"));
  EXPECT_TRUE(has(error({{"mab.fanout", "1024"}, {"pe.fanout", "1024"}}),
                  "parameter 'pe.fanout': the tree would have more than 1048576 nodes"));
  EXPECT_TRUE(has(error({{"clock_hz", "0"}}), "parameter 'clock_hz': must be greater than 0"));
  EXPECT_EQ(error({{"group.fanuot", "2"}}),
            "unknown topology parameter 'group.fanuot' (did you mean 'group.fanout'?)");
}

TEST(Presets, FullAndMiniBuild) {
  for (const char* file : {"mncore2", "mncore2-mini", "patent-2level"}) {
    Preset preset = load_preset(std::string(TESSERA_CHIPS_DIR) + "/" + file + ".yaml");
    EXPECT_EQ(preset.target, "tree_simd");
    EXPECT_EQ(construction_error<TreeTopology>(preset.topology), "") << file;
  }
  TreeTopology full = make(load_preset(std::string(TESSERA_CHIPS_DIR) + "/mncore2.yaml").topology);
  EXPECT_EQ(full.info().num_cores, 4096u);
  EXPECT_EQ(full.info().num_links, make().info().num_links);
  TreeTopology small =
      make(load_preset(std::string(TESSERA_CHIPS_DIR) + "/mncore2-mini.yaml").topology);
  EXPECT_STREQ(small.info().name, "mncore2-mini");
  EXPECT_EQ(small.info().num_cores, 64u);
}

TEST(Params, ExplicitLevelsLinkTheirTopBlocksToEachOther) {
  TreeTopology t =
      make(load_preset(std::string(TESSERA_CHIPS_DIR) + "/patent-2level.yaml").topology);
  tessera_topology_info info = t.info();
  EXPECT_EQ(info.num_cores, 16u);
  EXPECT_EQ(info.num_levels, 2u);
  EXPECT_EQ(info.num_chips, 1u);
  EXPECT_STREQ(t.level(0).name, "A");
  EXPECT_STREQ(t.level(1).name, "B");
  EXPECT_DOUBLE_EQ(t.level(0).down_bytes_per_s, 8e9);
  EXPECT_EQ(info.num_endpoints, 16u + 4 + 4);          // B blocks, A blocks, a DRAM per A
  EXPECT_EQ(info.num_links, 2u * 16 + 2 * 6 + 2 * 4);  // tree edges, A pairs, DRAMs
  std::vector<uint32_t> all(info.num_endpoints);
  std::iota(all.begin(), all.end(), 0u);
  EXPECT_EQ(check_routes(t, all, all), "");
  std::vector<uint32_t> across = checked_route(t, 0, 15);  // A0 B0 -> A3 B3
  ASSERT_EQ(across.size(), 3u);
  EXPECT_EQ(t.link(across[1]).src, t.node(0, 0));
  EXPECT_EQ(t.link(across[1]).dst, t.node(0, 3));
  EXPECT_EQ(t.link(across[1]).link_class, TESSERA_LINK_ON_CHIP);
}

TEST(Params, SeveralChipsMeetThroughChipToChipLinks) {
  TreeTopology t = make({{"chip.fanout", "2"},
                         {"group.fanout", "2"},
                         {"l2b.fanout", "2"},
                         {"l1b.fanout", "2"},
                         {"mab.fanout", "2"}});
  EXPECT_EQ(t.info().num_cores, 128u);
  EXPECT_EQ(t.info().num_chips, 2u);
  EXPECT_EQ(t.endpoint(64).chip, 1u);
  std::vector<uint32_t> far = checked_route(t, 0, 64);
  ASSERT_EQ(far.size(), 11u);  // up 5, across, down 5
  EXPECT_EQ(t.link(far[5]).link_class, TESSERA_LINK_CHIP_TO_CHIP);
  EXPECT_DOUBLE_EQ(t.link(far[5]).bytes_per_s, 16 * kClockHz);
  EXPECT_DOUBLE_EQ(t.level(0).down_bytes_per_s, 16 * kClockHz);
}

}  // namespace
}  // namespace tessera::plugins::tree
