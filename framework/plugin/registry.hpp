// Finding plugins: the search path, the manifests found on it, and `--target NAME` resolution.
//
// Search order (first match of a name wins; later ones are reported as shadowed):
//   1. directories given with --plugin-path (in order),
//   2. $TESSERA_PLUGIN_PATH (':'-separated),
//   3. <directory of the tessera executable>/../lib/tessera/plugins (the install tree),
//   4. the build tree this binary was built in.
// A target may also be an explicit path to NAME.so or NAME.plugin.yaml.
// A broken plugin counts as a match: a NAME.plugin.yaml that cannot be read, or a NAME.so with no
// manifest naming it, found first makes `--target NAME` an error, never a silent fall back to a
// later plugin of that name (such as the built-in one).
#pragma once

#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "framework/common/status.hpp"
#include "framework/plugin/manifest.hpp"

namespace tessera {

std::vector<std::filesystem::path> plugin_search_dirs(
    const std::vector<std::filesystem::path>& cli_dirs);

// A manifest that cannot be read (name: its file name without .plugin.yaml), or a library that no
// manifest in its directory names (name: its file name without .so).
struct BrokenPlugin {
  std::filesystem::path file;
  std::string name;
  std::string reason;
};

class Registry {
 public:
  // Reads every *.plugin.yaml in `dirs` (not recursively) and notes every *.so no manifest names.
  // Unreadable manifests and such libraries are kept as broken entries, not errors: one bad plugin
  // must not hide the others.
  static Registry discover(const std::vector<std::filesystem::path>& dirs);

  const std::vector<Manifest>& manifests() const { return manifests_; }
  const std::vector<BrokenPlugin>& broken() const { return broken_; }
  const std::vector<Manifest>& shadowed() const { return shadowed_; }
  const std::vector<std::filesystem::path>& dirs() const { return dirs_; }

  // A name, an alias, or a path to a .so / .plugin.yaml. An unknown name is an error listing the
  // available targets and the nearest one; a name whose first match is broken is a plugin error
  // with the reason.
  Result<Manifest> resolve(const std::string& target) const;

 private:
  void add(Manifest manifest);
  void add_broken(BrokenPlugin broken);
  Result<Manifest> resolve_path(const std::string& target) const;

  std::vector<std::filesystem::path> dirs_;
  std::set<std::string> seen_;  // names of plugins found so far, broken ones too
  std::vector<Manifest> manifests_;
  std::vector<Manifest> shadowed_;
  std::vector<BrokenPlugin> broken_;
};

// The manifest beside a library: /x/NAME.so → /x/NAME.plugin.yaml.
std::filesystem::path manifest_for_library(const std::filesystem::path& library);

}  // namespace tessera
