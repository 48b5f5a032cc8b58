#include "framework/mapper/arch_spec.hpp"

#include <charconv>
#include <cmath>

#include "framework/common/user_text.hpp"
#include "framework/mapper/presets.hpp"

namespace fs = std::filesystem;

#ifndef TESSERA_SOURCE_ARCH_DIR
#error "TESSERA_SOURCE_ARCH_DIR must be defined by the build"
#endif

namespace tessera::mapper {

namespace {

// A positive number, or a product of numbers as specs are often transcribed (`1024*1024*128`).
double parse_number(const YamlNode& node) {
  std::string text = node.as_string();
  double value = 1;
  size_t start = 0;
  while (true) {
    size_t star = text.find('*', start);
    std::string part =
        text.substr(start, star == std::string::npos ? std::string::npos : star - start);
    double v = 0;
    auto [end, ec] = std::from_chars(part.data(), part.data() + part.size(), v);
    if (part.empty() || ec != std::errc() || end != part.data() + part.size() || !(v >= 0) ||
        std::isinf(v))
      throw node.fail("expected a non-negative number (e.g. 1.05e9 or 1024*1024), got " +
                      in_quotes(text));
    value *= v;
    if (star == std::string::npos) break;
    start = star + 1;
  }
  if (std::isinf(value))
    throw node.fail("the product " + in_quotes(text) +
                    " overflows; write `unlimited` for no bound");
  return value;
}

double parse_number_or_unlimited(const YamlNode& node) {
  if (node.is_scalar() && node.as_string() == "unlimited") return kUnlimited;
  return parse_number(node);
}

TensorSelector parse_selector(const YamlNode& node) {
  return TensorSelector{node.as_string_list(), node};
}

// `<dir>_pj_per_bit: e` or `<dir>_pj_per_access: e` with `access_bits`; joules per byte.
double parse_energy(const YamlNode& level, const std::string& dir) {
  bool per_bit = level.has(dir + "_pj_per_bit");
  bool per_access = level.has(dir + "_pj_per_access");
  if (per_bit && per_access)
    throw level.child(dir + "_pj_per_access")
        .fail("give either " + dir + "_pj_per_bit or " + dir + "_pj_per_access, not both");
  if (per_bit) return parse_number(level.child(dir + "_pj_per_bit")) * 8e-12;
  if (!per_access) return 0;
  if (!level.has("access_bits"))
    throw level.child(dir + "_pj_per_access")
        .fail("energy per access needs access_bits (the width of one access)");
  double bits = parse_number(level.child("access_bits"));
  if (bits <= 0) throw level.child("access_bits").fail("must be positive");
  return parse_number(level.child(dir + "_pj_per_access")) * 1e-12 / (bits / 8);
}

std::vector<FanoutDimSpec> parse_fanout(const YamlNode& node) {
  std::vector<FanoutDimSpec> dims;
  for (const auto& item : node.items()) {
    item.only_keys({"name", "size", "multicast", "require_reuse", "ranks"});
    FanoutDimSpec dim;
    dim.name = item.child("name").as_string();
    dim.size = item.child("size").as_int(1, int64_t{1} << 40);
    if (item.has("multicast")) dim.multicast = parse_selector(item.child("multicast"));
    if (item.has("require_reuse")) dim.require_reuse = parse_selector(item.child("require_reuse"));
    if (item.has("ranks")) {
      dim.ranks = item.child("ranks").as_string_list();
      dim.ranks_node = item.child("ranks");
    }
    dims.push_back(std::move(dim));
  }
  return dims;
}

void parse_bandwidth(const YamlNode& node, LevelSpec& level) {
  if (node.has("bytes_per_s")) {
    if (node.has("read_bytes_per_s") || node.has("write_bytes_per_s"))
      throw node.child("bytes_per_s")
          .fail("give bytes_per_s (both directions) or read_/write_bytes_per_s, not both");
    level.read_bytes_per_s = level.write_bytes_per_s =
        parse_number_or_unlimited(node.child("bytes_per_s"));
  }
  if (node.has("read_bytes_per_s"))
    level.read_bytes_per_s = parse_number_or_unlimited(node.child("read_bytes_per_s"));
  if (node.has("write_bytes_per_s"))
    level.write_bytes_per_s = parse_number_or_unlimited(node.child("write_bytes_per_s"));
  for (const char* key : {"bytes_per_s", "read_bytes_per_s", "write_bytes_per_s"})
    if (node.has(key) && parse_number_or_unlimited(node.child(key)) == 0)
      throw node.child(key).fail("a bandwidth must be positive (or `unlimited`)");
  if (node.has("ports")) {
    std::string ports = node.child("ports").as_string();
    if (ports != "shared" && ports != "separate")
      throw node.child("ports").fail(
          "expected `shared` (read and write time add) or "
          "`separate` (they overlap), got '" +
          ports + "'");
    level.shared_port = ports == "shared";
  }
}

LevelSpec parse_level(const YamlNode& node, size_t index) {
  node.only_keys({"name", "capacity_bytes", "read_pj_per_bit", "write_pj_per_bit",
                  "read_pj_per_access", "write_pj_per_access", "access_bits", "bytes_per_s",
                  "read_bytes_per_s", "write_bytes_per_s", "ports", "keep", "may_keep", "fanout"});
  LevelSpec level;
  level.node = node;
  level.name = node.child("name").as_string();
  if (node.has("capacity_bytes"))
    level.capacity_bytes = parse_number_or_unlimited(node.child("capacity_bytes"));
  level.read_joules_per_byte = parse_energy(node, "read");
  level.write_joules_per_byte = parse_energy(node, "write");
  parse_bandwidth(node, level);
  if (node.has("keep")) level.keep = parse_selector(node.child("keep"));
  if (node.has("may_keep")) level.may_keep = parse_selector(node.child("may_keep"));
  if (node.has("fanout")) level.fanout = parse_fanout(node.child("fanout"));
  if (index == 0) {
    if (!level.fanout.empty())
      throw node.child("fanout").fail("the backing store (the first level) has no fan-out");
    if (node.has("keep") && level.keep.names != std::vector<std::string>{"all"})
      throw node.child("keep").fail(
          "the first level is the backing store and keeps every "
          "tensor: write `keep: all` or leave keep out");
    level.keep.names = {"all"};
  }
  return level;
}

ComputeSpec parse_compute(const YamlNode& node) {
  node.only_keys({"name", "pj_per_op", "ops_per_s", "fanout"});
  ComputeSpec c;
  c.name = node.get_string("name", "MAC");
  if (node.has("pj_per_op")) c.joules_per_op = parse_number(node.child("pj_per_op")) * 1e-12;
  c.ops_per_s = parse_number(node.child("ops_per_s"));
  if (c.ops_per_s <= 0) throw node.child("ops_per_s").fail("must be positive");
  if (node.has("fanout")) c.fanout = parse_fanout(node.child("fanout"));
  return c;
}

ArchSpec parse_root(const YamlNode& root, const fs::path& file) {
  if (!root.is_map()) throw root.fail("an architecture spec is a map with `levels` and `compute`");
  root.only_keys({"name", "description", "levels", "compute"});
  ArchSpec spec;
  spec.file = file;
  spec.name = root.get_string("name", file.stem().string());
  spec.description = root.get_string("description", "");
  auto items = root.child("levels").items();
  if (items.empty()) throw root.child("levels").fail("needs at least one level");
  for (size_t i = 0; i < items.size(); ++i) {
    spec.levels.push_back(parse_level(items[i], i));
    for (size_t j = 0; j < i; ++j)
      if (spec.levels[j].name == spec.levels[i].name)
        throw items[i].child("name").fail("level name '" + spec.levels[i].name +
                                          "' is used twice; level names must be unique");
  }
  spec.compute = parse_compute(root.child("compute"));
  return spec;
}

Result<ArchSpec> from_root(Result<YamlNode> root, const fs::path& file) {
  if (!root) return root.error();
  try {
    return parse_root(*root, file);
  } catch (const Failure& f) {
    return f.error();
  }
}

}  // namespace

Result<ArchSpec> read_arch_spec(const fs::path& file) {
  return from_root(YamlNode::load_file(file.string()), file);
}

Result<ArchSpec> parse_arch_spec(const std::string& text, const fs::path& file) {
  return from_root(YamlNode::load_string(text, file.string()), file);
}

Result<ArchSpec> parse_arch_node(const YamlNode& node) {
  return from_root(node, node.file());
}

std::vector<fs::path> arch_spec_dirs() {
  return preset_dirs("arch", TESSERA_SOURCE_ARCH_DIR);
}

std::vector<std::string> arch_presets() {
  return preset_names(arch_spec_dirs());
}

Result<ArchSpec> resolve_arch_spec(const std::string& name_or_path) {
  if (looks_like_path(name_or_path)) return read_arch_spec(name_or_path);
  auto file = find_preset("architecture", name_or_path, arch_spec_dirs());
  if (!file) return file.error();
  return read_arch_spec(*file);
}

}  // namespace tessera::mapper
