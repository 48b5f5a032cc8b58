#include "framework/chip_spec/chip_spec.hpp"

#include <gtest/gtest.h>

#include "tests/unit/temp_dir.hpp"

namespace tessera {
namespace {

using testing::TempDir;

// The error of a chip file whose `planner:` section is `planner` ("parsed" if it parses).
std::string planner_error(const std::string& planner) {
  auto bad = parse_chip_text("name: c\ntarget: t\nplanner:\n" + planner, "/x/c.yaml");
  return bad.ok() ? std::string("parsed") : bad.error().message;
}

TEST(Chip, SectionsAreFlattenedToDottedParameters) {
  TempDir dir;
  auto chip = read_chip(dir.write("c.yaml", R"(name: pod
description: two chips
target: ipu_alltoall
topology:
  chips: 2
  hbm: {controllers: 4, placement: [0, 368]}
memory_model:
  plugin: hbm_dramsim
  config: hbm3e.ini
)"));
  ASSERT_TRUE(chip.ok()) << chip.error().message;
  EXPECT_EQ(chip->plugin_for(Interface::topology), "ipu_alltoall");
  EXPECT_EQ(chip->plugin_for(Interface::memory_model), "hbm_dramsim");
  ParamList p = chip->params_for(Interface::topology);
  std::vector<std::pair<std::string, std::string>> expected = {{"chips", "2"},
                                                               {"hbm.controllers", "4"},
                                                               {"hbm.placement.0", "0"},
                                                               {"hbm.placement.1", "368"},
                                                               {"name", "pod"}};
  EXPECT_EQ(p.items, expected);
  EXPECT_EQ(p.base_dir, dir.path().string());
  ParamList m = chip->params_for(Interface::memory_model);
  ASSERT_EQ(m.items.size(), 1u);
  EXPECT_EQ(m.items[0], (std::pair<std::string, std::string>{"config", "hbm3e.ini"}));
}

TEST(Chip, ScaleSectionIsReadAndChecked) {
  auto chip = parse_chip_text(
      "name: c\ntarget: t\nscale: {hbm_bytes_per_s: 8e12, interconnect: 0.5}\n", "/x/c.yaml");
  ASSERT_TRUE(chip.ok()) << chip.error().message;
  EXPECT_EQ(chip->scale, (ChipScale{8e12, 0.5, 1}));
  auto bad = parse_chip_text("name: c\ntarget: t\nscale:\n  flops: fast\n", "/x/c.yaml");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().message, "/x/c.yaml:4: 'scale.flops': expected a number > 0, got 'fast'");
  auto zero = parse_chip_text("name: c\ntarget: t\nscale: {interconnect: 0}\n", "/x/c.yaml");
  ASSERT_FALSE(zero.ok());
  EXPECT_EQ(zero.error().message,
            "/x/c.yaml:3: 'scale.interconnect': expected a number > 0, got '0'");
  auto typo = parse_chip_text("name: c\ntarget: t\nscale: {flop: 2}\n", "/x/c.yaml");
  ASSERT_FALSE(typo.ok());
  EXPECT_EQ(typo.error().message,
            "/x/c.yaml:3: 'scale.flop': unknown key 'flop' (did you mean 'flops'?); valid keys: "
            "hbm_bytes_per_s, interconnect, flops");
}

TEST(Chip, PlannerConventionsAreReadAndChecked) {
  auto chip = parse_chip_text(R"(name: c
target: t
planner:
  orientation: elk_artifact
  transfers: per_core_rates
  combine: elk_artifact
  pruning: elk_artifact
  static: elk_artifact
  residency: weights+kv
  preload_network_share: {elk-dyn: [0.9, 0.5], elk-full: 0.99}
  execution_contention: {elk-full: [ignored, charged], static: charged}
)",
                              "/x/c.yaml");
  ASSERT_TRUE(chip.ok()) << chip.error().message;
  EXPECT_EQ(chip->conventions.orientation, TileOrientation::elk_artifact);
  EXPECT_EQ(chip->conventions.transfers, TransferPricing::per_core_rates);
  EXPECT_EQ(chip->conventions.combine, CombineModel::elk_artifact);
  EXPECT_EQ(chip->conventions.pruning, PlanPruning::elk_artifact);
  std::map<std::string, std::vector<double>> shares = {{"elk-dyn", {0.9, 0.5}},
                                                       {"elk-full", {0.99}}};
  EXPECT_EQ(chip->conventions.preload_network_share, shares);
  EXPECT_EQ(chip->conventions.static_baseline, StaticBaseline::elk_artifact);
  EXPECT_EQ(chip->conventions.residency, ResidencyMode::weights_kv);
  std::map<std::string, std::vector<ExecutionContention>> contentions = {
      {"elk-full", {ExecutionContention::ignored, ExecutionContention::charged}},
      {"static", {ExecutionContention::charged}}};
  EXPECT_EQ(chip->conventions.execution_contention, contentions);
  EXPECT_EQ(parse_chip_text("name: c\ntarget: t\n", "/x/c.yaml")->conventions,
            PlanningConventions{});

