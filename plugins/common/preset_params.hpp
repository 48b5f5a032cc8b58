// Test support for the in-tree topology plugins: reads a chip preset's `topology` section the way
// the host does (nested maps become dotted keys, list items get their index, the chip's `name` is
// passed as `name`), so unit tests can prove every shipped preset builds. Not part of any plugin.
#pragma once

#include <yaml-cpp/yaml.h>

#include <map>
#include <string>
#include <tessera/sdk/params.hpp>

namespace tessera::plugins {

inline void flatten_yaml(const YAML::Node& node, const std::string& prefix,
                         std::map<std::string, std::string>& out) {
  if (node.IsMap()) {
    for (const auto& entry : node) {
      std::string key = entry.first.as<std::string>();
      flatten_yaml(entry.second, prefix.empty() ? key : prefix + "." + key, out);
    }
  } else if (node.IsSequence()) {
    for (size_t i = 0; i < node.size(); ++i)
      flatten_yaml(node[i], prefix + "." + std::to_string(i), out);
  } else {
    out[prefix] = node.as<std::string>();
  }
}

struct Preset {
  std::string target;
  std::map<std::string, std::string> topology;  // flattened, with `name`
};

inline Preset load_preset(const std::string& file) {
  YAML::Node root = YAML::LoadFile(file);
  Preset preset;
  preset.target = root["target"].as<std::string>();
  if (root["topology"]) flatten_yaml(root["topology"], "", preset.topology);
  preset.topology.erase("plugin");
  preset.topology["name"] = root["name"].as<std::string>();
  return preset;
}

}  // namespace tessera::plugins
