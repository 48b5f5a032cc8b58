#include "config_files.hpp"

#include <fstream>
#include <iterator>
#include <system_error>
#include <tessera/sdk/error.hpp>

#ifndef TESSERA_SOURCE_MEMORY_DIR
#error "TESSERA_SOURCE_MEMORY_DIR must be defined by the build"
#endif

namespace fs = std::filesystem;

namespace tessera::hbm {

std::vector<fs::path> config_search_dirs(const std::string& base_dir) {
  std::vector<fs::path> dirs;
  if (!base_dir.empty()) dirs.emplace_back(base_dir);
  std::error_code ec;
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec)
    dirs.push_back((exe.parent_path() / ".." / "share" / "tessera" / "memory").lexically_normal());
  dirs.emplace_back(TESSERA_SOURCE_MEMORY_DIR);
  return dirs;
}

fs::path find_config(const std::string& name, const std::string& base_dir) {
  std::error_code ec;
  fs::path given(name);
  if (given.is_absolute()) {
    if (fs::is_regular_file(given, ec)) return given;
    throw sdk::Error(TESSERA_NOT_FOUND, "memory config '" + name + "' does not exist");
  }
  std::string looked;
  for (const fs::path& dir : config_search_dirs(base_dir)) {
    fs::path candidate = dir / given;
    if (fs::is_regular_file(candidate, ec)) return candidate.lexically_normal();
    looked += (looked.empty() ? "" : ", ") + dir.string();
  }
  throw sdk::Error(TESSERA_NOT_FOUND,
                   "memory config '" + name + "' not found (looked in: " + looked + ")");
}

std::string read_text_file(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw sdk::Error(TESSERA_NOT_FOUND, file.string() + ": cannot open the file");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) throw sdk::Error(TESSERA_NOT_FOUND, file.string() + ": cannot read the file");
  return text;
}

}  // namespace tessera::hbm
