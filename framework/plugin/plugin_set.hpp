// The plugins of one run: resolves names through the registry, loads each library once, and builds
// a chip's objects from its ChipSpec.
#pragma once

#include <map>
#include <memory>
#include <string>

#include "framework/common/status.hpp"
#include "framework/plugin/chip.hpp"
#include "framework/plugin/library.hpp"
#include "framework/plugin/objects.hpp"
#include "framework/plugin/registry.hpp"

namespace tessera {

class PluginSet {
 public:
  explicit PluginSet(Registry registry) : registry_(std::move(registry)) {}

  const Registry& registry() const { return registry_; }
  // A name, alias or path; loaded once per run.
  Result<std::shared_ptr<const PluginLibrary>> library(const std::string& target);
  // The chip's topology, from the plugin its `topology` section names (or its target).
  Result<Topology> topology(const ChipSpec& chip);

 private:
  Registry registry_;
  std::map<std::string, std::shared_ptr<const PluginLibrary>> loaded_;
};

}  // namespace tessera
