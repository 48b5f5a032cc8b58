#include "framework/plugin/plugin_set.hpp"

namespace tessera {

Result<std::shared_ptr<const PluginLibrary>> PluginSet::library(const std::string& target) {
  // A plugin given by path is known by its name afterwards (a chip names plugins by name).
  if (auto it = loaded_.find(target); it != loaded_.end()) return it->second;
  auto manifest = registry_.resolve(target);
  if (!manifest) return manifest.error();
  if (auto it = loaded_.find(manifest->name); it != loaded_.end()) return it->second;
  auto lib = PluginLibrary::load(*manifest);
  if (!lib) return lib.error();
  std::shared_ptr<const PluginLibrary> shared = *lib;
  loaded_[manifest->name] = shared;
  return shared;
}

}  // namespace tessera
