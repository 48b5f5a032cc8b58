// Every model of Debian's libonnx-testdata (1.12.0) imports, or fails with one clear input error
// naming the file, on one line; none crashes. Models whose shapes depend on data (a shape, axes or
// sizes given as a model input, NonZero, Unique, ...) cannot have a static graph: of all the
// others at least 90 % import. The counts are exact, so any change shows up here. Run under
// ASan+UBSan too.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>

#include "framework/frontend/onnx/importer.hpp"

namespace tessera::onnx_import {
namespace {

constexpr const char* kTestData = "/usr/share/libonnx-testdata/data";

// What a refusal because of data-dependent shapes says.
const char* const kDataDependent[] = {
    "shapes computed from data are not supported",
    "known at import time",
    "which is not bound; pass --dim",
};

// What the other clear refusals say; anything else is a bug to look at.
const char* const kExpectedRefusals[] = {
    "unsupported op",
    "the model imports no version of the default ONNX operator set",
    "which Tessera does not model",
    "not a tensor; only tensors are supported",
    "empty tensors are not supported",
    "control flow is not supported",
    "do not fit it (is the model valid?)",
};

const char* reason(const std::string& message) {
  for (const char* why : kDataDependent)
    if (message.find(why) != std::string::npos) return why;
  for (const char* why : kExpectedRefusals)
    if (message.find(why) != std::string::npos) return why;
  return nullptr;
}

bool data_dependent(const char* why) {
  for (const char* d : kDataDependent)
    if (why == d) return true;
  return false;
}

TEST(OnnxTestData, EveryModelImportsOrFailsClearly) {
  if (!std::filesystem::is_directory(kTestData))
    GTEST_SKIP() << "libonnx-testdata is not installed";
  std::vector<std::filesystem::path> models;
  for (const auto& e : std::filesystem::recursive_directory_iterator(kTestData))
    if (e.path().filename() == "model.onnx") models.push_back(e.path());
  std::sort(models.begin(), models.end());
  size_t imported = 0, dynamic = 0;
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
    const char* why = reason(m);
    EXPECT_NE(why, nullptr) << "unexpected error: " << m;
    if (!why) continue;
    ++refusals[why];
    dynamic += data_dependent(why);
    std::cout << "  " << std::filesystem::relative(path, kTestData).parent_path().string() << ": "
              << m.substr(path.string().size() + 2) << "\n";
  }
  size_t static_models = models.size() - dynamic;
  std::cout << imported << " of " << models.size() << " models imported; " << dynamic
            << " have shapes that depend on data; " << imported << " of " << static_models
            << " with static shapes\n";
  for (const auto& [why, n] : refusals) std::cout << "  " << n << " x " << why << "\n";
  EXPECT_EQ(models.size(), 1072u);
  EXPECT_EQ(imported, 860u);
  EXPECT_EQ(dynamic, 136u);
  EXPECT_GE(static_cast<double>(imported), 0.90 * static_cast<double>(static_models));
}

}  // namespace
}  // namespace tessera::onnx_import
