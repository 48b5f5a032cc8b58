#include "framework/dse/point_setup.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <stdexcept>
#include <tessera/sdk/nearest.hpp>

#include "framework/chip_spec/conventions.hpp"
#include "framework/common/reference.hpp"
#include "framework/common/user_text.hpp"
#include "framework/dse/serve_point.hpp"
#include "framework/parallel/parallel.hpp"

namespace tessera::dse {

namespace {

namespace fs = std::filesystem;

const std::vector<std::string> kWorkloadPaths = {
    "model",     "batch",    "seq",       "mode",     "dtype", "weight_dtype",
    "precision", "parallel", "residency", "dispatch", "rank"};
const std::vector<std::string> kKnobPaths = {"memory.bandwidth_bytes_per_s",
                                             "interconnect_scale",
                                             "flops_scale",
                                             "cores",
                                             "chip",
                                             "core_cost",
                                             "memory_endpoint_efficiency"};
const std::vector<std::string> kScaleKeys = {"hbm_bytes_per_s", "interconnect", "flops"};

bool contains(const std::vector<std::string>& list, const std::string& s) {
  return std::find(list.begin(), list.end(), s) != list.end();
}

// A model or chip given as a relative file path is relative to the sweep file.
std::string beside_sweep(const SweepSpec& spec, const std::string& name) {
  if (!names_a_file(name, kModelFileSuffixes) || fs::path(name).is_absolute()) return name;
  return (fs::path(spec.file).parent_path() / name).lexically_normal().string();
}

std::optional<double> positive_number(const std::string& text) {
  try {
    size_t used = 0;
    double v = std::stod(text, &used);
    if (used == text.size() && std::isfinite(v) && v > 0) return v;
  } catch (const std::logic_error&) {
  }
  return std::nullopt;
}

std::optional<int64_t> positive_int(const std::string& text) {
  int64_t v = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec == std::errc() && ptr == text.data() + text.size() && v >= 1) return v;
  // "1104" from a range arrives as written by {} formatting; "1.104e+03" never does.
  return std::nullopt;
}

// Why `value` cannot be given to the axis `path`; empty when it can.
std::string value_problem(const std::string& path, const std::string& value) {
  if (path == "batch" || path == "seq" || path == "cores")
    return positive_int(value) ? "" : "expected a whole number >= 1";
  if (path == "mode")
    return value == "decode" || value == "prefill" ? "" : "expected decode or prefill";
  if (path == "dtype") return ir::parse_dtype(value) ? "" : "expected fp32, fp16, bf16 or fp8";
  if (path == "weight_dtype")
    return value == "fp16" || value == "bf16" || value == "fp8" || value == "bfp8"
               ? ""
               : "expected fp16, bf16, fp8 or bfp8";
  if (path == "parallel") return strategy_problem(value);
  if (path == "residency")
    return parse_residency(value) ? "" : std::string("expected ") + kResidencyNames;
  if (path == "dispatch")
    return parse_dispatch(value) ? "" : std::string("expected ") + kDispatchNames;
  if (path == "rank")
    return parallel::parse_rank(value) ? "" : std::string("expected ") + parallel::kRankNames;
  if (path == "core_cost")
    return parse_core_cost(value) ? ""
                                  : "expected plugin or tcm (docs/mapper.md, \"Cores of a chip\")";
  if (path == "memory_endpoint_efficiency") {
    auto fraction = positive_number(value);
    return fraction && *fraction <= 1 ? "" : "expected a fraction in (0, 1]";
  }
  bool knob = path == "memory.bandwidth_bytes_per_s" || path == "interconnect_scale" ||
              path == "flops_scale" || path.starts_with("scale.");
  if (knob) return positive_number(value) ? "" : "expected a number > 0";
  return "";
}

void set_param(ChipSpec& chip, Interface section, const std::string& key,
               const std::string& value) {
  auto& items = chip.sections[section].params.items;
  for (auto& [k, v] : items)
    if (k == key) {
      v = value;
      return;
    }
  items.emplace_back(key, value);
}

std::string param(const ChipSpec& chip, Interface section, const std::string& key) {
  auto it = chip.sections.find(section);
  if (it == chip.sections.end()) return "";
  for (const auto& [k, v] : it->second.params.items)
    if (k == key) return v;
  return "";
}

Status apply_chip_value(ChipSpec& chip, const std::string& path, const std::string& value) {
  auto number = [&] { return *positive_number(value); };
  if (path == "memory.bandwidth_bytes_per_s" || path == "scale.hbm_bytes_per_s")
    chip.scale.hbm_bytes_per_s = number();
  else if (path == "interconnect_scale" || path == "scale.interconnect")
    chip.scale.interconnect = number();
  else if (path == "flops_scale" || path == "scale.flops")
    chip.scale.flops = number();
  else if (path == "core_cost")
    chip.core_cost = *parse_core_cost(value);
  else if (path == "memory_endpoint_efficiency")
    chip.memory_endpoint_efficiency = number();
  else if (path == "cores") {
    std::string chips_text = param(chip, Interface::topology, "chips");
    int64_t chips = chips_text.empty() ? 1 : positive_int(chips_text).value_or(0);
    int64_t cores = *positive_int(value);
    if (chips < 1 || cores % chips != 0)
      return input_error(
          fmt::format("cores {}: not a multiple of the chip's {} chips "
                      "(topology.chips); cores are spread evenly over the chips",
                      cores, chips_text.empty() ? "1" : chips_text));
    set_param(chip, Interface::topology, "cores_per_chip", std::to_string(cores / chips));
  } else {
    size_t dot = path.find('.');
    set_param(chip, *interface_from_string(path.substr(0, dot)), path.substr(dot + 1), value);
  }
  return ok_status();
}

struct Values {
  std::string model, chip;
  int64_t batch = 0, seq = 0;
  std::string mode, dtype, weight_dtype, precision, parallel, residency, dispatch, rank;
};

Values workload(const SweepSpec& spec, const Point& point) {
  const SweepBase& b = spec.base;
  Values v{b.model,        b.chip,      b.batch,    b.seq,       b.mode,     b.dtype,
           b.weight_dtype, b.precision, b.parallel, b.residency, b.dispatch, b.rank};
  for (size_t a = 0; a < spec.axes.size(); ++a) {
    const std::string& path = spec.axes[a].path;
    const std::string& value = point.values[a];
    if (path == "model") v.model = value;
    if (path == "chip") v.chip = value;
    if (path == "batch") v.batch = *positive_int(value);
    if (path == "seq") v.seq = *positive_int(value);
    if (path == "mode") v.mode = value;
    if (path == "dtype") v.dtype = value;
    if (path == "weight_dtype") v.weight_dtype = value;
    if (path == "precision") v.precision = value;
    if (path == "parallel") v.parallel = value;
    if (path == "residency") v.residency = value;
    if (path == "dispatch") v.dispatch = value;
    if (path == "rank") v.rank = value;
  }
  return v;
}

ModelRequest model_request(const SweepSpec& spec, const Values& v) {
  ModelRequest r;
  r.model = beside_sweep(spec, v.model);
  for (const std::string& dim : spec.base.dims) {
    size_t eq = dim.find('=');
    auto value = eq == std::string::npos ? std::nullopt : positive_int(dim.substr(eq + 1));
    if (!value || *value > zoo::kMaxSeq)
      throw Failure(input_error(spec.file + ": base.dims: " + in_quotes(dim) +
                                ": expected NAME=VALUE with VALUE in [1, " +
                                std::to_string(zoo::kMaxSeq) + "], e.g. batch=16"));
    r.onnx.dims[dim.substr(0, eq)] = *value;
  }
  r.shape.batch = v.batch > 0 ? v.batch : 1;
  if (v.seq > 0) r.shape.seq = v.seq;
  if (!v.mode.empty()) r.shape.mode = v.mode == "decode" ? zoo::Mode::decode : zoo::Mode::prefill;
  if (!v.dtype.empty()) r.shape.dtype = ir::parse_dtype(v.dtype);
  if (!v.weight_dtype.empty()) r.shape.weight_dtype = ir::parse_dtype(v.weight_dtype);
  if (!v.precision.empty())
    r.shape.precision = zoo::parse_precision_file(beside_sweep(spec, v.precision)).take();
  r.shape_given = v.batch > 0 || v.seq > 0 || !v.mode.empty() || !v.dtype.empty() ||
                  !v.weight_dtype.empty() || !v.precision.empty();
  return r;
}

bool is_chip_path(const std::string& path) {
  size_t dot = path.find('.');
  return dot != std::string::npos && interface_from_string(path.substr(0, dot)).has_value();
}

}  // namespace

