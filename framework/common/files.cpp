#include "framework/common/files.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <random>

namespace fs = std::filesystem;

namespace tessera {

std::vector<fs::path> files_with_suffix(const fs::path& dir, const std::string& suffix) {
  std::vector<fs::path> files;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return files;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    std::string name = entry.path().filename().string();
    if (name.size() >= suffix.size() &&
        name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0 &&
        entry.is_regular_file(ec))
      files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());  // deterministic whatever the filesystem's order
  return files;
}

Result<std::string> read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return input_error(path.string() + ": cannot open the file (does it exist and is it readable?)",
                       StatusCode::not_found);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

Status write_file_atomically(const fs::path& path, const std::string& contents, bool force) {
  std::error_code ec;
  if (!force && fs::exists(path, ec))
    return input_error("'" + path.string() +
                       "' already exists; pass --force to overwrite it or choose another path");
  if (path.has_parent_path()) fs::create_directories(path.parent_path(), ec);
  if (ec)
    return input_error("cannot create the directory '" + path.parent_path().string() +
                       "': " + ec.message());
  std::random_device rd;
  fs::path temp = path;
  temp += ".tmp-" + std::to_string(rd());
  {
    std::ofstream out(temp, std::ios::binary | std::ios::trunc);
    out.write(contents.data(), static_cast<std::streamsize>(contents.size()));
    out.flush();
    if (!out) {
      int err = errno;
      fs::remove(temp, ec);
      return input_error("cannot write '" + path.string() + "': " + std::strerror(err));
    }
  }
  fs::rename(temp, path, ec);
  if (ec) {
    std::error_code ignored;
    fs::remove(temp, ignored);
    return input_error("cannot write '" + path.string() + "': " + ec.message());
  }
  return ok_status();
}

}  // namespace tessera
