#include "framework/chip_spec/chip_spec.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <tessera/sdk/nearest.hpp>

#include "framework/common/files.hpp"
#include "framework/common/reference.hpp"
#include "framework/common/user_text.hpp"
#include "framework/common/yaml_reader.hpp"
#include "framework/plugin/objects.hpp"

#ifndef TESSERA_SOURCE_CHIPS_DIR
#error "TESSERA_SOURCE_CHIPS_DIR must be defined by the build"
#endif

namespace fs = std::filesystem;

namespace tessera {

namespace {

// Every part of a chip moves at least this much per second; a rate written below it (1e-300
// bytes/s) is a typo that would have one transfer outlast any clock the simulator keeps.
constexpr double kMinRatePerS = 1;

// A rate (a key ending in per_s) that is a positive number below kMinRatePerS fails; any other
// value is the plugin's to check.
void check_rate(const YamlNode& node, const std::string& key) {
  if (!key.ends_with("per_s")) return;
  std::string text = node.as_string();
  double value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec == std::errc() && end == text.data() + text.size() && value > 0 && value < kMinRatePerS)
    throw node.fail("must be at least 1 per second (no part of a chip is slower), got " +
                    printable(text));
}

// Nested maps become dotted keys, lists get their index: {a: {b: 1}, c: [x, y]} →
// a.b=1, c.0=x, c.1=y. Scalars are passed as written; the plugin parses them.
// Depth is bounded: parameters are shallow, and a hostile file must not exhaust the stack.
void flatten(const YamlNode& node, const std::string& prefix, ParamList& out, int depth = 0) {
  constexpr int kMaxDepth = 16;
  if (depth > kMaxDepth) throw node.fail("is nested more than 16 levels deep");
  // An empty map or list would flatten to nothing, and the plugin would use its default.
  bool empty = (node.is_map() || node.is_sequence()) && node.raw().size() == 0;
  if (empty)
    throw node.fail(std::string("has no value (") +
                    (node.is_map() ? "an empty map" : "an empty list") +
                    "); give the value, or remove the key for the plugin's default");
  if (node.is_map()) {
    for (const auto& [key, child] : node.entries())
      flatten(child, prefix.empty() ? key : prefix + "." + key, out, depth + 1);
  } else if (node.is_sequence()) {
    auto items = node.items();
    for (size_t i = 0; i < items.size(); ++i)
      flatten(items[i], prefix + "." + std::to_string(i), out, depth + 1);
  } else if (node.raw().IsNull()) {
    throw node.fail("has no value; give the value, or remove the key for the plugin's default");
  } else {
    check_rate(node, prefix);
    out.items.emplace_back(prefix, node.as_string());
  }
}

// A finite number in (0, max]; otherwise fails naming the node and `expected`.
double number_in(const YamlNode& node, double max, const std::string& expected) {
  try {
    size_t used = 0;
    std::string text = node.as_string();
    double value = std::stod(text, &used);
    if (used == text.size() && value > 0 && value <= max && std::isfinite(value)) return value;
  } catch (const std::logic_error&) {
  }
  throw node.fail("expected " + expected + ", got " + in_quotes(node.as_string()));
}

double positive(const YamlNode& section, const std::string& key, double fallback) {
  if (!section.has(key)) return fallback;
  return number_in(section.child(key), std::numeric_limits<double>::infinity(), "a number > 0");
}

ChipScale parse_scale(const YamlNode& section) {
  if (!section.is_map()) throw section.fail("expected a map: hbm_bytes_per_s, interconnect, flops");
  section.only_keys({"hbm_bytes_per_s", "interconnect", "flops"});
  ChipScale scale;
  scale.hbm_bytes_per_s = positive(section, "hbm_bytes_per_s", 0);
  scale.interconnect = positive(section, "interconnect", 1);
  scale.flops = positive(section, "flops", 1);
  return scale;
}

// A number ≥ 0 (energies and powers may be 0: a part that costs nothing, stated).
double non_negative(const YamlNode& node) {
  try {
    size_t used = 0;
    std::string text = node.as_string();
    double value = std::stod(text, &used);
    if (used == text.size() && value >= 0 && std::isfinite(value)) return value;
  } catch (const std::logic_error&) {
  }
  throw node.fail("expected a number >= 0, got " + in_quotes(node.as_string()));
}

std::map<std::string, double> parse_pj_per_flop(const YamlNode& node) {
  std::vector<std::string> names;
  for (uint32_t d = 0; d < TESSERA_DTYPE_COUNT; ++d) names.emplace_back(dtype_name(d));
  if (!node.is_map() || node.raw().size() == 0)
    throw node.fail("expected a map of compute types to pJ per FLOP, e.g. {fp16: 0.4}");
  node.only_keys(names);
  std::map<std::string, double> out;
  for (const auto& [dtype, value] : node.entries()) out[dtype] = non_negative(value);
  return out;
}

EnergySpec parse_energy(const YamlNode& section) {
  static const std::vector<std::string> required = {
      "pj_per_flop",         "sram_read_pj_per_byte", "sram_write_pj_per_byte",
      "noc_pj_per_byte_hop", "chip_link_pj_per_byte", "static_w"};
  if (!section.is_map())
    throw section.fail(
        "expected a map: pj_per_flop, sram_read_pj_per_byte, sram_write_pj_per_byte, "
        "noc_pj_per_byte_hop, chip_link_pj_per_byte, static_w and optionally "
        "off_chip_pj_per_byte");
  std::vector<std::string> allowed = required;
  allowed.emplace_back("off_chip_pj_per_byte");
  section.only_keys(allowed);
  EnergySpec e;
  e.pj_per_flop = parse_pj_per_flop(section.child("pj_per_flop"));
  e.sram_read_pj_per_byte = non_negative(section.child("sram_read_pj_per_byte"));
  e.sram_write_pj_per_byte = non_negative(section.child("sram_write_pj_per_byte"));
  e.noc_pj_per_byte_hop = non_negative(section.child("noc_pj_per_byte_hop"));
  e.chip_link_pj_per_byte = non_negative(section.child("chip_link_pj_per_byte"));
  e.static_w = non_negative(section.child("static_w"));
  if (section.has("off_chip_pj_per_byte"))
    e.off_chip_pj_per_byte = non_negative(section.child("off_chip_pj_per_byte"));
  return e;
}

HostSpec parse_host(const YamlNode& section) {
  if (!section.is_map())
    throw section.fail("expected a map: read_bytes_per_s and optionally read_rows");
  section.only_keys({"read_bytes_per_s", "read_rows"});
  if (!section.has("read_bytes_per_s"))
    throw section.fail(
        "missing read_bytes_per_s: the rate, in bytes per second, at which the host reads a "
        "prefill's logits back");
  HostSpec host;
  host.read_bytes_per_s =
      number_in(section.child("read_bytes_per_s"), std::numeric_limits<double>::infinity(),
                "a rate in bytes per second > 0");
  if (section.has("read_rows")) host.read_rows = section.child("read_rows").as_int(1, 1 << 20);
  return host;
}

CoreSection parse_core(const YamlNode& node, const fs::path& file) {
  CoreSection core;
  if (node.is_map()) {
    core.spec = std::make_shared<const YamlNode>(node);
    return core;
  }
  if (!node.is_scalar())
    throw node.fail(
        "expected an architecture preset name, a spec file or the spec as a map (docs/mapper.md)");
  core.reference = node.as_string();
  if (names_a_file(core.reference, kYamlFileSuffixes) && fs::path(core.reference).is_relative())
    core.reference = (file.parent_path() / core.reference).lexically_normal().string();
  return core;
}

CoreCost parse_core_cost_node(const YamlNode& node) {
  auto cost = parse_core_cost(node.as_string());
  if (!cost)
    throw node.fail("unknown core cost " + in_quotes(node.as_string()) +
                    "; expected plugin (the cost model plugin's formulas) or tcm (the mapper on "
                    "the chip's core: hierarchy)");
  return *cost;
}

// Each convention's values as chip files name them (conventions.hpp), in the order messages list.
template <class E>
using Names = std::vector<std::pair<E, const char*>>;
const Names<TileOrientation> kOrientations = {{TileOrientation::fastest, "fastest"},
                                              {TileOrientation::as_written, "as_written"},
                                              {TileOrientation::elk_artifact, "elk_artifact"}};
const Names<TransferPricing> kTransfers = {{TransferPricing::routes, "routes"},
                                           {TransferPricing::per_core_rates, "per_core_rates"}};
const Names<CombineModel> kCombines = {{CombineModel::tree, "tree"},
                                       {CombineModel::elk_artifact, "elk_artifact"}};
const Names<PlanPruning> kPrunings = {{PlanPruning::tessera, "tessera"},
                                      {PlanPruning::elk_artifact, "elk_artifact"}};
const Names<StaticBaseline> kStatics = {{StaticBaseline::tessera, "tessera"},
                                        {StaticBaseline::elk_artifact, "elk_artifact"}};
const Names<ResidencyMode> kResidencies = {{ResidencyMode::off, "off"},
                                           {ResidencyMode::automatic, "auto"},
                                           {ResidencyMode::weights, "weights"},
                                           {ResidencyMode::weights_kv, "weights+kv"}};
const Names<DispatchMode> kDispatches = {{DispatchMode::none, "none"},
                                         {DispatchMode::traced, "traced"},
                                         {DispatchMode::host, "host"},
                                         {DispatchMode::host_async, "host-async"}};
const Names<VendorStack> kVendorStacks = {{VendorStack::none, "none"},
                                          {VendorStack::streamed, "streamed"},
                                          {VendorStack::resident, "resident"}};
const Names<ExecutionContention> kContentions = {{ExecutionContention::charged, "charged"},
                                                 {ExecutionContention::ignored, "ignored"}};

template <class E>
const char* name_in(const Names<E>& names, E value) {
  for (const auto& [v, name] : names)
    if (v == value) return name;
  return names.front().second;
}

// `node` as one of `names` (`what` names the convention in the message); otherwise fails listing
// them.
template <class E>
E parse_choice(const YamlNode& node, const std::string& what, const Names<E>& names) {
  std::string text = node.as_string(), expected;
  for (size_t i = 0; i < names.size(); ++i) {
    if (text == names[i].second) return names[i].first;
    expected += std::string(i == 0 ? "" : i + 1 == names.size() ? " or " : ", ") + names[i].second;
  }
  throw node.fail("unknown " + what + " " + in_quotes(text) + "; expected " + expected);
}

// `key` of `section`, when given, as one of `names`.
template <class E>
void read_choice(const YamlNode& section, const std::string& key, const Names<E>& names, E& out) {
  if (section.has(key)) out = parse_choice(section.child(key), key, names);
}

// `key` of `section`, when given: a map of design names to one value or a list of them, each
// parsed by `parse(node)`. The messages say what a value is (`value`) and show the map (`example`).
template <class T, class Parse>
void read_per_design(const YamlNode& section, const std::string& key, const std::string& value,
                     const std::string& example, Parse parse,
                     std::map<std::string, std::vector<T>>& out) {
  if (!section.has(key)) return;
  YamlNode map = section.child(key);
  if (!map.is_map() || map.raw().size() == 0)
    throw map.fail("expected a map of design names to " + example);
  map.only_keys(convention_design_names());
  for (const auto& [design, node] : map.entries()) {
    std::vector<YamlNode> values = node.is_sequence() ? node.items() : std::vector<YamlNode>{node};
    if (values.empty()) throw node.fail("expected " + value + " or a list of them");
    for (const YamlNode& v : values) out[design].push_back(parse(v));
  }
}

// `vendor_prefill_bytes_per_s`: a rate > 0, for a stack that streams its operands inside its ops.
void read_vendor_prefill_rate(const YamlNode& section, PlanningConventions& c) {
  if (!section.has("vendor_prefill_bytes_per_s")) return;
  YamlNode node = section.child("vendor_prefill_bytes_per_s");
  if (c.vendor != VendorStack::streamed)
    throw node.fail(
        "only a streamed stack (planner: vendor: streamed) reads its operands inside its ops; "
        "remove it or name that stack");
  c.vendor_prefill_bytes_per_s =
      number_in(node, std::numeric_limits<double>::infinity(), "a rate in bytes per second > 0");
}

// `planner:` (conventions.hpp).
PlanningConventions parse_conventions(const YamlNode& section) {
  if (!section.is_map())
    throw section.fail(
        "expected a map: orientation, transfers, combine, pruning, static, residency, dispatch, "
        "vendor, vendor_prefill_bytes_per_s, preload_network_share, execution_contention");
  section.only_keys({"orientation", "transfers", "combine", "pruning", "static", "residency",
                     "dispatch", "vendor", "vendor_prefill_bytes_per_s", "preload_network_share",
                     "execution_contention"});
  PlanningConventions c;
  read_choice(section, "orientation", kOrientations, c.orientation);
  read_choice(section, "transfers", kTransfers, c.transfers);
  read_choice(section, "combine", kCombines, c.combine);
  read_choice(section, "pruning", kPrunings, c.pruning);
  read_choice(section, "static", kStatics, c.static_baseline);
  read_choice(section, "residency", kResidencies, c.residency);
  read_choice(section, "dispatch", kDispatches, c.dispatch);
  read_choice(section, "vendor", kVendorStacks, c.vendor);
  read_vendor_prefill_rate(section, c);
  read_per_design<double>(
      section, "preload_network_share", "a share in (0, 1]", "shares, e.g. {elk-full: 0.99}",
      [](const YamlNode& v) { return number_in(v, 1, "a share in (0, 1]"); },
      c.preload_network_share);
  read_per_design<ExecutionContention>(
      section, "execution_contention", "charged, ignored",
      "charged or ignored, e.g. {elk-full: [ignored, charged]}",
      [](const YamlNode& v) { return parse_choice(v, "execution_contention", kContentions); },
      c.execution_contention);
  return c;
}

// The cost_model section's `core_cost` key (or the whole section written as `cost_model: tcm`)
// chooses who times tiles; the rest are the plugin's parameters.
void parse_section(const YamlNode& section, Interface i, ChipSpec& chip, ChipSection& s) {
  if (section.raw().IsNull()) return;
  if (i == Interface::cost_model && section.is_scalar()) {
    chip.core_cost = parse_core_cost_node(section);
    return;
  }
  if (!section.is_map()) throw section.fail("expected a map of parameters");
  for (const auto& [k, v] : section.entries()) {
    if (k == "plugin")
      s.plugin = v.as_string();
    else if (i == Interface::cost_model && k == "core_cost")
      chip.core_cost = parse_core_cost_node(v);
    else
      flatten(v, k, s.params);
  }
}

ChipSpec parse_chip(const YamlNode& root, const fs::path& file, const std::string& default_target) {
  std::vector<std::string> allowed = {"name",   "description", "approximation",
                                      "target", "scale",       "energy",
                                      "core",   "planner",     "memory_endpoint_efficiency",
                                      "host"};
  for (Interface i : kAllInterfaces) allowed.emplace_back(to_string(i));
  if (!root.is_map()) throw root.fail("a chip file must be a YAML map");
  root.only_keys(allowed);
  ChipSpec chip;
  chip.file = file;
  chip.name = root.child("name").as_string();
  chip.description = root.get_string("description", "");
  chip.approximation = root.get_string("approximation", "");
  chip.target = root.get_string("target", default_target);
  if (root.has("scale")) chip.scale = parse_scale(root.child("scale"));
  if (root.has("energy")) chip.energy = parse_energy(root.child("energy"));
  if (root.has("planner")) chip.conventions = parse_conventions(root.child("planner"));
  if (root.has("host")) chip.host = parse_host(root.child("host"));
  if (root.has("memory_endpoint_efficiency"))
    chip.memory_endpoint_efficiency =
        number_in(root.child("memory_endpoint_efficiency"), 1, "a fraction in (0, 1]");
  for (Interface i : kAllInterfaces) {
    std::string key(to_string(i));
    if (!root.has(key)) continue;
    YamlNode section = root.child(key);
    ChipSection s;
    s.params.base_dir = file.parent_path().string();
    parse_section(section, i, chip, s);
    if (s.plugin.empty() && chip.target.empty())
      throw section.fail("names no plugin: add 'plugin: NAME' here or 'target: NAME' at the top");
    chip.sections[i] = std::move(s);
  }
  if (root.has("core")) chip.core = parse_core(root.child("core"), file);
  if (chip.core_cost == CoreCost::tcm && !chip.core)
    throw root.child(std::string(to_string(Interface::cost_model)))
        .fail(
            "core_cost tcm maps each tile onto the core's memory hierarchy, and this chip has "
            "none: add a `core:` section (an architecture preset such as tensix_core, a spec "
            "file, or the spec inline; docs/mapper.md)");
  return chip;
}

std::vector<fs::path> preset_files(const Manifest& target) {
  std::vector<fs::path> dirs;
  if (!target.chips_dir.empty()) dirs.push_back(target.chips_dir);
  for (const auto& d : shared_chip_dirs()) dirs.push_back(d);
  std::vector<fs::path> files;
  for (const auto& dir : dirs) {
    for (const auto& f : files_with_suffix(dir, ".yaml")) {
      if (dir != target.chips_dir) {
        // A shared chip belongs to the target whose name it gives (cheap check without plugins).
        auto chip = read_chip(f);
        if (!chip || chip->target != target.name) continue;
      }
      files.push_back(f);
    }
  }
  return files;
}

}  // namespace

