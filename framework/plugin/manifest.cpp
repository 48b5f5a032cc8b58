#include "framework/plugin/manifest.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>

#include "framework/common/yaml_reader.hpp"

#ifndef TESSERA_HOST_PLATFORM
#error "TESSERA_HOST_PLATFORM must be defined by the build"
#endif

namespace tessera {

std::string host_platform() {
  return TESSERA_HOST_PLATFORM;
}

namespace {

// Suite.Test: two names of [A-Za-z0-9_], as gtest names the kit's tests.
bool is_test_name(const std::string& name) {
  auto word = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  size_t dot = name.find('.');
  return dot != std::string::npos && dot > 0 && dot + 1 < name.size() &&
         std::all_of(name.begin(), name.begin() + static_cast<std::ptrdiff_t>(dot), word) &&
         std::all_of(name.begin() + static_cast<std::ptrdiff_t>(dot) + 1, name.end(), word);
}

// An absent key or one without a value (`unsupported:`) is an empty list.
bool absent_or_empty(const YamlNode& node, const std::string& key) {
  return !node.has(key) || node.child(key).raw().IsNull();
}

std::vector<TestEntry> test_list(const YamlNode& root, const std::string& key) {
  if (absent_or_empty(root, key)) return {};
  std::vector<TestEntry> list;
  for (const YamlNode& item : root.child(key).items()) {
    std::string name = item.as_string();
    if (!is_test_name(name))
      throw item.fail(
          "expected a conformance test as Suite.Test (e.g. CostModelContract.InfoIsSane), got '" +
          name + "'");
    for (const TestEntry& e : list)
      if (e.test == name)
        throw item.fail("'" + name + "' is listed twice (also on line " + std::to_string(e.line) +
                        ")");
    list.push_back({name, item.line()});
  }
  return list;
}

// A test is skipped or expected to fail, not both.
void check_disjoint(const Manifest& m, const YamlNode& root) {
  for (size_t i = 0; i < m.expected_failures.size(); ++i)
    for (const TestEntry& u : m.unsupported)
      if (u.test == m.expected_failures[i].test)
        throw root.child("expected_failures")
            .items()[i]
            .fail("'" + u.test + "' is also listed as unsupported (line " + std::to_string(u.line) +
                  "); a test is either skipped or expected to fail");
}

// "100x100": whole numbers of at least 1, separated by 'x'.
std::vector<uint64_t> parse_shape(const YamlNode& node) {
  std::string text = node.as_string();
  std::vector<uint64_t> shape;
  for (size_t start = 0; start <= text.size();) {
    size_t end = std::min(text.find('x', start), text.size());
    uint64_t extent = 0;
    auto [at, ec] = std::from_chars(text.data() + start, text.data() + end, extent);
    if (ec != std::errc() || at != text.data() + end || extent == 0)
      throw node.fail("expected the tensor's extents like 100x100, got '" + text + "'");
    shape.push_back(extent);
    start = end + 1;
  }
  return shape;
}

std::vector<LayoutSample> layout_samples(const YamlNode& section, const std::string& key) {
  if (absent_or_empty(section, key)) return {};
  std::vector<LayoutSample> samples;
  for (const YamlNode& item : section.child(key).items()) {
    if (!item.is_map()) throw item.fail("expected {shape: 100x100, text: \"LAYOUT\"}");
    item.only_keys({"shape", "text"});
    samples.push_back(
        {item.child("text").as_string(), parse_shape(item.child("shape")), item.line()});
  }
  return samples;
}

// library_size and library_sha256: both or neither (child() names the one missing). The host
// refuses a library without them, but the manifest is still listed.
void parse_integrity(const YamlNode& root, Manifest& m) {
  if (!root.has("library_size") && !root.has("library_sha256")) return;
  m.library_size = static_cast<uint64_t>(root.child("library_size").as_int(1));
  YamlNode hex = root.child("library_sha256");
  m.library_sha256 = hex.as_string();
  std::transform(m.library_sha256.begin(), m.library_sha256.end(), m.library_sha256.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (m.library_sha256.size() != 64 ||
      !std::all_of(m.library_sha256.begin(), m.library_sha256.end(),
                   [](unsigned char c) { return std::isxdigit(c); }))
    throw hex.fail("expected a SHA-256 as 64 hex digits, got '" + hex.as_string() + "'");
}

void parse_conformance(const YamlNode& root, Manifest& m) {
  m.unsupported = test_list(root, "unsupported");
  m.expected_failures = test_list(root, "expected_failures");
  check_disjoint(m, root);
  if (absent_or_empty(root, "conformance")) return;
  YamlNode section = root.child("conformance");
  if (!section.is_map()) throw section.fail("expected a map with layouts and malformed_layouts");
  section.only_keys({"layouts", "malformed_layouts"});
  m.conformance_layouts = layout_samples(section, "layouts");
  m.conformance_malformed_layouts = layout_samples(section, "malformed_layouts");
}

Manifest parse(const YamlNode& root, const std::filesystem::path& file) {
  root.only_keys({"name", "version", "description", "aliases", "library", "abi", "platform",
                  "provides", "default_chip", "chips", "unsupported", "expected_failures",
                  "conformance", "library_size", "library_sha256"});
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
  parse_integrity(root, m);
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
  parse_conformance(root, m);
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
