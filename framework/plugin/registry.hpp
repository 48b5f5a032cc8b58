// Finding plugins: the search path, the manifests found on it, and `--target NAME` resolution.
//
// Search order (first match of a name wins; later ones are reported as shadowed):
//   1. directories given with --plugin-path (in order),
//   2. $TESSERA_PLUGIN_PATH (':'-separated),
//   3. <directory of the tessera executable>/../lib/tessera/plugins (the install tree),
//   4. the build tree this binary was built in.
// A target may also be an explicit path to NAME.so or NAME.plugin.yaml.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "framework/common/status.hpp"
#include "framework/plugin/manifest.hpp"

namespace tessera {

std::vector<std::filesystem::path> plugin_search_dirs(
    const std::vector<std::filesystem::path>& cli_dirs);

struct BrokenManifest {
  std::filesystem::path file;
  std::string reason;
};

class Registry {
 public:
  // Reads every *.plugin.yaml in `dirs` (not recursively). Unreadable manifests are kept as broken
  // entries, not errors: one bad plugin must not hide the others.
  static Registry discover(const std::vector<std::filesystem::path>& dirs);

  const std::vector<Manifest>& manifests() const { return manifests_; }
  const std::vector<BrokenManifest>& broken() const { return broken_; }
  const std::vector<Manifest>& shadowed() const { return shadowed_; }
  const std::vector<std::filesystem::path>& dirs() const { return dirs_; }

  // A name, an alias, or a path to a .so / .plugin.yaml. An unknown name is an error listing the
  // available targets and the nearest one.
  Result<Manifest> resolve(const std::string& target) const;

 private:
  std::vector<std::filesystem::path> dirs_;
  std::vector<Manifest> manifests_;
  std::vector<Manifest> shadowed_;
  std::vector<BrokenManifest> broken_;
};

// The manifest beside a library: /x/NAME.so → /x/NAME.plugin.yaml.
std::filesystem::path manifest_for_library(const std::filesystem::path& library);

}  // namespace tessera