Result<PointSetup> setup_point(const SweepSpec& spec, const Point& point, PluginSet& plugins) {
  for (size_t a = 0; a < spec.axes.size(); ++a) {
    std::string problem = value_problem(spec.axes[a].path, point.values.at(a));
    if (!problem.empty())
      return input_error(spec.axes[a].path + ": value '" + point.values[a] + "': " + problem);
  }
  try {
    Values v = workload(spec, point);
    PointSetup s;
    s.request = model_request(spec, v);
    s.model = v.model;
    s.batch = s.request.shape.batch;
    s.seq = v.seq;
    s.mode = v.mode;
    s.dtype = v.dtype;
    s.parallel = v.parallel;
    s.residency = v.residency;
    s.dispatch = v.dispatch;
    s.rank = v.rank;
    auto chip = driver::resolve_chip(plugins, {spec.base.target, beside_sweep(spec, v.chip)});
    if (!chip) return chip.error();
    s.chip = std::move(*chip);
    s.chip.choice.chip = v.chip;
    // `cores` divides by topology.chips, which another axis may set: apply it last.
    for (int pass = 0; pass < 2; ++pass)
      for (size_t a = 0; a < spec.axes.size(); ++a) {
        const std::string& path = spec.axes[a].path;
        if (contains(kWorkloadPaths, path) || path == "chip" || (path == "cores") != (pass == 1))
          continue;
        Status status = apply_chip_value(s.chip.spec, path, point.values[a]);
        if (!status) return status.error();
      }
    return s;
  } catch (const Failure& f) {
    return f.error();
  }
}

