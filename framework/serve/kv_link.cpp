#include "framework/serve/kv_link.hpp"

#include <cmath>
#include <stdexcept>

#include "framework/common/user_text.hpp"
#include "framework/common/yaml_reader.hpp"
#include "framework/mapper/presets.hpp"

#ifndef TESSERA_SOURCE_LINKS_DIR
#error "TESSERA_SOURCE_LINKS_DIR must be defined by the build"
#endif

namespace tessera::serve {

namespace {

// The finite number at `node`, above 0 (`positive`) or at least 0; else fails saying so.
double number_at(const YamlNode& node, bool positive, const std::string& unit) {
  const std::string text = node.as_string();
  try {
    size_t used = 0;
    const double value = std::stod(text, &used);
    if (used == text.size() && std::isfinite(value) && (positive ? value > 0 : value >= 0))
      return value;
  } catch (const std::logic_error&) {
  }
  throw node.fail(std::string("expected a number ") + (positive ? "> 0" : ">= 0") + " (" + unit +
                  "), got " + in_quotes(text));
}

KvLink link_of(const YamlNode& root, const std::filesystem::path& file) {
  if (!root.is_map())
    throw root.fail("expected a map: name, bytes_per_s, latency_s, pj_per_byte (docs/formats.md)");
  root.only_keys({"name", "description", "bytes_per_s", "latency_s", "pj_per_byte"});
  KvLink link;
  link.file = file;
  link.name = root.get_string("name", file.stem().string());
  link.bytes_per_s = number_at(root.child("bytes_per_s"), true, "bytes per second");
  link.latency_s = number_at(root.child("latency_s"), false, "seconds");
  if (root.has("pj_per_byte"))
    link.j_per_byte = number_at(root.child("pj_per_byte"), false, "picojoules per byte") * 1e-12;
  return link;
}

Result<KvLink> kv_link_of(const YamlNode& root, const std::filesystem::path& file) {
  try {
    return link_of(root, file);
  } catch (const Failure& failure) {
    return failure.error();
  }
}

}  // namespace

std::vector<std::filesystem::path> kv_link_dirs() {
  return mapper::preset_dirs("links", TESSERA_SOURCE_LINKS_DIR);
}

Result<KvLink> read_kv_link(const std::string& name_or_file) {
  std::filesystem::path file = name_or_file;
  if (!mapper::looks_like_path(name_or_file)) {
    auto found = mapper::find_preset("KV link", name_or_file, kv_link_dirs());
    if (!found) return found.error();
    file = *found;
  }
  auto root = YamlNode::load_file(file.string());
  if (!root) return root.error();
  return kv_link_of(*root, file);
}

Result<KvLink> parse_kv_link_text(const std::string& text, const std::filesystem::path& file) {
  auto root = YamlNode::load_string(text, file.string());
  if (!root) return root.error();
  return kv_link_of(*root, file);
}

}  // namespace tessera::serve
