// The six plugin interfaces by name, as manifests, chip files and the CLI spell them.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <string_view>

namespace tessera {

enum class Interface { topology, cost_model, partitioner, layout_mapper, codegen, memory_model };

inline constexpr std::array<Interface, 6> kAllInterfaces = {
    Interface::topology,      Interface::cost_model, Interface::partitioner,
    Interface::layout_mapper, Interface::codegen,    Interface::memory_model};

inline std::string_view to_string(Interface i) {
  switch (i) {
    case Interface::topology:
      return "topology";
    case Interface::cost_model:
      return "cost_model";
    case Interface::partitioner:
      return "partitioner";
    case Interface::layout_mapper:
      return "layout_mapper";
    case Interface::codegen:
      return "codegen";
    case Interface::memory_model:
      return "memory_model";
  }
  return "?";
}

inline std::optional<Interface> interface_from_string(std::string_view name) {
  for (Interface i : kAllInterfaces)
    if (to_string(i) == name) return i;
  return std::nullopt;
}

}  // namespace tessera
