// The model × workload × chip matrix (issue 15): every zoo model, at decode batch 1 and 32 over a
// KV cache of 2048 and at prefill of 2048 tokens, on every chip family's presets. A cell either
// compiles and simulates (Elk-Full; its planned and simulated ms/token held in matrix.yaml within
// its tolerance) or is refused with an error whose exact text matrix.yaml holds (the off-chip
// capacity error, with what would fit). A zoo model or chip added without its cells fails here.
// scripts/update-goldens.sh rewrites matrix.yaml (TESSERA_UPDATE_GOLDENS=1) with figures.yaml.
//
// Two departures from the bare matrix, both as a user of the chip would run it:
// - DiT has no decode: its three workloads are one denoising step at batch 1 and 32 over 256
//   latent tokens (256×256 images) and at batch 1 over 1024 (512×512).
// - The IPU computes in fp32 and fp16 only: a bf16 model (Gemma 2) runs there in fp16, as Elk's
//   evaluation does (--dtype fp16).
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <cstdlib>
#include <mutex>

#include "framework/common/files.hpp"
#include "framework/driver/driver.hpp"
#include "framework/frontend/zoo/zoo.hpp"

namespace tessera {
namespace {

const std::string kMatrix = std::string(TESSERA_GOLDEN_DIR) + "/matrix.yaml";

struct Chip {
  std::string target, chip;
  bool computes_bf16 = true;
};
const std::vector<Chip> kChips = {
    {"ipu_alltoall", "ipu-mk2-hbm3e", false},
    {"ipu_alltoall", "ipu-pod4-hbm3e", false},
    {"mesh_tenstorrent", "wormhole-n150"},
    {"mesh_tenstorrent", "blackhole-p150"},
    {"tree_simd", "mncore2"},
};

struct Workload {
  const char* name;
  zoo::Mode mode;
  int64_t batch, seq;
};
const Workload kDecoderWorkloads[] = {{"decode b1 s2048", zoo::Mode::decode, 1, 2048},
                                      {"decode b32 s2048", zoo::Mode::decode, 32, 2048},
                                      {"prefill b1 s2048", zoo::Mode::prefill, 1, 2048}};
const Workload kDitWorkloads[] = {{"step b1 s256", zoo::Mode::prefill, 1, 256},
                                  {"step b32 s256", zoo::Mode::prefill, 32, 256},
                                  {"step b1 s1024", zoo::Mode::prefill, 1, 1024}};

struct Cell {
  std::string name;  // "llama2-7b decode b1 s2048 on wormhole-n150"
  std::string model;
  Workload workload;
  Chip chip;
};

void PrintTo(const Cell& c, std::ostream* os) {
  *os << c.name;
}

std::vector<Cell> cells() {
  std::vector<Cell> out;
  for (const zoo::ZooEntry& entry : zoo::list_zoo()) {
    bool dit = zoo::find_model(entry.name).take().family == zoo::Family::dit;
    for (const Workload& w : dit ? kDitWorkloads : kDecoderWorkloads)
      for (const Chip& chip : kChips)
        out.push_back(
            {fmt::format("{} {} on {}", entry.name, w.name, chip.chip), entry.name, w, chip});
  }
  return out;
}

// What a cell gives: figures, or the error's text.
struct Outcome {
  double planned_ms = 0, simulated_ms = 0;
  std::string error;
};

Outcome run(const Cell& c) {
  PluginSet plugins(Registry::discover(plugin_search_dirs({})));
  driver::OpenChip chip =
      driver::open_chip(plugins, driver::ChipChoice{c.chip.target, c.chip.chip}).take();
  ModelRequest request;
  request.model = c.model;
  request.shape = {c.workload.batch, c.workload.seq, c.workload.mode, std::nullopt};
  request.shape_given = true;
  if (!c.chip.computes_bf16 && zoo::find_model(c.model).take().dtype == ir::DType::bf16)
    request.shape.dtype = ir::DType::fp16;
  driver::CompileOptions options;
  options.designs = {planner::Design::elk_full};
  options.simulate = true;
  auto compiled = driver::compile(chip, driver::load(request).take(), options);
  if (!compiled) return {0, 0, compiled.error().message};
  const driver::CompiledDesign& d = compiled->designs.front();
  return {d.plan.result.latency_s * 1e3, d.simulated->result.latency_s * 1e3, ""};
}

void update(const Cell& c, const Outcome& o) {
  static std::mutex mutex;
  std::lock_guard lock(mutex);
  YAML::Node root = YAML::LoadFile(kMatrix);
  YAML::Node cell;
  if (o.error.empty()) {
    cell["planned_ms"] = fmt::format("{:.6g}", o.planned_ms);
    cell["simulated_ms"] = fmt::format("{:.6g}", o.simulated_ms);
    cell.SetStyle(YAML::EmitterStyle::Flow);
  } else {
    cell["error"] = o.error;
  }
  root["cells"][c.name] = cell;
  root["cells"].SetStyle(YAML::EmitterStyle::Block);
  YAML::Emitter out;
  out << YAML::Comment(
             "Model x workload x chip matrix (tests/golden/matrix_test.cpp): Elk-Full's ms/token,\n"
             "or the exact error. Regenerate with scripts/update-goldens.sh; commit a change with\n"
             "the reason why.")
      << root;
  write_file_atomically(kMatrix, std::string(out.c_str()) + "\n", true).take();
}

class Matrix : public testing::TestWithParam<Cell> {};

TEST_P(Matrix, CompilesAndSimulatesOrIsRefusedWithItsReason) {
  const Cell& c = GetParam();
  Outcome now = run(c);
  if (std::getenv("TESSERA_UPDATE_GOLDENS") != nullptr) return update(c, now);
  YAML::Node root = YAML::LoadFile(kMatrix);
  YAML::Node held = root["cells"][c.name];
  ASSERT_TRUE(held.IsMap()) << kMatrix << " has no cell '" << c.name
                            << "'; run scripts/update-goldens.sh";
  if (held["error"]) {
    EXPECT_EQ(now.error, held["error"].as<std::string>());
    return;
  }
  ASSERT_EQ(now.error, "") << "the cell compiled before";
  const double tolerance = root["tolerance"].as<double>();
  double planned = held["planned_ms"].as<double>();
  double simulated = held["simulated_ms"].as<double>();
  EXPECT_NEAR(now.planned_ms, planned, tolerance * planned) << "planned ms/token moved";
  EXPECT_NEAR(now.simulated_ms, simulated, tolerance * simulated) << "simulated ms/token moved";
}

// Every cell the file holds is still in the matrix (a removed model or chip leaves none behind).
TEST(MatrixFile, HoldsExactlyTheMatrixCells) {
  if (std::getenv("TESSERA_UPDATE_GOLDENS") != nullptr) GTEST_SKIP();
  YAML::Node held = YAML::LoadFile(kMatrix)["cells"];
  std::set<std::string> expected;
  for (const Cell& c : cells()) expected.insert(c.name);
  for (const auto& kv : held) {
    std::string name = kv.first.as<std::string>();
    EXPECT_TRUE(expected.count(name)) << kMatrix << " holds '" << name << "', not in the matrix";
  }
  EXPECT_EQ(held.size(), expected.size());
}

std::string test_name(const testing::TestParamInfo<Cell>& param) {
  std::string name;
  for (char ch : param.param.name) name += std::isalnum(static_cast<unsigned char>(ch)) ? ch : '_';
  return name;
}

INSTANTIATE_TEST_SUITE_P(Cells, Matrix, testing::ValuesIn(cells()), test_name);

}  // namespace
}  // namespace tessera
