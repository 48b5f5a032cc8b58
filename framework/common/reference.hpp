// Whether a word on the command line (or in a sweep file) names a FILE or an entry of one of
// Tessera's registries: a zoo model, a chip preset, a plugin, a mapper architecture or workload
// preset. One rule for every kind, so `.yml` works wherever `.yaml` does and a preset never turns
// into a path by accident:
//
//   a word is a path when it contains a '/' or ends in one of its kind's file suffixes;
//   anything else is a name, looked up in the kind's registry.
//
// A file in the working directory whose name has no such suffix is given as ./NAME.
#pragma once

#include <array>
#include <span>
#include <string_view>

namespace tessera {

// The file suffixes of each kind of reference.
inline constexpr std::array<std::string_view, 4> kModelFileSuffixes = {".onnx", ".yaml", ".yml",
                                                                       ".json"};
inline constexpr std::array<std::string_view, 2> kYamlFileSuffixes = {".yaml", ".yml"};
inline constexpr std::array<std::string_view, 2> kPluginFileSuffixes = {".so", ".plugin.yaml"};

inline bool names_a_file(std::string_view word, std::span<const std::string_view> suffixes) {
  if (word.find('/') != std::string_view::npos) return true;
  for (std::string_view suffix : suffixes)
    if (word.size() > suffix.size() && word.ends_with(suffix)) return true;
  return false;
}

}  // namespace tessera
