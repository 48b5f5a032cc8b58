// Golden figures for the top of the stack: for one model × chip per chip family, every design's
// planned and simulated ms/token, held in figures.yaml within its tolerance (0.5 %). Any change to
// the partitioner, planner, simulator or a plugin's model that moves a figure fails here; a golden
// changes only by a deliberate commit that says why (scripts/update-goldens.sh rewrites the file:
// the test run with TESSERA_UPDATE_GOLDENS=1 writes what it measured instead of comparing).
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <cmath>
#include <cstdlib>
#include <mutex>
#include <optional>

#include "framework/driver/driver.hpp"
#include "golden_file.hpp"

namespace tessera {
namespace {

const std::string kFigures = std::string(TESSERA_GOLDEN_DIR) + "/figures.yaml";

struct Case {
  std::string name, model, target, chip, mode;
  int64_t batch = 1, seq = 0;
};

// The cases the figures are for; the file holds their numbers.
const std::vector<Case> kCases = {
    {"llama2_13b_decode_on_ipu_pod4_hbm3e", "llama2-13b", "ipu_alltoall", "ipu-pod4-hbm3e",
     "decode", 16, 2048},
    {"dit_xl_on_wormhole_n150", "dit-xl", "mesh_tenstorrent", "wormhole-n150", "", 1, 0},
    {"dit_xl_on_mncore2", "dit-xl", "tree_simd", "mncore2", "", 1, 0},
};

void PrintTo(const Case& c, std::ostream* os) {
  *os << c.model << " on " << c.chip;
}

struct Figures {
  double planned_ms = 0;
  std::optional<double> simulated_ms;  // none for Ideal, a bound no chip runs
};

std::map<std::string, Figures> measure(const Case& c) {
  PluginSet plugins(Registry::discover(plugin_search_dirs({})));
  driver::OpenChip chip = driver::open_chip(plugins, driver::ChipChoice{c.target, c.chip}).take();
  ModelRequest request;
  request.model = c.model;
  request.shape.batch = c.batch;
  if (c.seq > 0) request.shape.seq = c.seq;
  if (c.mode == "decode") request.shape.mode = zoo::Mode::decode;
  request.shape_given = true;
  driver::CompileOptions options;
  options.designs = driver::parse_design_choice("all").take().planned;
  options.simulate = true;
  driver::Compilation compiled =
      driver::compile(chip, driver::load(request).take(), options).take();
  std::map<std::string, Figures> out;
  for (const auto& d : compiled.designs) {
    Figures& f = out[to_string(d.plan.result.design)];
    f.planned_ms = d.plan.result.latency_s * 1e3;
    if (d.simulated) f.simulated_ms = d.simulated->result.latency_s * 1e3;
  }
  return out;
}

// Updating: each case's figures go into the file as its test finishes.
void update(const Case& c, const std::map<std::string, Figures>& figures) {
  static std::mutex mutex;
  std::lock_guard lock(mutex);
  YAML::Node root = YAML::LoadFile(kFigures);
  YAML::Node designs;
  for (const auto& [design, f] : figures) {
    YAML::Node pair;
    pair["planned_ms"] = fmt::format("{:.6g}", f.planned_ms);
    if (f.simulated_ms) pair["simulated_ms"] = fmt::format("{:.6g}", *f.simulated_ms);
    pair.SetStyle(YAML::EmitterStyle::Flow);
    designs[design] = pair;
  }
  root["cases"][c.name] = designs;
  root["cases"].SetStyle(YAML::EmitterStyle::Block);
  write_golden_file(
      kFigures,
      "Golden figures (tests/golden/golden_test.cpp): each design's ms/token per case.\n"
      "Regenerate with scripts/update-goldens.sh; commit a change with the reason why.",
      root);
}

class Golden : public testing::TestWithParam<Case> {};

TEST_P(Golden, PlannedAndSimulatedMsPerTokenHold) {
  const Case& c = GetParam();
  std::map<std::string, Figures> now = measure(c);
  if (std::getenv("TESSERA_UPDATE_GOLDENS") != nullptr) return update(c, now);
  YAML::Node root = YAML::LoadFile(kFigures);
  const double tolerance = root["tolerance"].as<double>();
  YAML::Node held = root["cases"][c.name];
  ASSERT_TRUE(held.IsMap()) << kFigures << " has no figures for " << c.name
                            << "; run scripts/update-goldens.sh";
  ASSERT_EQ(held.size(), now.size()) << "designs differ from " << kFigures;
  for (const auto& [design, f] : now) {
    SCOPED_TRACE(c.name + " " + design);
    ASSERT_TRUE(held[design].IsMap()) << "no golden for design " << design;
    double planned = held[design]["planned_ms"].as<double>();
    EXPECT_NEAR(f.planned_ms, planned, tolerance * planned) << "planned ms/token moved";
    ASSERT_EQ(held[design]["simulated_ms"].IsDefined(), f.simulated_ms.has_value())
        << "simulated or not, unlike " << kFigures;
    if (!f.simulated_ms) continue;
    double simulated = held[design]["simulated_ms"].as<double>();
    EXPECT_NEAR(*f.simulated_ms, simulated, tolerance * simulated) << "simulated ms/token moved";
  }
}

INSTANTIATE_TEST_SUITE_P(Figures, Golden, testing::ValuesIn(kCases),
                         [](const testing::TestParamInfo<Case>& param) {
                           return param.param.name;
                         });

}  // namespace
}  // namespace tessera
