// Every model of Debian's libonnx-testdata imports, or fails with one clear input error naming the
// file; none crashes. Run under ASan+UBSan too.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>

#include "framework/frontend/onnx/importer.hpp"

namespace tessera::onnx_import {
namespace {

constexpr const char* kTestData = "/usr/share/libonnx-testdata/data";

// What a clear refusal says; anything else is a bug to look at.
const char* const kExpectedRefusals[] = {
    "unsupported op",
    "has no static shape",
    "not a tensor; only tensors are supported",
    "must be a constant integer tensor known at import time",
    "must be constants known at import time",
    "the model imports no version of the default ONNX operator set",
    "which Tessera does not model",
    "only the first output is supported",
    "only mode 'constant' is supported",
    "training-mode outputs are not supported",
    "the Indices output is not supported",
    "which is not bound; pass --dim",
    "empty tensors are not supported",
    "control flow is not supported",
};

TEST(OnnxTestData, EveryModelImportsOrFailsClearly) {
  if (!std::filesystem::is_directory(kTestData))
    GTEST_SKIP() << "libonnx-testdata is not installed";
  std::vector<std::filesystem::path> models;
  for (const auto& e : std::filesystem::recursive_directory_iterator(kTestData))
    if (e.path().filename() == "model.onnx") models.push_back(e.path());
  std::sort(models.begin(), models.end());
  size_t imported = 0;
  std::map<std::string, int> refusals;
  for (const auto& path : models) {
    auto r = import_onnx_file(path.string(), {});
    if (r) {
      ++imported;
      continue;
    }
    const std::string& m = r.error().message;
    EXPECT_EQ(r.error().kind, ErrorKind::input) << m;
    EXPECT_EQ(m.rfind(path.string() + ": ", 0), 0u) << m;
    EXPECT_EQ(m.find('\n'), std::string::npos) << m;
    const char* why = nullptr;
    for (const char* expected : kExpectedRefusals)
      if (m.find(expected) != std::string::npos) why = expected;
    EXPECT_NE(why, nullptr) << "unexpected error: " << m;
    if (why) ++refusals[why];
  }
  std::cout << imported << " of " << models.size() << " models imported\n";
  for (const auto& [why, n] : refusals) std::cout << "  " << n << " x " << why << "\n";
  EXPECT_GT(models.size(), 1000u);
  EXPECT_GE(imported, 620u);  // regressions show up here
}

}  // namespace
}  // namespace tessera::onnx_import