const char* to_string(CoreCost cost) {
  return cost == CoreCost::tcm ? "tcm" : "plugin";
}

const char* to_string(TileOrientation orientation) {
  return name_in(kOrientations, orientation);
}
const char* to_string(TransferPricing pricing) {
  return name_in(kTransfers, pricing);
}
const char* to_string(CombineModel combine) {
  return name_in(kCombines, combine);
}
const char* to_string(PlanPruning pruning) {
  return name_in(kPrunings, pruning);
}
const char* to_string(ExecutionContention contention) {
  return name_in(kContentions, contention);
}
const char* to_string(StaticBaseline baseline) {
  return name_in(kStatics, baseline);
}

const char* to_string(ResidencyMode mode) {
  return name_in(kResidencies, mode);
}

const char* to_string(VendorStack stack) {
  return name_in(kVendorStacks, stack);
}

std::optional<ResidencyMode> parse_residency(std::string_view text) {
  for (const auto& [mode, name] : kResidencies)
    if (text == name) return mode;
  return std::nullopt;
}

const char* to_string(DispatchMode mode) {
  return name_in(kDispatches, mode);
}

std::optional<DispatchMode> parse_dispatch(std::string_view text) {
  for (const auto& [mode, name] : kDispatches)
    if (text == name) return mode;
  return std::nullopt;
}

