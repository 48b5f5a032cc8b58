#include "framework/plugin/manifest.hpp"

#include <algorithm>

#include "framework/common/yaml_reader.hpp"

#ifndef TESSERA_HOST_PLATFORM
#error "TESSERA_HOST_PLATFORM must be defined by the build"
#endif

namespace tessera {

std::string host_platform() {
  return TESSERA_HOST_PLATFORM;
}

namespace {

Manifest parse(const YamlNode& root, const std::filesystem::path& file) {
  root.only_keys({"name", "version", "description", "aliases", "library", "abi", "platform",
                  "provides", "default_chip", "chips"});
  Manifest m;
  m.file = file;
  m.name = root.child("name").as_string();
  auto allowed = [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
  };
  if (m.name.empty() || !std::all_of(m.name.begin(), m.name.end(), allowed))
    throw root.child("name").fail("plugin names use only a-z, 0-9 and _, got '" + m.name + "'");
  m.version = root.child("version").as_string();
  m.description = root.get_string("description", "");
  if (root.has("aliases")) m.aliases = root.child("aliases").as_string_list();
  std::filesystem::path dir = file.parent_path();
  std::filesystem::path library = root.child("library").as_string();
  m.library = library.is_absolute() ? library : dir / library;
  YamlNode abi = root.child("abi");
  abi.only_keys({"major", "minor"});
  m.abi_major = static_cast<uint32_t>(abi.child("major").as_int(0, UINT32_MAX));
  m.abi_minor = static_cast<uint32_t>(abi.child("minor").as_int(0, UINT32_MAX));
  m.platform = root.child("platform").as_string();
  for (const YamlNode& item : root.child("provides").items()) {
    std::string name = item.as_string();
    auto i = interface_from_string(name);
    if (!i)
      throw item.fail("unknown interface '" + name +
                      "'; valid: topology, cost_model, partitioner, layout_mapper, codegen, "
                      "memory_model");
    m.provides.insert(*i);
  }
  m.default_chip = root.get_string("default_chip", "");
  std::string chips = root.get_string("chips", "");
  if (!chips.empty()) m.chips_dir = dir / chips;
  return m;
}

Result<Manifest> from_root(Result<YamlNode> root, const std::filesystem::path& file) {
  if (!root) return root.error();
  try {
    if (!root->is_map()) throw root->fail("a plugin manifest must be a YAML map");
    return parse(*root, std::filesystem::absolute(file).lexically_normal());
  } catch (const Failure& f) {
    return f.error();
  }
}

}  // namespace

Result<Manifest> read_manifest(const std::filesystem::path& file) {
  return from_root(YamlNode::load_file(file.string()), file);
}

Result<Manifest> parse_manifest(const std::string& text, const std::filesystem::path& file) {
  return from_root(YamlNode::load_string(text, file.string()), file);
}

}  // namespace tessera
