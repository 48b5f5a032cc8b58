// The plugins of one run: resolves names through the registry and loads each library once. A
// chip's objects are built from its spec in framework/chip.
#pragma once

#include <map>
#include <memory>
#include <string>

#include "framework/common/status.hpp"
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

 private:
  Registry registry_;
  std::map<std::string, std::shared_ptr<const PluginLibrary>> loaded_;
};

}  // namespace tessera
