// kind: mesh, the design-space variant of IpuTopology (Elk §6.4: all-to-all vs 2D mesh), and the
// guarantee that kind: alltoall stays what it was.
#include <gtest/gtest.h>

#include <cstdlib>
#include <numeric>
#include <random>

#include "common/preset_params.hpp"
#include "common/topology_builder.hpp"
#include "topology.hpp"

namespace tessera::plugins::ipu {
namespace {

using Values = std::map<std::string, std::string>;

constexpr double kClockHz = 1.325e9;

IpuTopology make(Values values = {}) {
  return build_topology<IpuTopology>(std::move(values));
}

// Two chips of 12 tiles: 3 rows x 4 columns each, 4 HBM controllers attached to all 3 rows (the
// default).
IpuTopology make_small() {
  return make({{"kind", "mesh"}, {"chips", "2"}, {"cores_per_chip", "12"}});
}

std::vector<uint32_t> range(uint32_t first, uint32_t end) {
  std::vector<uint32_t> v(end - first);
  std::iota(v.begin(), v.end(), first);
  return v;
}

uint32_t manhattan(const tessera_endpoint& a, const tessera_endpoint& b) {
  return static_cast<uint32_t>(std::abs(a.x - b.x) + std::abs(a.y - b.y));
}

// The endpoints a route visits after its source.
std::vector<uint32_t> visited(const IpuTopology& t, uint32_t src, uint32_t dst) {
  std::vector<uint32_t> ends;
  for (uint32_t link : checked_route(t, src, dst)) ends.push_back(t.link(link).dst);
  return ends;
}

TEST(MeshShape, DefaultColumnsAreTheSquarestSplit) {
  auto shape = [](const char* cores) {
    IpuTopology t = make({{"kind", "mesh"}, {"cores_per_chip", cores}});
    return std::pair{t.mesh_columns(), t.mesh_rows()};
  };
  EXPECT_EQ(shape("1472"), std::pair(46u, 32u));
  EXPECT_EQ(shape("12"), std::pair(4u, 3u));
  EXPECT_EQ(shape("16"), std::pair(4u, 4u));
  EXPECT_EQ(shape("13"), std::pair(13u, 1u));
  EXPECT_EQ(shape("1"), std::pair(1u, 1u));
}

TEST(MeshShape, EndpointAndLinkCounts) {
  IpuTopology t = make_small();
  EXPECT_EQ(t.info().num_cores, 24u);
  EXPECT_EQ(t.info().num_endpoints, 2 * (12 + 1 + 4));  // tiles, port, controllers
  // Per chip, both ways: 3 rows x 3 east links, 4 columns x 2 south links, the port's link, and
  // 4 controllers x 3 attach rows; then one chip link each way.
  EXPECT_EQ(t.info().num_links, 2 * 2 * (3 * 3 + 4 * 2 + 1 + 4 * 3) + 2);
}

TEST(MeshShape, TilesAreColumnMajor) {
  IpuTopology t = make_small();
  tessera_endpoint tile = t.endpoint(12 + 7);
  EXPECT_EQ(tile.kind, TESSERA_ENDPOINT_CORE);
  EXPECT_EQ(tile.chip, 1u);
  EXPECT_EQ(tile.x, 2);  // 3 rows: tile 7 is the second of column 2
  EXPECT_EQ(tile.y, 1);
  EXPECT_EQ(tile.memory_bytes, 638976u);
  EXPECT_STREQ(tile.name, "chip1.tile7");
  EXPECT_EQ(t.mesh_tile(1, 2, 1), 12u + 7);
}

TEST(MeshShape, PortSitsBesideTheMiddleOfRowZero) {
  IpuTopology t = make_small();
  tessera_endpoint port = t.endpoint(t.exchange_of_chip(1));
  EXPECT_EQ(port.kind, TESSERA_ENDPOINT_ROUTER);
  EXPECT_STREQ(port.name, "chip1.port");
  EXPECT_EQ(port.x, 2);
  EXPECT_EQ(port.y, 0);
  EXPECT_EQ(t.gateway_tile(1), t.mesh_tile(1, 2, 0));
  EXPECT_EQ(checked_route(t, t.exchange_of_chip(1), t.gateway_tile(1)).size(), 1u);
}

TEST(MeshRoutes, EveryEndpointReachesEveryEndpoint) {
  IpuTopology t = make_small();
  std::vector<uint32_t> all = range(0, t.info().num_endpoints);
  EXPECT_EQ(check_routes(t, all, all), "");
  IpuTopology odd = make({{"kind", "mesh"},
                          {"chips", "3"},
                          {"cores_per_chip", "30"},
                          {"mesh.columns", "5"},
                          {"hbm.controllers", "3"},
                          {"hbm.attach_rows", "2"}});
  std::vector<uint32_t> odd_all = range(0, odd.info().num_endpoints);
  EXPECT_EQ(check_routes(odd, odd_all, odd_all), "");
}

TEST(MeshRoutes, TileToTileIsManhattanDistanceOfMeshLinks) {
  IpuTopology t = make_small();
  for (uint32_t src = 0; src < 12; ++src)
    for (uint32_t dst = 0; dst < 12; ++dst) {
      std::vector<uint32_t> route = checked_route(t, src, dst);
      EXPECT_EQ(route.size(), manhattan(t.endpoint(src), t.endpoint(dst))) << src << " -> " << dst;
      for (uint32_t index : route) {
        EXPECT_EQ(t.link(index).link_class, TESSERA_LINK_ON_CHIP);
        EXPECT_DOUBLE_EQ(t.link(index).bytes_per_s, 32 * kClockHz);
        EXPECT_DOUBLE_EQ(t.link(index).latency_s, 2 / kClockHz);
      }
    }
}

TEST(MeshRoutes, XFirstThenY) {
  IpuTopology t = make_small();
  // (0,0) -> (3,2): along row 0 to column 3, then down column 3.
  auto at = [&](uint32_t x, uint32_t y) { return t.mesh_tile(0, x, y); };
  EXPECT_EQ(visited(t, at(0, 0), at(3, 2)),
            (std::vector<uint32_t>{at(1, 0), at(2, 0), at(3, 0), at(3, 1), at(3, 2)}));
  EXPECT_EQ(visited(t, at(3, 2), at(0, 0)),
            (std::vector<uint32_t>{at(2, 2), at(1, 2), at(0, 2), at(0, 1), at(0, 0)}));
}

TEST(MeshRoutes, AcrossChipsThroughBothPorts) {
  IpuTopology t = make_small();
  // chip0 (0,0) -> gateway (2,0) -> port -> chip1 port -> gateway (2,0) -> (1,1).
  std::vector<uint32_t> ends = visited(t, 0, t.mesh_tile(1, 1, 1));
  EXPECT_EQ(ends, (std::vector<uint32_t>{t.mesh_tile(0, 1, 0), t.mesh_tile(0, 2, 0),
                                         t.exchange_of_chip(0), t.exchange_of_chip(1),
                                         t.mesh_tile(1, 2, 0), t.mesh_tile(1, 1, 0),
                                         t.mesh_tile(1, 1, 1)}));
  std::vector<uint32_t> route = checked_route(t, 0, t.mesh_tile(1, 1, 1));
  tessera_link chip_link = t.link(route[3]);
  EXPECT_EQ(chip_link.link_class, TESSERA_LINK_CHIP_TO_CHIP);
  EXPECT_DOUBLE_EQ(chip_link.bytes_per_s, 160e9);
}

TEST(MeshHbm, ControllersLinkToTheirEdgeTiles) {
  // 6 rows x 8 columns; west: controllers 0 and 2 at rows 1 and 4, east: 1 and 3 at rows 1 and 4.
  IpuTopology t = make({{"kind", "mesh"},
                        {"cores_per_chip", "48"},
                        {"hbm.controllers", "4"},
                        {"hbm.attach_rows", "2"},
                        {"hbm.bytes_per_s", "2e12"}});
  ASSERT_EQ(t.mesh_columns(), 8u);
  const std::vector<std::pair<int32_t, int32_t>> sites = {{0, 1}, {7, 1}, {0, 4}, {7, 4}};
  const std::vector<std::vector<int32_t>> attach_rows = {{0, 1}, {0, 1}, {3, 4}, {3, 4}};
  for (uint32_t c = 0; c < 4; ++c) {
    uint32_t controller = t.hbm_controller(0, c);
    tessera_endpoint e = t.endpoint(controller);
    EXPECT_EQ(e.kind, TESSERA_ENDPOINT_MEMORY_CONTROLLER);
    EXPECT_EQ(std::pair(e.x, e.y), sites[c]) << "controller " << c;
    std::vector<int32_t> rows;
    for (uint32_t i = 0; i < t.info().num_links; ++i) {
      tessera_link l = t.link(i);
      if (l.src != controller) continue;
      EXPECT_EQ(l.link_class, TESSERA_LINK_MEMORY);
      EXPECT_DOUBLE_EQ(l.bytes_per_s, 2e12 / 4);  // each link: the controller's full rate
      EXPECT_DOUBLE_EQ(l.latency_s, 30 / kClockHz);
      EXPECT_EQ(t.endpoint(l.dst).x, sites[c].first) << "not on the controller's edge";
      rows.push_back(t.endpoint(l.dst).y);
    }
    EXPECT_EQ(rows, attach_rows[c]) << "controller " << c;
  }
}

TEST(MeshHbm, ControllerUsesItsAttachTileNearestInRows) {
  IpuTopology t = make({{"kind", "mesh"}, {"cores_per_chip", "48"}, {"hbm.attach_rows", "2"}});
  uint32_t west = t.hbm_controller(0, 0);  // attached at (0,0) and (0,1)
  // To (5,5): in at (0,1), 5 hops east, 4 south.
  std::vector<uint32_t> route = checked_route(t, west, t.mesh_tile(0, 5, 5));
  ASSERT_EQ(route.size(), 1u + 5 + 4);
  EXPECT_EQ(t.link(route[0]).link_class, TESSERA_LINK_MEMORY);
  EXPECT_EQ(t.link(route[0]).dst, t.mesh_tile(0, 0, 1));
  // From (5,0): out at (0,0), 5 hops west.
  std::vector<uint32_t> back = checked_route(t, t.mesh_tile(0, 5, 0), west);
  ASSERT_EQ(back.size(), 5u + 1);
  EXPECT_EQ(t.link(back.back()).src, t.mesh_tile(0, 0, 0));
}

TEST(MeshHbm, AttachRowsAreClampedToTheMesh) {
  IpuTopology t = make({{"kind", "mesh"},
                        {"chips", "2"},
                        {"cores_per_chip", "12"},
                        {"hbm.attach_rows", "4"}});  // 3 rows exist
  uint32_t memory_links = 0;
  for (uint32_t i = 0; i < t.info().num_links; ++i)
    memory_links += t.link(i).link_class == TESSERA_LINK_MEMORY;
  EXPECT_EQ(memory_links, 2u * 2 * 4 * 3);
}

TEST(MeshParams, BadValuesNameTheirKey) {
  auto error = [](Values v) { return construction_error<IpuTopology>(std::move(v)); };
  EXPECT_EQ(error({{"kind", "torus"}}), "parameter 'kind': expected alltoall or mesh, got 'torus'");
  EXPECT_EQ(
      error({{"kind", "mesh"}, {"cores_per_chip", "12"}, {"mesh.columns", "5"}}),
      "parameter 'mesh.columns': 5 does not divide the 12 tiles of a chip ('cores_per_chip')");
  EXPECT_EQ(error({{"kind", "mesh"}, {"hbm.controllers", "1"}, {"hbm.placement.0", "3"}}),
            "parameter 'hbm.placement': applies to kind alltoall only; kind mesh places the HBM "
            "controllers along the west and east edges");
  EXPECT_NE(error({{"kind", "mesh"}, {"mesh.link_bytes_per_cycle", "0"}})
                .find("parameter 'mesh.link_bytes_per_cycle': must be greater than 0"),
            std::string::npos);
  EXPECT_NE(error({{"kind", "mesh"}, {"hbm.attach_rows", "0"}})
                .find("parameter 'hbm.attach_rows': must be in [1,"),
            std::string::npos);
}

// ---- kind alltoall: unchanged ------------------------------------------------------------------

bool same_tables(const IpuTopology& a, const IpuTopology& b) {
  if (a.info().num_endpoints != b.info().num_endpoints || a.info().num_links != b.info().num_links)
    return false;
  for (uint32_t i = 0; i < a.info().num_endpoints; ++i) {
    tessera_endpoint x = a.endpoint(i), y = b.endpoint(i);
    if (x.kind != y.kind || x.chip != y.chip || x.x != y.x || x.y != y.y ||
        x.memory_bytes != y.memory_bytes || std::string(x.name) != y.name)
      return false;
  }
  for (uint32_t i = 0; i < a.info().num_links; ++i) {
    tessera_link x = a.link(i), y = b.link(i);
    if (x.src != y.src || x.dst != y.dst || x.link_class != y.link_class ||
        x.bytes_per_s != y.bytes_per_s || x.latency_s != y.latency_s)
      return false;
  }
  return true;
}

TEST(Alltoall, MeshKeysChangeNothing) {
  Values mesh_keys = {{"chips", "2"},
                      {"mesh.columns", "46"},
                      {"mesh.link_bytes_per_cycle", "8"},
                      {"mesh.latency_cycles", "5"},
                      {"hbm.attach_rows", "2"}};
  EXPECT_EQ(construction_error<IpuTopology>(mesh_keys), "");
  mesh_keys["kind"] = "alltoall";
  EXPECT_TRUE(same_tables(make(mesh_keys), make({{"chips", "2"}})));
}

TEST(Alltoall, LinkIndicesAsBefore) {
  // Tile t's links are 2t (to the exchange) and 2t+1 (back); controllers and chip links follow.
  constexpr uint32_t kTiles = 1472;
  IpuTopology t = make({{"kind", "alltoall"}, {"chips", "4"}});
  EXPECT_EQ(t.info().num_endpoints, 4 * (kTiles + 1 + 4));
  EXPECT_EQ(t.info().num_links, 4 * (2 * kTiles + 2 * 4) + 4 * 3);
  EXPECT_EQ(checked_route(t, 0, kTiles - 1), (std::vector<uint32_t>{0, 2 * kTiles - 1}));
  uint32_t chip_links = 4 * (2 * kTiles + 2 * 4);
  EXPECT_EQ(checked_route(t, 5, 3 * kTiles + 2),
            (std::vector<uint32_t>{10, chip_links + 2, 2 * (3 * kTiles + 2) + 1}));
  EXPECT_EQ(checked_route(t, 7, t.hbm_controller(0, 1)),
            (std::vector<uint32_t>{14, 4 * 2 * kTiles + 2 * 1 + 1}));
  EXPECT_STREQ(t.endpoint(t.exchange_of_chip(2)).name, "chip2.exchange");
  EXPECT_EQ(t.endpoint(t.exchange_of_chip(2)).x, -1);
}

// ---- The shared pod4 presets, mesh at full size (conformance runs only the plugin's default chip)

Preset shared_preset(const char* name) {
  return load_preset(std::string(TESSERA_SHARED_CHIPS_DIR) + "/" + name + ".yaml");
}

TEST(MeshPod4, SharedPresetsBuild) {
  for (const char* file : {"ipu-pod4-hbm3e", "ipu-pod4-mesh-hbm3e"}) {
    Preset preset = shared_preset(file);
    EXPECT_EQ(preset.target, "ipu_alltoall");
    EXPECT_EQ(construction_error<IpuTopology>(preset.topology), "") << file;
  }
}

class MeshPod4Routes : public testing::Test {
 protected:
  static constexpr uint32_t kCores = 4 * 1472;
  MeshPod4Routes() : t_(make(shared_preset("ipu-pod4-mesh-hbm3e").topology)) {}
  IpuTopology t_;
};

TEST_F(MeshPod4Routes, Shape) {
  EXPECT_STREQ(t_.info().name, "ipu-pod4-mesh-hbm3e");
  EXPECT_EQ(t_.info().num_cores, kCores);
  EXPECT_EQ(t_.mesh_columns(), 46u);
  EXPECT_EQ(t_.mesh_rows(), 32u);
  EXPECT_EQ(t_.info().num_endpoints, 4 * (1472 + 1 + 4));
  // Per chip, both ways: 32 x 45 east, 46 x 31 south, the port, 4 controllers x 32 rows.
  EXPECT_EQ(t_.info().num_links, 4 * 2 * (32 * 45 + 46 * 31 + 1 + 4 * 32) + 4 * 3);
}

TEST_F(MeshPod4Routes, EveryCoreToAndFromEveryController) {
  std::vector<uint32_t> cores = range(0, kCores);
  std::vector<uint32_t> controllers = range(t_.hbm_controller(0, 0), t_.info().num_endpoints);
  EXPECT_EQ(check_routes(t_, cores, controllers), "");
  EXPECT_EQ(check_routes(t_, controllers, cores), "");
}

TEST_F(MeshPod4Routes, SampledCorePairsAndPorts) {
  std::vector<uint32_t> first = range(0, 64);
  EXPECT_EQ(check_routes(t_, first, first), "");
  std::mt19937_64 random(0x7e55e4a);
  for (int i = 0; i < 20000; ++i) {
    auto src = static_cast<uint32_t>(random() % kCores);
    auto dst = static_cast<uint32_t>(random() % kCores);
    std::vector<uint32_t> route = checked_route(t_, src, dst);
    if (src / 1472 == dst / 1472) {
      ASSERT_EQ(route.size(), manhattan(t_.endpoint(src), t_.endpoint(dst))) << src << " " << dst;
    }
  }
  std::vector<uint32_t> ports = range(t_.exchange_of_chip(0), t_.hbm_controller(0, 0));
  EXPECT_EQ(check_routes(t_, ports, range(0, t_.info().num_endpoints)), "");
}

}  // namespace
}  // namespace tessera::plugins::ipu
