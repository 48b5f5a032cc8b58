// Named presets shipped as YAML files (configs/arch, configs/workloads): where they are looked for
// and how a name or a path is resolved, with the nearest name for a typo.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "framework/common/status.hpp"

namespace tessera::mapper {

// <exe>/../share/tessera/<subdir> (the install tree), then `source_dir` (the source tree).
std::vector<std::filesystem::path> preset_dirs(const std::string& subdir,
                                               const std::string& source_dir);
// Stems of the *.yaml files in `dirs`, sorted, first directory winning.
std::vector<std::string> preset_names(const std::vector<std::filesystem::path>& dirs);
// True when `text` names a file rather than a preset (common/reference.hpp's rule).
bool looks_like_path(const std::string& text);
// The file for preset `name`; `kind` ("architecture", "workload") words the error, which lists
// the presets and the nearest.
Result<std::filesystem::path> find_preset(const std::string& kind, const std::string& name,
                                          const std::vector<std::filesystem::path>& dirs);

}  // namespace tessera::mapper