namespace {

std::vector<std::string> valid_paths(const ChipSpec& chip) {
  std::vector<std::string> paths = kWorkloadPaths;
  paths.insert(paths.end(), kKnobPaths.begin(), kKnobPaths.end());
  for (const std::string& key : kScaleKeys) paths.push_back("scale." + key);
  for (const auto& [section, s] : chip.sections)
    for (const auto& [key, value] : s.params.items)
      paths.push_back(std::string(to_string(section)) + "." + key);
  return paths;
}

// Nearest first. A valid path that the mistyped one begins like counts as near as its prefix:
// 'memory.bandwith' is close to 'memory.bandwidth_bytes_per_s', not to 'model'.
std::string near_paths(const std::string& path, std::vector<std::string> paths) {
  auto distance = [&](const std::string& candidate) {
    size_t whole = sdk::edit_distance(path, candidate);
    size_t prefix = sdk::edit_distance(path, candidate.substr(0, path.size())) + 1;
    return std::min(whole, prefix);
  };
  std::stable_sort(paths.begin(), paths.end(), [&](const std::string& a, const std::string& b) {
    return distance(a) < distance(b);
  });
  paths.erase(std::unique(paths.begin(), paths.end()), paths.end());
  std::string out;
  for (size_t i = 0; i < std::min<size_t>(paths.size(), 6); ++i) out += (i ? ", " : "") + paths[i];
  return out;
}

// The chip the base names, and whether the plugin reads `path` (set to its first value).
Status check_chip_path(const SweepSpec& spec, const Axis& axis, PluginSet& plugins,
                       std::string& plugin_message) {
  SweepSpec one = spec;
  one.axes = {axis};
  auto setup = setup_point(one, Point{0, {axis.values.front()}}, plugins);
  if (!setup) return setup.error();
  auto chip = driver::open_chip(plugins, std::move(setup->chip));
  if (chip) return ok_status();
  const std::string& m = chip.error().message;
  if (m.find("unknown ") != std::string::npos && m.find(" parameter '") != std::string::npos) {
    plugin_message = m;
    return input_error("unknown");
  }
  return ok_status();  // a value the plugin rejects fails its points, each with the reason
}

// A rank orders the strategies `parallel: auto` tries; a sweep where no point searches would
// silently ignore it.
Status check_rank_is_read(const SweepSpec& spec) {
  bool searches = spec.base.parallel == "auto", ranks = !spec.base.rank.empty();
  for (const Axis& axis : spec.axes) {
    if (axis.path == "parallel") searches = searches || contains(axis.values, std::string("auto"));
    if (axis.path == "rank") ranks = true;
  }
  if (!ranks || searches) return ok_status();
  return input_error(spec.file +
                     ": rank: orders the strategies `parallel: auto` tries, and no point of this "
                     "sweep searches (parallel is '" +
                     (spec.base.parallel.empty() ? "flat" : spec.base.parallel) +
                     "'); give parallel: auto (base or axis) or remove rank");
}

}  // namespace

Status check_sweep(const SweepSpec& spec, PluginSet& plugins) {
  if (spec.kind == SweepKind::serve) return check_serve_sweep(spec, plugins);
  if (Status ranked = check_rank_is_read(spec); !ranked) return ranked;
  SweepSpec bare = spec;
  bare.axes.clear();
  auto base = setup_point(bare, Point{0, {}}, plugins);
  if (!base) return base.error();
  for (const Axis& axis : spec.axes) {
    auto where = fmt::format("{}:{}: axes: ", spec.file, axis.line);
    bool scale = axis.path.starts_with("scale.") && contains(kScaleKeys, axis.path.substr(6));
    bool known = contains(kWorkloadPaths, axis.path) || contains(kKnobPaths, axis.path) || scale;
    for (const std::string& value : axis.values) {
      std::string problem = value_problem(axis.path, value);
      if (!problem.empty())
        return input_error(where + axis.path + ": value '" + value + "': " + problem);
    }
    std::string plugin_message;
    if (!known && is_chip_path(axis.path)) {
      Status status = check_chip_path(spec, axis, plugins, plugin_message);
      if (!status && plugin_message.empty()) return status;
      known = plugin_message.empty();
    }
    if (!known) {
      std::string said = plugin_message.empty() ? "" : " (" + plugin_message + ")";
      return input_error(
          where + "unknown path '" + axis.path + "'" + said +
          "; valid paths near it: " + near_paths(axis.path, valid_paths(base->chip.spec)) +
          "; any parameter the chip's plugins read is SECTION.PARAM, SECTION one "
          "of topology, cost_model, memory_model, partitioner, layout_mapper, "
          "codegen");
    }
  }
  return ok_status();
}

}  // namespace tessera::dse
