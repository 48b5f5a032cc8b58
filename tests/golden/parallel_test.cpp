// Parallel strategies as their users deploy them (framework/parallel/parallel.hpp): tensor,
// pipeline, data and expert parallel on the multi-chip presets, each cell compiled by
// compile_parallel (Elk-Full) and simulated, its planned and simulated ms per step held in
// parallel.yaml within its tolerance, or the exact error when the strategy cannot run the model. A
// cell that compiles must also have its simulated step within 5 % of its planned one: the planner
// prices each collective alone on the links, the simulator moves every replica's copy at once, and
// a strategy whose figures part further than that is mispriced. scripts/update-goldens.sh rewrites
// parallel.yaml (TESSERA_UPDATE_GOLDENS=1) with figures.yaml and matrix.yaml.
#include "framework/parallel/parallel.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <cmath>
#include <cstdlib>
#include <mutex>
#include <set>
#include <utility>

#include "golden_file.hpp"

namespace tessera::parallel {

struct Cell {
  std::string name;  // "llama3.1-70b decode b1 s1024 bfp8 on wormhole-t3000 tp=4,pp=2"
  std::string model;
  int64_t batch = 1, seq = 0;
  bool bfp8 = false;  // bfp8 weights, as Tenstorrent's Wormhole deployments run them
  std::string target, chip, strategy;
};

void PrintTo(const Cell& c, std::ostream* os) {
  *os << c.name;
}

namespace {

const std::string kFile = std::string(TESSERA_GOLDEN_DIR) + "/parallel.yaml";

// The tolerance of planned against simulated, for every strategy.
constexpr double kAgreement = 0.05;

Cell cell(std::string model, int64_t batch, int64_t seq, bool bfp8, std::string target,
          std::string chip, std::string strategy) {
  std::string name = fmt::format("{} decode b{} s{}{} on {} {}", model, batch, seq,
                                 bfp8 ? " bfp8" : "", chip, strategy);
  return {std::move(name), std::move(model),   batch, seq, bfp8, std::move(target),
          std::move(chip), std::move(strategy)};
}

// One cell per strategy family on each multi-chip preset it is deployed on. GPT-2 XL has 25 heads,
// which no tensor-parallel degree of the IPU-POD4 divides, so it has no tp cell; on 8 IPUs it runs
// PopTransformer's layer map. Qwen's 60 experts take ep=4, not ep=8 (its refusal is a cell).
std::vector<Cell> cells() {
  const std::string tt = "mesh_tenstorrent", ipu = "ipu_alltoall";
  return {
      cell("llama3.1-8b", 1, 1024, true, tt, "wormhole-n300", "tp=2"),
      cell("llama3.1-70b", 1, 1024, true, tt, "wormhole-t3000", "tp=8"),
      cell("llama3.1-70b", 1, 1024, true, tt, "wormhole-t3000", "pp=8"),
      cell("llama3.1-70b", 1, 1024, true, tt, "wormhole-t3000", "tp=4,pp=2"),
      cell("llama3.1-70b", 32, 128, true, tt, "wormhole-t3000", "pp=8,mb=8"),
      cell("llama3.1-70b", 32, 128, true, tt, "wormhole-galaxy", "tp=32"),
      cell("llama3.1-70b", 32, 128, true, tt, "wormhole-galaxy", "tp=8,dp=4"),
      cell("llama3.1-8b", 8, 1024, true, tt, "wormhole-t3000", "dp=8"),
      cell("gpt2-xl", 1, 264, false, ipu, "ipu-pod4", "pp=4"),
      cell("gpt2-xl", 4, 264, false, ipu, "ipu-pod4", "dp=4"),
      cell("gpt2-xl", 1, 264, false, ipu, "ipu-pod8", "stages=0:6:7:7:7:7:7:7"),
      cell("mixtral-8x7b", 8, 1024, true, tt, "wormhole-t3000", "ep=8,tp=1"),
      cell("qwen1.5-moe-a2.7b", 32, 1024, false, tt, "wormhole-t3000", "ep=4"),
      cell("qwen1.5-moe-a2.7b", 32, 1024, false, tt, "wormhole-t3000", "ep=8"),
  };
}

// What a cell gives: Elk-Full's planned and simulated ms per step, or the error's text.
struct Outcome {
  double planned_ms = 0, simulated_ms = 0;
  std::string error;
};

Outcome run(const Cell& c) {
  PluginSet plugins(Registry::discover(plugin_search_dirs({})));
  driver::OpenChip chip = driver::open_chip(plugins, driver::ChipChoice{c.target, c.chip}).take();
  ModelRequest request;
  request.model = c.model;
  request.shape.batch = c.batch;
  request.shape.seq = c.seq;
  request.shape.mode = zoo::Mode::decode;
  if (c.bfp8) request.shape.weight_dtype = ir::DType::bfp8;
  request.shape_given = true;
  driver::CompileOptions options;
  options.designs = {planner::Design::elk_full};
  options.simulate = true;
  auto model = parallel_model(request);
  if (!model) return {0, 0, model.error().message};
  auto compiled =
      compile_parallel(plugins, chip, *model, parse_strategy(c.strategy).take(), options);
  if (!compiled) return {0, 0, compiled.error().message};
  const DesignStep& d = compiled->designs.front();
  return {d.planned_s * 1e3, d.simulated_s.value() * 1e3, ""};
}

void update(const Cell& c, const Outcome& o) {
  static std::mutex mutex;
  std::lock_guard lock(mutex);
  YAML::Node root = YAML::LoadFile(kFile);
  YAML::Node held;
  if (o.error.empty()) {
    held["planned_ms"] = fmt::format("{:.6g}", o.planned_ms);
    held["simulated_ms"] = fmt::format("{:.6g}", o.simulated_ms);
    held.SetStyle(YAML::EmitterStyle::Flow);
  } else {
    held["error"] = o.error;
  }
  root["cells"][c.name] = held;
  root["cells"].SetStyle(YAML::EmitterStyle::Block);
  write_golden_file(
      kFile,
      "Parallel strategies (tests/golden/parallel_test.cpp): Elk-Full's planned and simulated\n"
      "ms per step, or the exact error. Regenerate with scripts/update-goldens.sh; commit a\n"
      "change with the reason why.",
      root);
}

class Parallel : public testing::TestWithParam<Cell> {};

TEST_P(Parallel, HoldsItsFiguresAndSimulatesWithinFivePercentOfItsPlan) {
  const Cell& c = GetParam();
  Outcome now = run(c);
  if (std::getenv("TESSERA_UPDATE_GOLDENS") != nullptr) {
    update(c, now);
  } else {
    YAML::Node root = YAML::LoadFile(kFile);
    YAML::Node held = root["cells"][c.name];
    ASSERT_TRUE(held.IsMap()) << kFile << " has no cell '" << c.name
                              << "'; run scripts/update-goldens.sh";
    if (held["error"]) {
      EXPECT_EQ(now.error, held["error"].as<std::string>());
      return;
    }
    ASSERT_EQ(now.error, "") << "the cell compiled before";
    const double tolerance = root["tolerance"].as<double>();
    double planned = held["planned_ms"].as<double>();
    double simulated = held["simulated_ms"].as<double>();
    EXPECT_NEAR(now.planned_ms, planned, tolerance * planned) << "planned ms/step moved";
    EXPECT_NEAR(now.simulated_ms, simulated, tolerance * simulated) << "simulated ms/step moved";
  }
  // Checked when updating too, so a rewrite cannot hold a disagreement without failing.
  if (now.error.empty()) {
    EXPECT_LE(std::abs(now.simulated_ms / now.planned_ms - 1), kAgreement)
        << "planned " << now.planned_ms << " ms, simulated " << now.simulated_ms << " ms";
  }
}

// Every cell the file holds is still a cell (a removed strategy leaves none behind).
TEST(ParallelFile, HoldsExactlyTheCells) {
  if (std::getenv("TESSERA_UPDATE_GOLDENS") != nullptr) GTEST_SKIP();
  YAML::Node held = YAML::LoadFile(kFile)["cells"];
  std::set<std::string> expected;
  for (const Cell& c : cells()) expected.insert(c.name);
  for (const auto& kv : held) {
    std::string name = kv.first.as<std::string>();
    EXPECT_TRUE(expected.count(name)) << kFile << " holds '" << name << "', not a cell";
  }
  EXPECT_EQ(held.size(), expected.size());
}

std::string test_name(const testing::TestParamInfo<Cell>& param) {
  std::string name;
  for (char ch : param.param.name) name += std::isalnum(static_cast<unsigned char>(ch)) ? ch : '_';
  return name;
}

INSTANTIATE_TEST_SUITE_P(Cells, Parallel, testing::ValuesIn(cells()), test_name);

}  // namespace
}  // namespace tessera::parallel
