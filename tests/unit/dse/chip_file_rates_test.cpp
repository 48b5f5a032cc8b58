// One number per fact: every rate a shipped chip file sets (configs/chips and the plugins' presets)
// is either read by the planner and the simulator from one place — cutting it slows the planned
// and the simulated step both — or refused where it is read, with a message naming the key that
// prices that transfer instead. Each rate is walked in a copy of a chip file through the sweep's
// machinery (the base value first, then the cut one); a rate of a shipped file that is neither
// walked nor refused fails EveryRateOfEveryShippedChipFileIsWalkedOrRefused.
#include <gtest/gtest.h>

#include <regex>
#include <set>
#include <vector>

#include "framework/chip/chip_models.hpp"
#include "framework/dse/evaluate_point.hpp"
#include "framework/dse/point_setup.hpp"
#include "framework/plugin/plugin_set.hpp"

namespace tessera::dse {
namespace {

Registry registry() {
  return Registry::discover(plugin_search_dirs({}));
}

constexpr const char* kIpu = "ipu_alltoall";
constexpr const char* kMesh = "mesh_tenstorrent";
constexpr const char* kTree = "tree_simd";

// A key cut together with a case's own: the same fact stated in a second section (a core's peak
// is the topology's clock × flops_per_cycle and the cost model's clock × its compute rate; a chip
// whose two disagree is refused, framework/plugin/peak.hpp).
struct Tied {
  const char* path;
  const char* values;
};

// Rates on links a decode barely uses are cut ten-thousandfold, and each case runs the smallest
// model its chip holds.
struct RateCase {
  const char* path;
  const char* values;
  const char* target = kIpu;
  const char* chip = "ipu-mk2-hbm3e";
  const char* model = "llama2-7b";
  std::vector<Tied> tied = {};
};

const std::vector<Tied> kIpuClock = {{"cost_model.clock_hz", "1.325e9, 1.325e7"}};
const std::vector<Tied> kN150Clock = {{"cost_model.clock_hz", "1e9, 1e7"}};
const std::vector<Tied> kN150Fpu = {
    {"topology.flops_per_cycle.fp16", "4096, 40.96"},
    {"topology.flops_per_cycle.bf16", "4096, 40.96"},
    {"topology.flops_per_cycle.fp8", "4096, 40.96"},
    {"topology.flops_per_cycle.bfp8", "4096, 40.96"},
    {"topology.flops_per_cycle.bfp4", "4096, 40.96"},
    {"topology.flops_per_cycle.bfp2", "4096, 40.96"},
    {"topology.flops_per_cycle.fp32", "1024, 10.24"},
};
const std::vector<Tied> kTreeClock = {{"cost_model.clock_hz", "750e6, 7.5e6"}};

const RateCase kWalk[] = {
    // ipu_alltoall (ipu-mk2-hbm3e: its HBM through hbm_dramsim; ipu-pod4 for the IPU-Links)
    {"topology.exchange.bytes_per_cycle", "4, 0.04"},
    {"topology.exchange.latency_cycles", "30, 300000"},
    {"topology.chip_link.bytes_per_s", "5.3333e10, 5.3333e6", kIpu, "ipu-pod4"},
    {"topology.chip_link.latency_s", "250e-9, 250e-4", kIpu, "ipu-pod4"},
    {"topology.clock_hz", "1.325e9, 1.325e7", kIpu, "ipu-mk2-hbm3e", "llama2-7b", kIpuClock},
    {"topology.sram.bytes_per_cycle", "16, 0.16"},
    {"topology.hbm.bytes_per_s", "4e12, 4e10", kIpu, "ipu-mk2"},
    {"topology.hbm.latency_cycles", "30, 3000000", kIpu, "ipu-mk2"},
    // With a memory model the lower of its sustained rate and the links binds, in both
    {"topology.hbm.bytes_per_s", "4.7104e12, 4.7104e10"},
    {"topology.mesh.link_bytes_per_cycle", "32, 0.32", kIpu, "ipu-pod4-mesh-hbm3e"},
    {"topology.mesh.latency_cycles", "2, 20000", kIpu, "ipu-pod4-mesh-hbm3e"},
    {"memory_endpoint_efficiency", "1, 0.01", kIpu, "ipu-mk2"},
    {"cost_model.sync_cycles", "118, 11800"},
    // The Elk artifact's accounting prices preloads at a rate per core: the plan it chooses (and
    // so the simulated program) moves with it
    {"cost_model.distribute_bytes_per_s", "5.24288e9, 5.24288e7", kIpu, "elk-mk2"},
    // mesh_tenstorrent (wormhole-n150; wormhole-n300 for its Ethernet)
    {"topology.dram.bytes_per_s", "288e9, 288e7", kMesh, "wormhole-n150", "gpt2-xl"},
    {"topology.link_bytes_per_cycle", "32, 0.32", kMesh, "wormhole-n150", "gpt2-xl"},
    {"topology.hop_latency_cycles", "9, 90000", kMesh, "wormhole-n150", "gpt2-xl"},
    {"topology.niu_latency_cycles", "5, 50000", kMesh, "wormhole-n150", "gpt2-xl"},
    // A core's SRAM port binds only far below the NoC's rate into it
    {"topology.sram.bytes_per_cycle", "256, 0.0256", kMesh, "wormhole-n150", "gpt2-xl"},
    {"memory_endpoint_efficiency", "1, 0.01", kMesh, "wormhole-n150", "gpt2-xl"},
    {"topology.clock_hz", "1e9, 1e7", kMesh, "wormhole-n150", "gpt2-xl", kN150Clock},
    {"topology.ethernet.latency_s", "1e-6, 1e-2", kMesh, "wormhole-n300", "gpt2-xl"},
    // The activations handed between the card's chips (planner/handoff.hpp) cross it
    {"topology.ethernet.bytes_per_s", "12.5e9, 1.25e6", kMesh, "wormhole-n300", "gpt2-xl"},
    {"cost_model.fpu_flops_per_cycle", "4096, 40.96", kMesh, "wormhole-n150", "gpt2-xl", kN150Fpu},
    {"cost_model.sfpu_lanes", "32, 0.00032", kMesh, "wormhole-n150", "gpt2-xl"},
    {"cost_model.sync_cycles", "1000, 100000", kMesh, "wormhole-n150", "gpt2-xl"},
    // tree_simd (mncore2: one map read by every interface; patent-2level for a list of levels)
    {"topology.clock_hz", "750e6, 7.5e6", kTree, "mncore2", "gpt2-xl", kTreeClock},
    {"topology.dram.bytes_per_s", "128e9, 128e7", kTree, "mncore2", "gpt2-xl"},
    {"topology.group.down_bytes_per_cycle", "64, 0.64", kTree, "mncore2", "gpt2-xl"},
    {"topology.l2b.down_bytes_per_cycle", "64, 0.64", kTree, "mncore2", "gpt2-xl"},
    {"topology.l1b.down_bytes_per_cycle", "128, 1.28", kTree, "mncore2", "gpt2-xl"},
    {"topology.l2b.up_bytes_per_cycle", "64, 0.0064", kTree, "mncore2", "gpt2-xl"},
    {"topology.mab.down_bytes_per_cycle", "32, 0.32", kTree, "mncore2", "gpt2-xl"},
    {"topology.pe.down_bytes_per_cycle", "8, 0.08", kTree, "mncore2", "gpt2-xl"},
    {"topology.sram.bytes_per_cycle", "32, 0.32", kTree, "mncore2", "gpt2-xl"},
    {"topology.link_latency_cycles", "4, 400", kTree, "mncore2", "gpt2-xl"},
};

// A sweep of the case's rate (and the keys tied to it, zipped) over `model` on `chip` of
// `target`, batch 1, KV 16, Basic and Elk-Dyn.
SweepSpec sweep(const RateCase& c) {
  const std::string zip = c.tied.empty() ? "" : ", zip: r";
  std::string axes =
      std::string("  - {path: ") + c.path + ", values: [" + c.values + "]" + zip + "}\n";
  for (const Tied& t : c.tied)
    axes += std::string("  - {path: ") + t.path + ", values: [" + t.values + "]" + zip + "}\n";
  return parse_sweep_text(std::string("name: t\nbase: {model: ") + c.model +
                              ", target: " + c.target + ", chip: " + c.chip +
                              ", batch: 1, seq: 16, designs: [basic, elk-dyn]}\naxes:\n" + axes,
                          "s.yaml")
      .take();
}

class ChipFileRate : public ::testing::TestWithParam<RateCase> {};

TEST_P(ChipFileRate, MovesPlannedAndSimulatedAlike) {
  const RateCase c = GetParam();
  SweepSpec s = sweep(c);
  auto points = enumerate_points(s);
  ASSERT_EQ(points.size(), 2u);
  driver::OpPlanCache cache;
  Registry reg = registry();
  PointResult base = evaluate_point(s, points[0], reg, cache, {2});
  PointResult cut = evaluate_point(s, points[1], reg, cache, {2});
  ASSERT_TRUE(base.ok) << base.reason;
  ASSERT_TRUE(cut.ok) << cut.reason;
  constexpr double kSlower = 1.01;
  const DesignRow& was = base.rows[1];
  const DesignRow& now = cut.rows[1];
  EXPECT_GT(now.planned.latency_s, kSlower * was.planned.latency_s);
  EXPECT_GT(now.simulated_metrics.latency_s, kSlower * was.simulated_metrics.latency_s);
}

INSTANTIATE_TEST_SUITE_P(Rates, ChipFileRate, ::testing::ValuesIn(kWalk),
                         [](const ::testing::TestParamInfo<RateCase>& param) {
                           std::string name =
                               std::string(param.param.chip) + "_" + param.param.path;
                           for (char& ch : name)
                             if (ch == '.' || ch == '-') ch = '_';
                           return name;
                         });

// A rate that would be a second number for one the topology states: refused when the cost model
// is built, naming what to set.
struct RefusedCase {
  const char* key;  // in the chip file's cost_model section
  const char* value;
  const char* target;
  const char* chip;
  const char* message;  // how the error ends
};

const RefusedCase kRefused[] = {
    {"chip_link_bytes_per_s", "1e9", kIpu, "ipu-pod4",
     "create_cost_model: parameter 'chip_link_bytes_per_s': the chip-to-chip rate is the "
     "topology's (set topology.chip_link.bytes_per_s); the planner and the simulator price "
     "chip-to-chip traffic on its links"},
    {"shift_cycles_per_byte", "0.5", kIpu, "ipu-mk2",
     "create_cost_model: 'cost_model.shift_cycles_per_byte' is not read under the routes "
     "convention: transfers are priced on the topology's links; set "
     "'topology.exchange.bytes_per_cycle' instead"},
    {"distribute_bytes_per_s", "1e9", kIpu, "ipu-mk2",
     "create_cost_model: 'cost_model.distribute_bytes_per_s' is not read under the routes "
     "convention: transfers are priced on the topology's links; set "
     "'topology.exchange.bytes_per_cycle' instead"},
    {"hop_latency_cycles", "11", kMesh, "blackhole-p150",
     "create_cost_model: 'cost_model.hop_latency_cycles' is not read under the routes "
     "convention: transfers are priced on the topology's links; set "
     "'topology.hop_latency_cycles' instead"},
    {"noc.rate_by_size.0", "128:6.0", kMesh, "blackhole-p150",
     "create_cost_model: 'cost_model.noc.rate_by_size' is not read under the routes convention: "
     "transfers are priced on the topology's links; set 'topology.link_bytes_per_cycle' "
     "instead"},
    {"dram_bytes_per_cycle", "40", kMesh, "blackhole-p150",
     "create_cost_model: 'cost_model.dram_bytes_per_cycle' is not read under the routes "
     "convention: transfers are priced on the topology's links; set 'topology.dram.bytes_per_s' "
     "instead"},
    {"ethernet_bytes_per_cycle", "50", kMesh, "wormhole-n300",
     "create_cost_model: 'cost_model.ethernet_bytes_per_cycle' is not read under the routes "
     "convention: transfers are priced on the topology's links; set "
     "'topology.ethernet.bytes_per_s' instead"},
};

ChipSpec shipped(PluginSet& plugins, const std::string& target, const std::string& chip) {
  auto library = plugins.library(target);
  EXPECT_TRUE(library.ok()) << library.error().message;
  return resolve_chip(chip, (*library)->manifest()).take();
}

TEST(ChipFileRate, ASecondNumberForATopologyRateIsRefused) {
  PluginSet plugins(registry());
  for (const RefusedCase& c : kRefused) {
    SCOPED_TRACE(std::string(c.chip) + " cost_model." + c.key);
    ChipSpec chip = shipped(plugins, c.target, c.chip);
    chip.sections[Interface::cost_model].params.items.emplace_back(c.key, c.value);
    auto models = build_chip(plugins, chip);
    ASSERT_FALSE(models.ok());
    EXPECT_TRUE(models.error().message.ends_with(c.message)) << models.error().message;
  }
}

// Under the Elk artifact's accounting the per-core rates are what the planner prices transfers at.
TEST(ChipFileRate, TheArtifactsConventionReadsItsPerCoreRates) {
  PluginSet plugins(registry());
  ChipSpec chip = shipped(plugins, kIpu, "elk-mk2");
  chip.sections[Interface::cost_model].params.items.emplace_back("shift_cycles_per_byte", "0.5");
  auto models = build_chip(plugins, chip);
  EXPECT_TRUE(models.ok()) << models.error().message;
}

// The peak table (what reports and the Ideal design divide by) is held to the rate the cost
// model times matmuls at whenever a chip is built (framework/plugin/peak.hpp, check_peaks).
bool in_peak_table(const std::string& key) {
  return key.starts_with("flops_per_cycle.");
}

// A chip-file key that states a rate or a latency (not a count, a size or a name).
bool is_rate(const std::string& key) {
  static const std::regex kRate(
      "bytes_per_s|bytes_per_cycle|latency|cycles|clock_hz|flops_per_cycle|lanes|rate_by_size|"
      "efficiency");
  return std::regex_search(key, kRate);
}

// `section.key` with list indices as N: one walked item stands for its list. A tree given as a
// list of levels (patent-2level) is read level by level as the named levels are (tree_chip.cpp,
// read_level), so the named levels' walk stands for it.
std::string walk_key(const std::string& plugin, const std::string& path) {
  static const std::regex kIndex(R"(\.\d+(\.|$))");
  std::string key = plugin + ":" + std::regex_replace(path, kIndex, ".N$1");
  const std::string list_level = "tree_simd:topology.levels.N.";
  if (key.starts_with(list_level)) key = "tree_simd:topology.pe." + key.substr(list_level.size());
  return key;
}

TEST(ChipFileRate, EveryRateOfEveryShippedChipFileIsWalkedOrRefused) {
  std::set<std::string> known;
  for (const RateCase& c : kWalk) {
    known.insert(walk_key(c.target, c.path));
    for (const Tied& t : c.tied) known.insert(walk_key(c.target, t.path));
  }
  for (const RefusedCase& c : kRefused)
    known.insert(walk_key(c.target, std::string("cost_model.") + c.key));

  const Registry reg = registry();
  int rates = 0;
  for (const Manifest& target : reg.manifests()) {
    if (!target.provides_interface(Interface::topology)) continue;
    for (const std::string& preset : chip_presets(target)) {
      ChipSpec chip = resolve_chip(preset, target).take();
      const auto& topology = chip.sections[Interface::topology].params.items;
      for (const auto& [i, section] : chip.sections) {
        // A tree chip's interfaces read one map (tree_chip.hpp): walked as the topology's.
        bool shared = i != Interface::topology && section.params.items == topology;
        std::string name(shared ? "topology" : to_string(i));
        for (const auto& [key, value] : section.params.items) {
          if (!is_rate(key) || in_peak_table(key)) continue;
          ++rates;
          std::string rate = walk_key(chip.plugin_for(i), name + "." + key);
          EXPECT_TRUE(known.contains(rate))
              << chip.file.string() << ": '" << name << "." << key
              << "' is a rate no walk changes and nothing refuses (" << rate << ")";
        }
      }
    }
  }
  EXPECT_GE(rates, 80) << "the shipped chip files were not found";
}

}  // namespace
}  // namespace tessera::dse
