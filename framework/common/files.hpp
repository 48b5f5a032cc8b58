// Files the way a user's data deserves: listings in a stable order, and outputs written atomically
// (a temporary beside the target, then rename) that never replace an existing file unless asked.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "framework/common/status.hpp"

namespace tessera {

// The regular files directly in `dir` whose names end with `suffix`, sorted by path. A missing or
// unreadable directory gives an empty list: search paths routinely name directories that are not
// there.
std::vector<std::filesystem::path> files_with_suffix(const std::filesystem::path& dir,
                                                     const std::string& suffix);

// The whole file as bytes. Input error (not_found) naming the path when it cannot be opened.
Result<std::string> read_file(const std::filesystem::path& path);

// Writes `contents` to `path` atomically. An existing file is an input error telling the user to
// pass --force, unless `force`. Creates missing parent directories.
Status write_file_atomically(const std::filesystem::path& path, const std::string& contents,
                             bool force);

}  // namespace tessera
