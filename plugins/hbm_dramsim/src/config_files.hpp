// Where DRAM `.ini` files are found, and the one compiled into the plugin.
//
// A relative name is looked up, in order: beside the chip file (`base_dir`), in
// <directory of the running executable>/../share/tessera/memory (an installed Tessera), and in the
// source tree's configs/memory (a build tree).
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace tessera::hbm {

std::vector<std::filesystem::path> config_search_dirs(const std::string& base_dir);

// The file `name` names, or sdk::Error(NOT_FOUND) listing where it looked.
std::filesystem::path find_config(const std::string& name, const std::string& base_dir);

// The whole file, or sdk::Error(NOT_FOUND) when it cannot be read.
std::string read_text_file(const std::filesystem::path& file);

// The default device when no `config` is given: configs/memory/hbm3e_8hi.ini as of the build.
extern const char* const kBuiltinConfigName;
extern const char* const kBuiltinConfigText;

}  // namespace tessera::hbm
