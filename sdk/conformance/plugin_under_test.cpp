#include "sdk/conformance/plugin_under_test.hpp"

#include <cstdio>
#include <iterator>

#include "framework/chip_spec/chip_spec.hpp"
#include "sdk/conformance/expectations.hpp"

namespace tessera::conformance {

void PrintTo(const PluginParam& param, std::ostream* os) {
  const PluginState& s = *param.state;
  *os << s.target;
  if (s.manifest) *os << " (" << s.manifest->library.string() << ")";
}

std::string PluginName::operator()(const testing::TestParamInfo<PluginParam>& info) const {
  return info.param.state->label;
}

std::vector<PluginParam>& plugins() {
  static std::vector<PluginParam> list;
  return list;
}

void PluginTest::SetUp() {
  if (!state().library || !state().error.empty())
    GTEST_SKIP() << "the plugin cannot be tested (Load.Loads says why)";
  const testing::TestInfo& info = *testing::UnitTest::GetInstance()->current_test_info();
  if (const TestEntry* e = find_entry(manifest().unsupported, kit_test_name(info)))
    GTEST_SKIP() << "unsupported: " << manifest().file.string() << ":" << e->line
                 << " lists it as unsupported by " << manifest().name;
}

std::vector<Interface> PluginTest::provided() const {
  return {manifest().provides.begin(), manifest().provides.end()};
}

Result<ParamList> default_params(const Manifest& manifest, Interface i) {
  auto chip = resolve_chip("", manifest);
  if (!chip) return chip.error();
  if (chip->plugin_for(i) != manifest.name) return ParamList{};
  return chip->params_for(i);
}

CParams::CParams(const ParamList& params) {
  for (const auto& [key, value] : params.items) items_.push_back({key.c_str(), value.c_str()});
  c_ = tessera_params{items_.size(), items_.data(), params.base_dir.c_str()};
}

std::string format_number(double x) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.6g", x);
  return text;
}

std::string op_kind_name(uint32_t kind) {
  static const char* const kNames[] = {"matmul", "batched_matmul", "conv",    "elementwise",
                                       "unary",  "reduction",      "softmax", "normalization",
                                       "gather", "data_movement",  "other"};
  return kind <= TESSERA_OP_OTHER ? kNames[kind] : "op kind " + std::to_string(kind);
}

double dtype_bytes(uint32_t dtype) {
  static const double kBytes[] = {4, 2, 2,      1,      1,
                                  4, 8, 1.0625, 0.5625, 0.3125};  // in tessera_dtype order
  static_assert(std::size(kBytes) == TESSERA_DTYPE_COUNT);
  return dtype < TESSERA_DTYPE_COUNT ? kBytes[dtype] : 0;
}

void Problems::add(std::string problem) {
  if (shown_.size() < kShown) shown_.push_back(std::move(problem));
  ++count_;
}

std::string Problems::summary() const {
  std::string text;
  for (const auto& p : shown_) text += "\n  " + p;
  if (count_ > shown_.size())
    text += "\n  ... and " + std::to_string(count_ - shown_.size()) + " more";
  return text;
}

}  // namespace tessera::conformance
