#include "framework/frontend/zoo/zoo.hpp"

#include <set>
#include <tessera/sdk/nearest.hpp>

#include "framework/common/files.hpp"

#ifndef TESSERA_SOURCE_ZOO_DIR
#error "TESSERA_SOURCE_ZOO_DIR must be defined by the build"
#endif

namespace tessera::zoo {

namespace fs = std::filesystem;

std::vector<fs::path> zoo_dirs() {
  std::vector<fs::path> dirs;
  if (auto prefix = install_prefix())
    dirs.push_back(*prefix / "share" / "tessera" / "models" / "zoo");
  dirs.push_back(TESSERA_SOURCE_ZOO_DIR);
  return dirs;
}

Result<ModelSpec> read_model_file(const fs::path& file) {
  auto root = YamlNode::load_file(file.string());
  if (!root) return root.error();
  try {
    return parse_model_spec(*root);
  } catch (const Failure& f) {
    return f.error();
  }
}

std::vector<ZooEntry> list_zoo() {
  std::vector<ZooEntry> out;
  std::set<std::string> seen;
  for (const auto& dir : zoo_dirs()) {
    for (const auto& file : files_with_suffix(dir, ".yaml")) {
      auto spec = read_model_file(file);
      if (!spec || !seen.insert(spec->name).second) continue;
      out.push_back({spec->name, file, spec->description});
    }
  }
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
  return out;
}

Result<ModelSpec> find_model(const std::string& name) {
  auto entries = list_zoo();
  std::vector<std::string> names;
  for (const auto& e : entries) {
    if (e.name == name) return read_model_file(e.file);
    names.push_back(e.name);
  }
  std::string message = "unknown model '" + name + "'";
  std::string near = sdk::nearest(name, names);
  if (!near.empty()) message += "; did you mean '" + near + "'?";
  std::string all;
  for (const auto& n : names) all += (all.empty() ? "" : ", ") + n;
  return input_error(message + " Zoo models: " + all + " (or give a path to a .onnx or .yaml file)",
                     StatusCode::not_found);
}

}  // namespace tessera::zoo
