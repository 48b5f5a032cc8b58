#include <array>
#include <utility>

#include "framework/planner/planner.hpp"

namespace tessera::planner {

namespace {
constexpr std::array<std::pair<Design, const char*>, 6> kDesigns{{
    {Design::basic, "basic"},
    {Design::static_split, "static"},
    {Design::elk_dyn, "elk-dyn"},
    {Design::elk_full, "elk-full"},
    {Design::ideal, "ideal"},
    {Design::vendor, "vendor"},
}};
}  // namespace

const char* to_string(Design design) {
  for (const auto& [value, name] : kDesigns) {
    if (value == design) return name;
  }
  return "unknown";
}

DispatchCosts dispatch_costs(DispatchMode mode, const OpFixedCosts& fixed) {
  switch (mode) {
    case DispatchMode::traced:
      return {mode, fixed.dispatch_traced_s, fixed.launch_s};
    case DispatchMode::host:
    case DispatchMode::host_async:
      return {mode, fixed.dispatch_host_s, fixed.launch_s};
    case DispatchMode::none:
      break;
  }
  return {};
}

std::optional<Design> parse_design(const std::string& name) {
  for (const auto& [value, text] : kDesigns) {
    if (name == text) return value;
  }
  return std::nullopt;
}

std::string design_names() {
  std::string names;
  for (const auto& [value, text] : kDesigns) {
    if (!names.empty()) names += ", ";
    names += text;
  }
  return names;
}

}  // namespace tessera::planner
