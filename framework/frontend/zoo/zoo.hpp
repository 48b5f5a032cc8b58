// The model zoo: entries in models/zoo/*.yaml, found in `<exe>/../share/tessera/models/zoo` (the
// install tree) and the source tree's models/zoo.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "framework/common/status.hpp"
#include "framework/frontend/zoo/model_spec.hpp"

namespace tessera::zoo {

std::vector<std::filesystem::path> zoo_dirs();

struct ZooEntry {
  std::string name;
  std::filesystem::path file;
  std::string description;
};
// Every readable entry, sorted by name; the first directory wins for a name found twice.
std::vector<ZooEntry> list_zoo();

// An entry by name; an unknown name is an input error with the nearest name and the list.
Result<ModelSpec> find_model(const std::string& name);
Result<ModelSpec> read_model_file(const std::filesystem::path& file);

}  // namespace tessera::zoo
