#include "framework/mapper/presets.hpp"

#include <algorithm>

#include "framework/common/files.hpp"
#include "framework/common/reference.hpp"
#include "framework/mapper/names.hpp"

namespace fs = std::filesystem;

namespace tessera::mapper {

std::vector<fs::path> preset_dirs(const std::string& subdir, const std::string& source_dir) {
  std::vector<fs::path> dirs;
  std::error_code ec;
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) dirs.push_back(exe.parent_path() / ".." / "share" / "tessera" / subdir);
  dirs.push_back(source_dir);
  return dirs;
}

std::vector<std::string> preset_names(const std::vector<fs::path>& dirs) {
  std::vector<std::string> names;
  for (const auto& dir : dirs)
    for (const auto& f : files_with_suffix(dir, ".yaml")) names.push_back(f.stem().string());
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  return names;
}

bool looks_like_path(const std::string& text) {
  return names_a_file(text, kYamlFileSuffixes);
}
Result<fs::path> find_preset(const std::string& kind, const std::string& name,
                             const std::vector<fs::path>& dirs) {
  for (const auto& dir : dirs) {
    fs::path f = dir / (name + ".yaml");
    std::error_code ec;
    if (fs::is_regular_file(f, ec)) return f;
  }
  auto names = preset_names(dirs);
  std::string list = names.empty() ? "(none found)" : join_names(names);
  std::string hint = nearest_hint(name, names, "; did you mean ", "?");
  return input_error("unknown " + kind + " '" + name + "'" + (hint.empty() ? "." : hint) +
                         " Presets: " + list + "; or give a path to a .yaml file",
                     StatusCode::not_found);
}

}  // namespace tessera::mapper