std::optional<CoreCost> parse_core_cost(const std::string& text) {
  if (text == "plugin") return CoreCost::plugin;
  if (text == "tcm") return CoreCost::tcm;
  return std::nullopt;
}

std::string ChipSpec::plugin_for(Interface i) const {
  auto it = sections.find(i);
  if (it != sections.end() && !it->second.plugin.empty()) return it->second.plugin;
  return target;
}

ParamList ChipSpec::params_for(Interface i) const {
  ParamList params;
  auto it = sections.find(i);
  if (it != sections.end()) params = it->second.params;
  if (!file.empty()) params.base_dir = file.parent_path().string();
  // A cost model learns where transfers are priced (sdk/params.hpp, prices_per_core), so it can
  // refuse a rate that convention never reads; routes, the default, goes unsaid, so that a plugin
  // built before the key existed (which would call it unknown) still plans every other chip.
  if (i == Interface::cost_model && conventions.transfers != TransferPricing::routes)
    params.items.emplace_back("planner.transfers", to_string(conventions.transfers));
  if (i == Interface::topology && !name.empty()) {
    bool has_name = std::any_of(params.items.begin(), params.items.end(),
                                [](const auto& kv) { return kv.first == "name"; });
    if (!has_name) params.items.emplace_back("name", name);
  }
  return params;
}