  EXPECT_EQ(planner_error("  orientation: sideways\n"),
            "/x/c.yaml:4: 'planner.orientation': unknown orientation 'sideways'; expected "
            "fastest, as_written or elk_artifact");
  EXPECT_EQ(
      planner_error("  combine: ring\n"),
      "/x/c.yaml:4: 'planner.combine': unknown combine 'ring'; expected tree or elk_artifact");
  EXPECT_EQ(planner_error("  transfers: wires\n"),
            "/x/c.yaml:4: 'planner.transfers': unknown transfers 'wires'; expected routes or "
            "per_core_rates");
  EXPECT_EQ(planner_error("  preload_network_share: {elk-full: 1.5}\n"),
            "/x/c.yaml:4: 'planner.preload_network_share.elk-full': expected a share in (0, 1], "
            "got '1.5'");
  EXPECT_EQ(planner_error("  preload_network_share: {elk-dyn: [0.9, 0]}\n"),
            "/x/c.yaml:4: 'planner.preload_network_share.elk-dyn[1]': expected a share in (0, 1], "
            "got '0'");
  EXPECT_EQ(planner_error("  preload_network_share: {elk-ful: 0.5}\n"),
            "/x/c.yaml:4: 'planner.preload_network_share.elk-ful': unknown key 'elk-ful' (did you "
            "mean 'elk-full'?); valid keys: basic, static, elk-dyn, elk-full, ideal");
  EXPECT_EQ(planner_error("  preload_network_share: {basic: []}\n"),
            "/x/c.yaml:4: 'planner.preload_network_share.basic': expected a share in (0, 1] or a "
            "list of them");
  EXPECT_EQ(planner_error("  preload_network_share: 0.5\n"),
            "/x/c.yaml:4: 'planner.preload_network_share': expected a map of design names to "
            "shares, e.g. {elk-full: 0.99}");
  auto scalar = parse_chip_text("name: c\ntarget: t\nplanner: elk\n", "/x/c.yaml");
  ASSERT_FALSE(scalar.ok());
  EXPECT_EQ(scalar.error().message,
            "/x/c.yaml:3: 'planner': expected a map: orientation, transfers, combine, pruning, "
            "static, residency, dispatch, vendor, vendor_prefill_bytes_per_s, "
            "preload_network_share, execution_contention");
  EXPECT_EQ(planner_error("  orientaton: fastest\n"),
            "/x/c.yaml:4: 'planner.orientaton': unknown key 'orientaton' (did you mean "
            "'orientation'?); valid keys: orientation, transfers, combine, pruning, static, "
            "residency, dispatch, vendor, vendor_prefill_bytes_per_s, preload_network_share, "
            "execution_contention");
  EXPECT_EQ(planner_error("  residency: all\n"),
            "/x/c.yaml:4: 'planner.residency': unknown residency 'all'; expected off, auto, "
            "weights or weights+kv");
  EXPECT_EQ(planner_error("  dispatch: eager\n"),
            "/x/c.yaml:4: 'planner.dispatch': unknown dispatch 'eager'; expected none, traced, "
            "host or host-async");
  EXPECT_EQ(planner_error("  static: artifact\n"),
            "/x/c.yaml:4: 'planner.static': unknown static 'artifact'; expected tessera or "
            "elk_artifact");
  EXPECT_EQ(planner_error("  execution_contention: {elk-full: [ignored, free]}\n"),
            "/x/c.yaml:4: 'planner.execution_contention.elk-full[1]': unknown "
            "execution_contention 'free'; expected charged or ignored");
  EXPECT_EQ(planner_error("  execution_contention: {elk-full: []}\n"),
            "/x/c.yaml:4: 'planner.execution_contention.elk-full': expected charged, ignored or "
            "a list of them");
  EXPECT_EQ(planner_error("  execution_contention: ignored\n"),
            "/x/c.yaml:4: 'planner.execution_contention': expected a map of design names to "
            "charged or ignored, e.g. {elk-full: [ignored, charged]}");
}

// A streamed stack's prefill read rate: a rate for that stack alone.
TEST(Chip, AVendorPrefillRateBelongsToAStreamedStack) {
  auto chip = parse_chip_text(
      "name: c\ntarget: t\nplanner:\n  vendor: streamed\n  vendor_prefill_bytes_per_s: 65.6e9\n",
      "/x/c.yaml");
  ASSERT_TRUE(chip.ok()) << chip.error().message;
  EXPECT_EQ(chip->conventions.vendor_prefill_bytes_per_s, 65.6e9);
  EXPECT_EQ(planner_error("  vendor: resident\n  vendor_prefill_bytes_per_s: 1e9\n"),
            "/x/c.yaml:5: 'planner.vendor_prefill_bytes_per_s': only a streamed stack (planner: "
            "vendor: streamed) reads its operands inside its ops; remove it or name that stack");
  EXPECT_EQ(planner_error("  vendor_prefill_bytes_per_s: 1e9\n"),
            "/x/c.yaml:4: 'planner.vendor_prefill_bytes_per_s': only a streamed stack (planner: "
            "vendor: streamed) reads its operands inside its ops; remove it or name that stack");
  EXPECT_EQ(planner_error("  vendor: streamed\n  vendor_prefill_bytes_per_s: 0\n"),
            "/x/c.yaml:5: 'planner.vendor_prefill_bytes_per_s': expected a rate in bytes per "
            "second > 0, got '0'");
}

// The host's read of a prefill's logits: a rate, and rows per user (1 unless given).
TEST(Chip, AHostSectionStatesTheReadRateAndRows) {
  auto chip = parse_chip_text(
      "name: c\ntarget: t\nhost:\n  read_bytes_per_s: 1.93e9\n  read_rows: 32\n", "/x/c.yaml");
  ASSERT_TRUE(chip.ok()) << chip.error().message;
  EXPECT_EQ(chip->host, (HostSpec{1.93e9, 32}));
  auto one_row =
      parse_chip_text("name: c\ntarget: t\nhost: {read_bytes_per_s: 2e9}\n", "/x/c.yaml");
  ASSERT_TRUE(one_row.ok()) << one_row.error().message;
  EXPECT_EQ(one_row->host, (HostSpec{2e9, 1}));
  EXPECT_FALSE(parse_chip_text("name: c\ntarget: t\n", "/x/c.yaml")->host.has_value());
  auto error = [](const std::string& host) {
    auto bad = parse_chip_text("name: c\ntarget: t\nhost:\n" + host, "/x/c.yaml");
    return bad.ok() ? std::string("parsed") : bad.error().message;
  };
  EXPECT_EQ(error("  read_rows: 32\n"),
            "/x/c.yaml:4: 'host': missing read_bytes_per_s: the rate, in bytes per second, at "
            "which the host reads a prefill's logits back");
  EXPECT_EQ(error("  read_bytes_per_s: 0\n"),
            "/x/c.yaml:4: 'host.read_bytes_per_s': expected a rate in bytes per second > 0, got "
            "'0'");
  EXPECT_EQ(error("  read_bytes_per_s: 1e9\n  read_rows: 0\n"),
            "/x/c.yaml:5: 'host.read_rows': must be in [1, 1048576], got 0");
  EXPECT_EQ(error("  read_bytes_per_s: 1e9\n  rows: 32\n"),
            "/x/c.yaml:5: 'host.rows': unknown key 'rows'; valid keys: read_bytes_per_s, "
            "read_rows");
}

TEST(Chip, AnEmptyValueIsAnErrorNotTheDefault) {
  auto map = parse_chip_text("name: c\ntarget: t\ncost_model:\n  clock_hz: {}\n", "/x/c.yaml");
  ASSERT_FALSE(map.ok());
  EXPECT_EQ(map.error().message,
            "/x/c.yaml:4: 'cost_model.clock_hz': has no value (an empty map); give the value, or "
            "remove the key for the plugin's default");
  auto list =
      parse_chip_text("name: c\ntarget: t\ntopology: {hbm: {placement: []}}\n", "/x/c.yaml");
  ASSERT_FALSE(list.ok());
  EXPECT_EQ(list.error().message,
            "/x/c.yaml:3: 'topology.hbm.placement': has no value (an empty list); give the value, "
            "or remove the key for the plugin's default");
  auto null = parse_chip_text("name: c\ntarget: t\ntopology:\n  chips:\n", "/x/c.yaml");
  ASSERT_FALSE(null.ok());
  EXPECT_EQ(null.error().message,
            "/x/c.yaml:4: 'topology.chips': has no value; give the value, or remove the key for "
            "the plugin's default");
  EXPECT_TRUE(parse_chip_text("name: c\ntarget: t\ncost_model: {}\n", "/x/c.yaml").ok())
      << "an empty section takes every default";
}

TEST(Chip, UnknownSectionSuggestsTheInterface) {
  TempDir dir;
  auto chip = read_chip(dir.write("c.yaml", "name: x\ntarget: t\ntopologie: {}\n"));
  ASSERT_FALSE(chip.ok());
  EXPECT_NE(chip.error().message.find(":3: 'topologie': unknown key 'topologie' (did you mean "
                                      "'topology'?)"),
            std::string::npos)
      << chip.error().message;
}

TEST(Chip, SectionWithoutAPluginIsAnError) {
  TempDir dir;
  auto chip = read_chip(dir.write("c.yaml", "name: x\ntopology: {cores: 4}\n"));
  ASSERT_FALSE(chip.ok());
  EXPECT_NE(chip.error().message.find("'topology': names no plugin: add 'plugin: NAME' here or "
                                      "'target: NAME' at the top"),
            std::string::npos)
      << chip.error().message;
}

TEST(Chip, EmptyValueIsAnError) {
  TempDir dir;
  auto chip = read_chip(dir.write("c.yaml", "name: x\ntarget: t\ntopology:\n  cores:\n"));
  ASSERT_FALSE(chip.ok());
  EXPECT_NE(chip.error().message.find(":4: 'topology.cores': has no value"), std::string::npos)
      << chip.error().message;
}

TEST(Chip, PresetsComeFromThePluginsChipsDirectory) {
  TempDir dir;
  dir.write("demo.chips/demo-small.yaml", "name: demo-small\ntopology: {cores: 4}\n");
  dir.write("demo.chips/demo-big.yaml", "name: demo-big\ntopology: {cores: 64}\n");
  Manifest m;
  m.name = "demo";
  m.default_chip = "demo-small";
  m.chips_dir = dir.path() / "demo.chips";
  auto def = resolve_chip("", m);
  ASSERT_TRUE(def.ok()) << def.error().message;
  EXPECT_EQ(def->name, "demo-small");
  EXPECT_EQ(def->target, "demo");
  auto big = resolve_chip("demo-big", m);
  ASSERT_TRUE(big.ok());
  EXPECT_EQ(big->params_for(Interface::topology).items[0].second, "64");
  auto typo = resolve_chip("demo-bgi", m);
  ASSERT_FALSE(typo.ok());
  EXPECT_EQ(typo.error().message,
            "unknown chip 'demo-bgi' for target 'demo'; did you mean 'demo-big'? Presets: "
            "demo-big, demo-small (or give a chip file path).");
}

TEST(Chip, ChipFileForAnotherTargetIsRefused) {
  TempDir dir;
  auto file = dir.write("c.yaml", "name: x\ntarget: other\ntopology: {cores: 4}\n");
  Manifest m;
  m.name = "demo";
  auto chip = resolve_chip(file.string(), m);
  ASSERT_FALSE(chip.ok());
  EXPECT_EQ(chip.error().message, file.string() +
                                      ": this chip is for target 'other', not 'demo': pass "
                                      "--target other or a chip file for demo");
}

TEST(Chip, NoPresetMeansThePluginDefaults) {
  Manifest m;
  m.name = "bare";
  auto chip = resolve_chip("", m);
  ASSERT_TRUE(chip.ok());
  EXPECT_TRUE(chip->params_for(Interface::topology).items.empty());
}

}  // namespace
}  // namespace tessera
