#include "topology.hpp"

#include <gtest/gtest.h>

#include <numeric>
#include <thread>

#include "common/preset_params.hpp"
#include "common/topology_builder.hpp"

namespace tessera::plugins::ipu {
namespace {

using Values = std::map<std::string, std::string>;

constexpr double kClockHz = 1.325e9;
constexpr uint32_t kTiles = 1472;

IpuTopology make(Values values = {}) {
  return build_topology<IpuTopology>(std::move(values));
}

std::vector<uint32_t> range(uint32_t first, uint32_t end) {
  std::vector<uint32_t> v(end - first);
  std::iota(v.begin(), v.end(), first);
  return v;
}

TEST(Defaults, DescribeOneMk2) {
  IpuTopology t = make();
  tessera_topology_info info = t.info();
  EXPECT_STREQ(info.name, "ipu-mk2");
  EXPECT_EQ(info.num_cores, kTiles);
  EXPECT_EQ(info.num_chips, 1u);
  EXPECT_EQ(info.num_levels, 0u);
  EXPECT_EQ(info.sram_bytes_per_core, 638976u);
  EXPECT_DOUBLE_EQ(info.clock_hz, kClockHz);
  EXPECT_DOUBLE_EQ(info.sram_bytes_per_s, 16 * kClockHz);
  EXPECT_EQ(info.num_endpoints, kTiles + 1 + 4);  // tiles, exchange, HBM controllers
  EXPECT_EQ(info.num_links, 2 * kTiles + 2 * 4);  // both ways to the exchange
}

TEST(Defaults, PeakFlopsPerTile) {
  IpuTopology t = make();
  EXPECT_DOUBLE_EQ(t.peak_flops_per_s(TESSERA_DTYPE_FP16), 128 * kClockHz);
  EXPECT_DOUBLE_EQ(t.peak_flops_per_s(TESSERA_DTYPE_FP32), 32 * kClockHz);
  EXPECT_EQ(t.peak_flops_per_s(TESSERA_DTYPE_BF16), 0.0);
  EXPECT_EQ(t.peak_flops_per_s(TESSERA_DTYPE_BFP8), 0.0) << "Mk2 stores no block fp8";
  EXPECT_EQ(t.peak_flops_per_s(TESSERA_DTYPE_INT8), 0.0);
}

TEST(Endpoints, TilesThenExchangeThenHbm) {
  IpuTopology t = make();
  tessera_endpoint tile = t.endpoint(17);
  EXPECT_EQ(tile.kind, TESSERA_ENDPOINT_CORE);
  EXPECT_EQ(tile.x, 17);
  EXPECT_EQ(tile.memory_bytes, 638976u);
  EXPECT_STREQ(tile.name, "chip0.tile17");
  EXPECT_EQ(t.endpoint(kTiles).kind, TESSERA_ENDPOINT_ROUTER);
  EXPECT_STREQ(t.endpoint(kTiles).name, "chip0.exchange");
  std::vector<int32_t> xs;
  for (uint32_t c = 0; c < 4; ++c) {
    tessera_endpoint hbm = t.endpoint(t.hbm_controller(0, c));
    EXPECT_EQ(hbm.kind, TESSERA_ENDPOINT_MEMORY_CONTROLLER);
    EXPECT_EQ(hbm.parent, kNoParent);
    xs.push_back(hbm.x);
  }
  EXPECT_EQ(xs, (std::vector<int32_t>{184, 552, 920, 1288}));
}

TEST(Links, TileExchangeBandwidthAndLatency) {
  IpuTopology t = make();
  std::vector<uint32_t> r = checked_route(t, 5, 6);
  ASSERT_EQ(r.size(), 2u);
  for (uint32_t index : r) {
    tessera_link l = t.link(index);
    EXPECT_DOUBLE_EQ(l.bytes_per_s, 4 * 1.325e9);
    EXPECT_DOUBLE_EQ(l.latency_s, 30 / 1.325e9);
    EXPECT_EQ(l.link_class, TESSERA_LINK_ON_CHIP);
  }
  EXPECT_EQ(t.link(r[0]).dst, t.exchange_of_chip(0));
}

TEST(Links, HbmSplitsChipBandwidth) {
  IpuTopology t = make({{"hbm.bytes_per_s", "2e12"}, {"hbm.controllers", "8"}});
  std::vector<uint32_t> r = checked_route(t, 0, t.hbm_controller(0, 7));
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(t.link(r[1]).link_class, TESSERA_LINK_MEMORY);
  EXPECT_DOUBLE_EQ(t.link(r[1]).bytes_per_s, 2e12 / 8);
}

TEST(Routes, SameChipIsTwoLinksCrossChipThree) {
  IpuTopology t = make({{"chips", "4"}});
  EXPECT_TRUE(checked_route(t, 3, 3).empty());
  EXPECT_EQ(checked_route(t, 0, kTiles - 1).size(), 2u);
  std::vector<uint32_t> cross = checked_route(t, 0, 3 * kTiles + 5);
  ASSERT_EQ(cross.size(), 3u);
  tessera_link chip_link = t.link(cross[1]);
  EXPECT_EQ(chip_link.link_class, TESSERA_LINK_CHIP_TO_CHIP);
  EXPECT_EQ(chip_link.src, t.exchange_of_chip(0));
  EXPECT_EQ(chip_link.dst, t.exchange_of_chip(3));
  EXPECT_DOUBLE_EQ(chip_link.bytes_per_s, 160e9 / 3);
  EXPECT_DOUBLE_EQ(chip_link.latency_s, 250e-9);
  EXPECT_EQ(checked_route(t, 0, t.hbm_controller(2, 1)).size(), 3u);
  EXPECT_EQ(checked_route(t, t.hbm_controller(1, 0), t.hbm_controller(1, 3)).size(), 2u);
}

TEST(Routes, TwoChipsShareAllTenLinks) {
  IpuTopology t = make({{"chips", "2"}});
  EXPECT_DOUBLE_EQ(t.link(checked_route(t, 0, kTiles)[1]).bytes_per_s, 160e9);
}

TEST(Routes, EveryTileReachesEveryTileAndController) {
  IpuTopology t = make({{"chips", "3"}, {"cores_per_chip", "16"}, {"hbm.controllers", "2"}});
  std::vector<uint32_t> all = range(0, t.info().num_endpoints);
  EXPECT_EQ(check_routes(t, all, all), "");
}

TEST(Routes, ConcurrentCallsAgree) {
  IpuTopology t = make({{"chips", "4"}});
  std::vector<uint32_t> destinations = range(0, t.info().num_endpoints);
  std::vector<std::vector<uint32_t>> seen(4);
  std::vector<std::thread> threads;
  for (size_t i = 0; i < seen.size(); ++i)
    threads.emplace_back([&, i] {
      std::vector<uint32_t> links;
      for (uint32_t dst : destinations) t.route(7, dst, links);
      seen[i] = links;
    });
  for (auto& th : threads) th.join();
  for (const auto& s : seen) EXPECT_EQ(s, seen[0]);
}

TEST(Params, PlacementIsReportedAndChecked) {
  IpuTopology t =
      make({{"hbm.controllers", "2"}, {"hbm.placement.0", "0"}, {"hbm.placement.1", "1471"}});
  EXPECT_EQ(t.endpoint(t.hbm_controller(0, 1)).x, 1471);
  EXPECT_NE(construction_error<IpuTopology>({{"hbm.controllers", "2"}, {"hbm.placement.0", "0"}})
                .find("parameter 'hbm.placement': lists 1 tiles for 2 controllers"),
            std::string::npos);
  EXPECT_NE(construction_error<IpuTopology>({{"hbm.placement.0", "1472"}})
                .find("parameter 'hbm.placement.0': must be in [0, 1471], got 1472"),
            std::string::npos);
}

TEST(Params, BadValuesNameTheirKey) {
  auto error = [](Values v) { return construction_error<IpuTopology>(std::move(v)); };
  EXPECT_NE(error({{"cores_per_chip", "0"}}).find("parameter 'cores_per_chip': must be in [1,"),
            std::string::npos);
  EXPECT_NE(error({{"exchange.bytes_per_cycle", "-1"}})
                .find("parameter 'exchange.bytes_per_cycle': must be greater than 0"),
            std::string::npos);
  EXPECT_NE(error({{"clock_hz", "fast"}}).find("parameter 'clock_hz': expected a number"),
            std::string::npos);
  EXPECT_NE(error({{"chips", "0"}}).find("parameter 'chips'"), std::string::npos);
  EXPECT_NE(error({{"exchange.latency_cycles", "-2"}})
                .find("parameter 'exchange.latency_cycles': must be at least 0"),
            std::string::npos);
  EXPECT_NE(error({{"chips", "64"}, {"cores_per_chip", "65536"}})
                .find("parameters 'chips' x 'cores_per_chip'"),
            std::string::npos);
  EXPECT_EQ(error({{"cores_per_chipp", "8"}}),
            "unknown topology parameter 'cores_per_chipp' (did you mean 'cores_per_chip'?)");
}

// Every preset in plugins/ipu_alltoall/chips/, the machines sold without HBM included.
constexpr const char* kPresets[] = {"ipu-mk2",   "ipu-pod4", "ipu-pod8",
                                    "ipu-m2000", "bow-2000", "c600"};

TEST(Presets, EveryPresetBuilds) {
  for (const char* file : kPresets) {
    Preset preset = load_preset(std::string(TESSERA_CHIPS_DIR) + "/" + file + ".yaml");
    EXPECT_EQ(preset.target, "ipu_alltoall");
    EXPECT_EQ(construction_error<IpuTopology>(preset.topology), "") << file;
  }
  Preset pod = load_preset(std::string(TESSERA_CHIPS_DIR) + "/ipu-pod4.yaml");
  IpuTopology t = make(pod.topology);
  EXPECT_STREQ(t.info().name, "ipu-pod4");
  EXPECT_EQ(t.info().num_cores, 4 * kTiles);
  EXPECT_EQ(t.info().num_endpoints, 4 * (kTiles + 1 + 4));
  EXPECT_EQ(t.info().num_links, 4 * (2 * kTiles + 2 * 4) + 4 * 3);
}

// Two IPU-M2000s: every pair of the 8 chips linked, at the plugin's even split of a chip's
// 160 GB/s out (the file states it rather than leaving it to the default).
TEST(Presets, Pod8LinksEveryPairAtTheEvenSplit) {
  Preset pod = load_preset(std::string(TESSERA_CHIPS_DIR) + "/ipu-pod8.yaml");
  IpuTopology t = make(pod.topology);
  EXPECT_STREQ(t.info().name, "ipu-pod8");
  EXPECT_EQ(t.info().num_cores, 8 * kTiles);
  EXPECT_EQ(t.info().num_links, 8 * (2 * kTiles + 2 * 4) + 8 * 7);
  tessera_link chip_link = t.link(checked_route(t, 0, 7 * kTiles)[1]);
  EXPECT_EQ(chip_link.link_class, TESSERA_LINK_CHIP_TO_CHIP);
  EXPECT_NEAR(chip_link.bytes_per_s, 160e9 / 7, 1e6);
  EXPECT_DOUBLE_EQ(chip_link.latency_s, 250e-9);
}

// The cost model turns T10's cycle counts into seconds at its own clock_hz, the topology its FLOP
// and link rates at its own: a preset at another clock than the Mk2's (bow-2000, c600) must set
// both, or its tiles are priced at one clock and its peak at another.
TEST(Presets, CostModelRunsAtTheTopologyClock) {
  for (const char* file : kPresets) {
    YAML::Node root = YAML::LoadFile(std::string(TESSERA_CHIPS_DIR) + "/" + file + ".yaml");
    auto clock = [](const YAML::Node& section) {
      return section && section["clock_hz"] ? section["clock_hz"].as<double>() : kClockHz;
    };
    EXPECT_DOUBLE_EQ(clock(root["cost_model"]), clock(root["topology"])) << file;
  }
}

// The machines sold without HBM: one memory port per IPU (the gateway's or the host's PCIe link
// into the exchange) at a PCIe rate, and Streaming Memory or host memory as the capacity.
TEST(Presets, StreamingMemoryMachinesHaveOnePcieMemoryPortPerIpu) {
  struct Expected {
    const char* file;
    uint32_t chips;
    double memory_bytes_per_s, clock_hz;
    uint64_t memory_bytes_per_chip;
  };
  for (const Expected& e : {Expected{"ipu-m2000", 4, 15.75e9, 1.325e9, 112ull << 30},
                            Expected{"bow-2000", 4, 15.75e9, 1.85e9, 64ull << 30},
                            Expected{"c600", 1, 31.5e9, 1.486e9, 128ull << 30}}) {
    IpuTopology t =
        make(load_preset(std::string(TESSERA_CHIPS_DIR) + "/" + e.file + ".yaml").topology);
    tessera_topology_info info = t.info();
    EXPECT_EQ(info.num_chips, e.chips) << e.file;
    EXPECT_DOUBLE_EQ(info.clock_hz, e.clock_hz) << e.file;
    EXPECT_EQ(info.num_endpoints, e.chips * (kTiles + 1 + 1)) << e.file;  // tiles, exchange, port
    for (uint32_t chip = 0; chip < e.chips; ++chip) {
      tessera_endpoint port = t.endpoint(t.hbm_controller(chip, 0));
      EXPECT_EQ(port.kind, TESSERA_ENDPOINT_MEMORY_CONTROLLER) << e.file;
      EXPECT_EQ(port.memory_bytes, e.memory_bytes_per_chip) << e.file;
      std::vector<uint32_t> route = checked_route(t, t.hbm_controller(chip, 0), chip * kTiles);
      tessera_link memory = t.link(route[0]);
      EXPECT_EQ(memory.link_class, TESSERA_LINK_MEMORY) << e.file;
      EXPECT_DOUBLE_EQ(memory.bytes_per_s, e.memory_bytes_per_s) << e.file;
      EXPECT_NEAR(memory.latency_s, 1e-6, 1e-9) << e.file;  // ~1 us through PCIe [U]
    }
  }
}

}  // namespace
}  // namespace tessera::plugins::ipu
