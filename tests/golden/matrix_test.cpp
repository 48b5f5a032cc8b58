// The model × workload × chip matrix (cells in matrix_cells.hpp): every zoo model, at
// decode batch 1 and 32 over a KV cache of 2048 and at prefill of 2048 tokens, on every chip
// family's presets. A cell either compiles and simulates (Elk-Full; its planned and simulated
// ms/token held in matrix.yaml within its tolerance) or is refused with an error whose exact text
// matrix.yaml holds (the off-chip capacity error, with what would fit). A zoo model or chip added
// without its cells fails here. scripts/update-goldens.sh rewrites matrix.yaml
// (TESSERA_UPDATE_GOLDENS=1) with figures.yaml.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <cstdlib>
#include <mutex>
#include <set>

#include "golden_file.hpp"
#include "matrix_cells.hpp"

namespace tessera::matrix {

void PrintTo(const Cell& c, std::ostream* os) {
  *os << c.name;
}

namespace {

const std::string kMatrix = std::string(TESSERA_GOLDEN_DIR) + "/matrix.yaml";

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
  write_golden_file(
      kMatrix,
      "Model x workload x chip matrix (tests/golden/matrix_test.cpp): Elk-Full's ms/token,\n"
      "or the exact error. Regenerate with scripts/update-goldens.sh; commit a change with\n"
      "the reason why.",
      root);
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
}  // namespace tessera::matrix
