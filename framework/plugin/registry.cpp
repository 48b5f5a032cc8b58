#include "framework/plugin/registry.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>
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
constexpr const char* kLibrarySuffix = ".so";

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
  if (auto prefix = install_prefix()) add_unique(dirs, *prefix / "lib" / "tessera" / "plugins");
  add_unique(dirs, TESSERA_BUILD_PLUGIN_DIR);
  return dirs;
}

fs::path manifest_for_library(const fs::path& library) {
  return library.parent_path() / (library.stem().string() + kManifestSuffix);
}

namespace {

// One directory's manifests and libraries, sorted. Not only regular files: a manifest that is a
// directory or a loop of links is a broken plugin to report, not a file to skip.
struct Listing {
  std::vector<fs::path> manifests, libraries;
};

Listing list_plugins(const fs::path& dir) {
  Listing listing;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.size() > std::strlen(kManifestSuffix) && name.ends_with(kManifestSuffix))
      listing.manifests.push_back(fs::absolute(it->path()).lexically_normal());
    else if (name.size() > std::strlen(kLibrarySuffix) && name.ends_with(kLibrarySuffix))
      listing.libraries.push_back(fs::absolute(it->path()).lexically_normal());
  }
  std::sort(listing.manifests.begin(), listing.manifests.end());
  std::sort(listing.libraries.begin(), listing.libraries.end());
  return listing;
}

std::string without_suffix(const fs::path& file, const char* suffix) {
  std::string name = file.filename().string();
  return name.substr(0, name.size() - std::strlen(suffix));
}

// A manifest that is not a regular file cannot be read; says why in words, not as an errno.
Result<Manifest> read_listed_manifest(const fs::path& file) {
  std::error_code ec;
  fs::file_status status = fs::status(file, ec);
  if (fs::is_regular_file(status)) return read_manifest(file);
  std::string what = ec == std::errc::too_many_symbolic_link_levels ? "is a loop of symbolic links"
                     : status.type() == fs::file_type::not_found    ? "is a dangling symbolic link"
                     : fs::is_directory(status)                     ? "is a directory"
                                                                    : "is not a regular file";
  return input_error(file.string() + ": " + what + ", not a plugin manifest");
}

}  // namespace

void Registry::add(Manifest manifest) {
  if (seen_.insert(manifest.name).second)
    manifests_.push_back(std::move(manifest));
  else
    shadowed_.push_back(std::move(manifest));
}

void Registry::add_broken(BrokenPlugin broken) {
  seen_.insert(broken.name);  // a later plugin of the name must not stand in for it
  broken_.push_back(std::move(broken));
}

Registry Registry::discover(const std::vector<fs::path>& dirs) {
  Registry r;
  r.dirs_ = dirs;
  for (const auto& dir : dirs) {
    Listing listing = list_plugins(dir);
    std::set<fs::path> named;  // the libraries this directory's manifests name
    for (const auto& file : listing.manifests) {
      auto m = read_listed_manifest(file);
      if (!m) {
        r.add_broken({file, without_suffix(file, kManifestSuffix), m.error().message});
      } else {
        named.insert(m->library.lexically_normal());
        r.add(*m);
      }
    }
    for (const auto& library : listing.libraries)
      if (!named.count(library))
        r.add_broken({library, without_suffix(library, kLibrarySuffix),
                      library.string() + ": no manifest in its directory names this library (" +
                          without_suffix(library, kLibrarySuffix) + kManifestSuffix +
                          " is missing; tessera_add_plugin writes it beside the library)"});
  }
  return r;
}

Result<Manifest> Registry::resolve_path(const std::string& target) const {
  fs::path path(target);
  fs::path manifest = target.ends_with(kManifestSuffix) ? path : manifest_for_library(path);
  // symlink_status, not exists(): a loop of links is a file to refuse later, not an exception.
  std::error_code ec;
  if (fs::symlink_status(path, ec).type() == fs::file_type::not_found)
    return input_error("plugin file '" + target + "' does not exist", StatusCode::not_found);
  if (fs::symlink_status(manifest, ec).type() == fs::file_type::not_found)
    return plugin_error("plugin '" + target + "' has no manifest: expected '" + manifest.string() +
                            "' beside it (tessera_add_plugin generates it)",
                        StatusCode::not_found);
  return read_listed_manifest(manifest);
}

Result<Manifest> Registry::resolve(const std::string& target) const {
  if (names_a_file(target, kPluginFileSuffixes)) return resolve_path(target);
  for (const auto& m : manifests_) {
    if (m.name == target) return m;
  }
  for (const auto& b : broken_) {
    if (b.name == target)
      return plugin_error("target '" + target + "' is broken: " + b.reason +
                          " (it comes first on the plugin search path, so no later plugin of that "
                          "name stands in for it; fix or remove it)");
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
