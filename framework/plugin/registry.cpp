#include "framework/plugin/registry.hpp"

#include <algorithm>
#include <boost/dll/runtime_symbol_info.hpp>
#include <cstdlib>
#include <set>
#include <tessera/sdk/nearest.hpp>

#include "framework/common/files.hpp"
#include "framework/common/reference.hpp"

#ifndef TESSERA_BUILD_PLUGIN_DIR
#error "TESSERA_BUILD_PLUGIN_DIR must be defined by the build"
#endif

namespace fs = std::filesystem;

namespace tessera {

namespace {

constexpr const char* kManifestSuffix = ".plugin.yaml";

void add_unique(std::vector<fs::path>& dirs, const fs::path& dir) {
  if (dir.empty()) return;
  fs::path normal = fs::absolute(dir).lexically_normal();
  if (std::find(dirs.begin(), dirs.end(), normal) == dirs.end()) dirs.push_back(normal);
}

}  // namespace

std::vector<fs::path> plugin_search_dirs(const std::vector<fs::path>& cli_dirs) {
  std::vector<fs::path> dirs;
  for (const auto& d : cli_dirs) add_unique(dirs, d);
  if (const char* env = std::getenv("TESSERA_PLUGIN_PATH")) {
    std::string list = env;
    size_t start = 0;
    while (start <= list.size()) {
      size_t end = list.find(':', start);
      if (end == std::string::npos) end = list.size();
      add_unique(dirs, list.substr(start, end - start));
      start = end + 1;
    }
  }
  boost::dll::fs::error_code ec;
  auto exe = boost::dll::program_location(ec);
  if (!ec)
    add_unique(dirs, fs::path(exe.string()).parent_path() / ".." / "lib" / "tessera" / "plugins");
  add_unique(dirs, TESSERA_BUILD_PLUGIN_DIR);
  return dirs;
}

fs::path manifest_for_library(const fs::path& library) {
  return library.parent_path() / (library.stem().string() + kManifestSuffix);
}

Registry Registry::discover(const std::vector<fs::path>& dirs) {
  Registry r;
  r.dirs_ = dirs;
  std::set<std::string> seen;
  for (const auto& dir : dirs) {
    for (const auto& file : files_with_suffix(dir, kManifestSuffix)) {
      auto m = read_manifest(file);
      if (!m) {
        r.broken_.push_back({file, m.error().message});
      } else if (!seen.insert(m->name).second) {
        r.shadowed_.push_back(*m);
      } else {
        r.manifests_.push_back(*m);
      }
    }
  }
  return r;
}

Result<Manifest> Registry::resolve(const std::string& target) const {
  if (names_a_file(target, kPluginFileSuffixes)) {
    fs::path path(target);
    fs::path manifest = target.ends_with(kManifestSuffix) ? path : manifest_for_library(path);
    if (!fs::exists(path))
      return input_error("plugin file '" + target + "' does not exist", StatusCode::not_found);
    if (!fs::exists(manifest))
      return plugin_error("plugin '" + target + "' has no manifest: expected '" +
                              manifest.string() + "' beside it (tessera_add_plugin generates it)",
                          StatusCode::not_found);
    return read_manifest(manifest);
  }
  for (const auto& m : manifests_) {
    if (m.name == target) return m;
  }
  for (const auto& m : manifests_) {
    if (std::find(m.aliases.begin(), m.aliases.end(), target) != m.aliases.end()) return m;
  }
  std::vector<std::string> names;
  for (const auto& m : manifests_) {
    names.push_back(m.name);
    names.insert(names.end(), m.aliases.begin(), m.aliases.end());
  }
  std::string message = "unknown target '" + target + "'";
  std::string near = sdk::nearest(target, names);
  if (!near.empty()) message += "; did you mean '" + near + "'?";
  std::string available;
  for (const auto& m : manifests_) available += (available.empty() ? "" : ", ") + m.name;
  message +=
      available.empty() ? " No plugins were found." : " Available targets: " + available + ".";
  std::string searched;
  for (const auto& d : dirs_) searched += (searched.empty() ? "" : ", ") + d.string();
  message +=
      " Searched: " + searched + " (add directories with --plugin-path or TESSERA_PLUGIN_PATH)";
  return input_error(message, StatusCode::not_found);
}

}  // namespace tessera