namespace {

Result<ChipSpec> from_root(Result<YamlNode> root, const fs::path& file,
                           const std::string& default_target) {
  if (!root) return root.error();
  try {
    return parse_chip(*root, fs::absolute(file).lexically_normal(), default_target);
  } catch (const Failure& f) {
    return f.error();
  }
}

}  // namespace

Result<ChipSpec> read_chip(const fs::path& file, const std::string& default_target) {
  return from_root(YamlNode::load_file(file.string()), file, default_target);
}

Result<ChipSpec> parse_chip_text(const std::string& text, const fs::path& file,
                                 const std::string& default_target) {
  return from_root(YamlNode::load_string(text, file.string()), file, default_target);
}

std::vector<fs::path> shared_chip_dirs() {
  std::vector<fs::path> dirs;
  if (auto prefix = install_prefix()) dirs.push_back(*prefix / "share" / "tessera" / "chips");
  dirs.push_back(TESSERA_SOURCE_CHIPS_DIR);
  return dirs;
}

std::vector<std::string> chip_presets(const Manifest& target) {
  std::vector<std::string> names;
  for (const auto& f : preset_files(target)) {
    std::string stem = f.stem().string();
    if (std::find(names.begin(), names.end(), stem) == names.end()) names.push_back(stem);
  }
  return names;
}

Result<ChipSpec> resolve_chip(const std::string& chip, const Manifest& target) {
  if (names_a_file(chip, kYamlFileSuffixes)) {
    auto spec = read_chip(chip, target.name);
    bool same = spec && (spec->target == target.name ||
                         std::find(target.aliases.begin(), target.aliases.end(), spec->target) !=
                             target.aliases.end());
    if (spec && !same)
      return input_error(spec->file.string() + ": this chip is for target '" + spec->target +
                         "', not '" + target.name + "': pass --target " + spec->target +
                         " or a chip file for " + target.name);
    return spec;
  }
  std::string wanted = chip.empty() ? target.default_chip : chip;
  if (wanted.empty()) {
    ChipSpec empty;  // the plugin's built-in defaults
    empty.target = target.name;
    return empty;
  }
  for (const auto& f : preset_files(target))
    if (f.stem() == wanted) return read_chip(f, target.name);
  std::vector<std::string> names = chip_presets(target);
  std::string message = "unknown chip '" + wanted + "' for target '" + target.name + "'";
  std::string near = sdk::nearest(wanted, names);
  if (!near.empty()) message += "; did you mean '" + near + "'?";
  std::string list;
  for (const auto& n : names) list += (list.empty() ? "" : ", ") + n;
  message += list.empty() ? " This target has no presets; give a chip file path."
                          : " Presets: " + list + " (or give a chip file path).";
  return input_error(message, StatusCode::not_found);
}

}  // namespace tessera
