#include "framework/dse/sweep_spec.hpp"

#include <fmt/format.h>

#include <cmath>
#include <functional>
#include <map>
#include <set>
#include <stdexcept>
#include <tessera/sdk/nearest.hpp>

#include "framework/chip_spec/conventions.hpp"
#include "framework/common/files.hpp"
#include "framework/common/user_text.hpp"
#include "framework/common/yaml_reader.hpp"
#include "framework/dse/serve_spec.hpp"
#include "framework/parallel/parallel.hpp"
#include "framework/parallel/strategy.hpp"
#include "framework/planner/planner.hpp"

namespace tessera::dse {

namespace {

constexpr size_t kMaxAxisValues = 10000;

// An error at an axis's line of the sweep file.
using Where = std::function<Failure(const Axis& axis, const std::string& what)>;

}  // namespace

double as_number(const YamlNode& node) {
  std::string text = node.as_string();
  try {
    size_t used = 0;
    double value = std::stod(text, &used);
    if (used == text.size() && std::isfinite(value)) return value;
  } catch (const std::logic_error&) {
  }
  throw node.fail("expected a number, got " + in_quotes(text));
}

namespace {

bool as_bool(const YamlNode& node) {
  std::string text = node.as_string();
  if (text == "true") return true;
  if (text == "false") return false;
  throw node.fail("expected true or false, got " + in_quotes(text));
}

std::vector<std::string> range_values(const YamlNode& range) {
  range.only_keys({"from", "to", "step", "count", "scale"});
  double from = as_number(range.child("from"));
  double to = as_number(range.child("to"));
  std::string scale = range.get_string("scale", "linear");
  if (scale != "linear" && scale != "log")
    throw range.child("scale").fail("expected linear or log, got " + in_quotes(scale));
  if (range.has("step") == range.has("count"))
    throw range.fail("give exactly one of step (linear) or count");
  size_t count = 0;
  double step = 0;
  if (range.has("step")) {
    if (scale == "log") throw range.child("step").fail("a log range takes count, not step");
    step = as_number(range.child("step"));
    if (!(step > 0) || to < from)
      throw range.fail("needs from <= to and step > 0 (got from " + fmt::format("{}", from) +
                       ", to " + fmt::format("{}", to) + ", step " + fmt::format("{}", step) + ")");
    // A tolerance of a millionth of a step keeps `to` when decimal steps do not add up exactly.
    double steps = std::floor((to - from) / step * (1 + 1e-9) + 1e-6);
    if (!(steps < kMaxAxisValues))
      throw range.fail(fmt::format("gives more than {} values; at most {} per axis", kMaxAxisValues,
                                   kMaxAxisValues));
    count = static_cast<size_t>(steps) + 1;
  } else {
    count = static_cast<size_t>(range.child("count").as_int(1, kMaxAxisValues));
    if (scale == "log" && !(from > 0 && to > 0))
      throw range.fail("a log range needs from > 0 and to > 0");
  }
  std::vector<std::string> values;
  for (size_t i = 0; i < count; ++i) {
    double t = count == 1 ? 0.0 : static_cast<double>(i) / static_cast<double>(count - 1);
    double v = step > 0         ? from + static_cast<double>(i) * step
               : scale == "log" ? from * std::pow(to / from, t)
                                : from + (to - from) * t;
    values.push_back(fmt::format("{}", v));
  }
  return values;
}

Axis parse_axis(const YamlNode& node) {
  if (!node.is_map()) throw node.fail("expected a map with path and values or range");
  node.only_keys({"path", "values", "range", "zip"});
  Axis axis;
  axis.line = node.line();
  axis.path = node.child("path").as_string();
  axis.zip = node.get_string("zip", "");
  if (node.has("values") == node.has("range"))
    throw node.fail("give exactly one of values (a list) or range (from, to, step|count)");
  if (node.has("values")) {
    YamlNode values = node.child("values");
    if (!values.is_sequence()) throw values.fail("expected a list of values");
    axis.values = values.as_string_list();
  } else {
    axis.values = range_values(node.child("range"));
  }
  if (axis.values.empty()) throw node.fail("the axis has no values");
  if (axis.values.size() > kMaxAxisValues)
    throw node.fail(fmt::format("has {} values; at most {}", axis.values.size(), kMaxAxisValues));
  return axis;
}

std::vector<planner::Design> parse_designs(const YamlNode& list) {
  std::vector<planner::Design> designs;
  std::vector<YamlNode> items = list.raw().IsScalar() ? std::vector<YamlNode>{list} : list.items();
  for (const YamlNode& item : items) {
    auto design = planner::parse_design(item.as_string());
    if (!design)
      throw item.fail("unknown design " + in_quotes(item.as_string()) +
                      "; valid: " + planner::design_names());
    designs.push_back(*design);
  }
  if (designs.empty()) throw list.fail("lists no design");
  return designs;
}

SweepBase parse_base(const YamlNode& node) {
  if (!node.is_map()) throw node.fail("expected a map: model, target, chip, batch, ...");
  node.only_keys({"model", "target", "chip", "batch", "seq", "mode", "dtype", "weight_dtype",
                  "precision", "dims", "designs", "simulate", "groups", "max_displacement",
                  "parallel", "residency", "dispatch", "rank"});
  SweepBase b;
  b.model = node.child("model").as_string();
  b.target = node.child("target").as_string();
  b.chip = node.get_string("chip", "");
  if (node.has("batch")) b.batch = node.child("batch").as_int(1, 1 << 20);
  if (node.has("seq")) b.seq = node.child("seq").as_int(1, 1 << 24);
  b.mode = node.get_string("mode", "");
  if (!b.mode.empty() && b.mode != "decode" && b.mode != "prefill")
    throw node.child("mode").fail("expected decode or prefill, got " + in_quotes(b.mode));
  b.dtype = node.get_string("dtype", "");
  b.weight_dtype = node.get_string("weight_dtype", "");
  if (!b.weight_dtype.empty() && b.weight_dtype != "fp16" && b.weight_dtype != "bf16" &&
      b.weight_dtype != "fp8" && b.weight_dtype != "bfp8")
    throw node.child("weight_dtype")
        .fail("expected fp16, bf16, fp8 or bfp8, got " + in_quotes(b.weight_dtype));
  b.precision = node.get_string("precision", "");
  if (node.has("dims")) b.dims = node.child("dims").as_string_list();
  if (node.has("designs")) b.designs = parse_designs(node.child("designs"));
  if (node.has("simulate")) b.simulate = as_bool(node.child("simulate"));
  if (node.has("groups"))  // sweeps written before the simulator ran at one node per core
    throw node.child("groups").fail(
        "core groups are gone: the simulator always runs one node per core now; remove the key");
  if (node.has("parallel")) {
    b.parallel = node.child("parallel").as_string();
    if (std::string problem = strategy_problem(b.parallel); !problem.empty())
      throw node.child("parallel").fail(problem);
  }
  b.residency = node.get_string("residency", "");
  if (!b.residency.empty() && !parse_residency(b.residency))
    throw node.child("residency")
        .fail(std::string("expected ") + kResidencyNames + ", got " + in_quotes(b.residency));
  b.dispatch = node.get_string("dispatch", "");
  if (!b.dispatch.empty() && !parse_dispatch(b.dispatch))
    throw node.child("dispatch")
        .fail(std::string("expected ") + kDispatchNames + ", got " + in_quotes(b.dispatch));
  b.rank = node.get_string("rank", "");
  if (!b.rank.empty() && !parallel::parse_rank(b.rank))
    throw node.child("rank").fail(std::string("expected ") + parallel::kRankNames + ", got " +
                                  in_quotes(b.rank));
  if (node.has("max_displacement"))
    b.max_displacement = static_cast<int>(node.child("max_displacement").as_int(0, 8));
  return b;
}

// Axes sharing a zip label advance together; a label on one axis alone pairs it with nothing, and
// is most likely a misspelt label, which would silently multiply the points. The last such axis
// is named (a typo is usually the later spelling), with the nearest label of another axis.
void check_zip_labels(const std::vector<Axis>& axes, const Where& where) {
  std::map<std::string, int> uses;
  for (const Axis& axis : axes)
    if (!axis.zip.empty()) ++uses[axis.zip];
  for (size_t a = axes.size(); a-- > 0;) {
    const Axis& axis = axes[a];
    if (axis.zip.empty() || uses[axis.zip] > 1) continue;
    std::vector<std::string> others;
    for (const auto& [label, n] : uses)
      if (label != axis.zip) others.push_back(label);
    std::string message = "zip label " + in_quotes(axis.zip) + " of " + in_quotes(axis.path) +
                          " is on no other axis, so it zips nothing";
    std::string near = sdk::nearest(axis.zip, others);
    message += near.empty() ? "; give the axes that advance together the same label"
                            : "; did you mean " + in_quotes(near) + "?";
    throw where(axis, message);
  }
}

// Points are the product of the zip groups' lengths: refused beyond kMaxPoints before anything
// enumerates them.
void check_point_count(const std::vector<Axis>& axes, const Where& where) {
  std::map<std::string, size_t> zipped;
  size_t points = 1;
  std::string factors;
  for (const Axis& axis : axes) {
    if (!axis.zip.empty() && !zipped.emplace(axis.zip, axis.values.size()).second) continue;
    size_t n = axis.values.size();
    points = points > kMaxPoints / n ? kMaxPoints + 1 : points * n;
    factors += (factors.empty() ? "" : " x ") + std::to_string(n);
    if (points > kMaxPoints)
      throw where(axis, fmt::format("the axes up to this one give more than {} points ({}); "
                                    "sweep fewer values, or zip axes that advance together",
                                    kMaxPoints, factors));
  }
}

void check_axes(const YamlNode& axes_node, const std::vector<Axis>& axes) {
  Where where = [&](const Axis& axis, const std::string& what) {
    return Failure(
        input_error(fmt::format("{}:{}: axes: {}", printable(axes_node.file()), axis.line, what)));
  };
  std::set<std::string> paths;
  std::map<std::string, const Axis*> first_of_zip;
  for (const Axis& axis : axes) {
    if (!paths.insert(axis.path).second)
      throw where(axis, "the path " + in_quotes(axis.path) + " is swept twice");
    if (axis.zip.empty()) continue;
    auto [it, fresh] = first_of_zip.emplace(axis.zip, &axis);
    if (!fresh && it->second->values.size() != axis.values.size())
      throw where(axis,
                  fmt::format("'{}' has {} values but '{}' (zip {}) has {}; zipped axes advance "
                              "together and need as many values",
                              axis.path, axis.values.size(), it->second->path, axis.zip,
                              it->second->values.size()));
  }
  check_zip_labels(axes, where);
  check_point_count(axes, where);
}

SweepSpec parse(const YamlNode& root, const std::string& text) {
  if (!root.is_map()) throw root.fail("a sweep file must be a YAML map: name, base, axes, plots");
  root.only_keys({"name", "description", "kind", "base", "axes", "plots", "goal"});
  SweepSpec spec;
  spec.file = root.file();
  spec.text = text;
  spec.name = root.child("name").as_string();
  spec.description = root.get_string("description", "");
  const std::string kind = root.get_string("kind", "compile");
  if (kind != "compile" && kind != "serve")
    throw root.child("kind").fail("expected compile (the default) or serve, got " +
                                  in_quotes(kind));
  spec.kind = kind == "serve" ? SweepKind::serve : SweepKind::compile;
  if (spec.kind == SweepKind::serve)
    spec.serve_base = parse_serve_base(root.child("base"));
  else
    spec.base = parse_base(root.child("base"));
  if (root.has("axes")) {
    YamlNode axes = root.child("axes");
    if (!axes.is_sequence()) throw axes.fail("expected a list of axes");
    for (const YamlNode& item : axes.items()) spec.axes.push_back(parse_axis(item));
    check_axes(axes, spec.axes);
    if (spec.kind == SweepKind::serve) check_serve_axes(axes, spec.axes);
  }
  if (spec.kind == SweepKind::serve) check_trace_alone(root, spec);
  if (root.has("goal")) {
    if (spec.kind != SweepKind::serve)
      throw root.child("goal").fail(
          "a goal judges served loads against SLOs; only a serve sweep (kind: serve) takes one");
    spec.goal = parse_goal(root.child("goal"), spec);
  }
  if (root.has("plots") && spec.kind == SweepKind::serve)
    throw root.child("plots").fail(
        "a serve sweep draws no plots; results.csv holds every point's latencies (serve's "
        "plot_load.py draws a load sweep of one configuration)");
  if (root.has("plots")) {
    YamlNode plots = root.child("plots");
    spec.plots = plots.as_string_list();
    for (const std::string& plot : spec.plots) {
      bool known = false;
      for (const std::string& k : known_plots()) known |= k == plot;
      if (known) continue;
      std::string valid;
      for (const std::string& k : known_plots()) valid += (valid.empty() ? "" : ", ") + k;
      throw plots.fail("unknown plot " + in_quotes(plot) + "; known: " + valid);
    }
  }
  return spec;
}

}  // namespace

std::string strategy_problem(const std::string& text) {
  auto strategy = parallel::parse_strategy(text);
  if (strategy) return "";
  // The message is written for the option; in a sweep the file, line and key name the place.
  std::string message = strategy.error().message;
  const std::string option = "--parallel: ";
  return message.starts_with(option) ? message.substr(option.size()) : message;
}

const std::vector<std::string>& goal_latency_keys() {
  static const std::vector<std::string> keys = {"ttft_p50_ms", "ttft_p90_ms", "ttft_p99_ms",
                                                "tpot_p50_ms", "tpot_p90_ms", "tpot_p99_ms",
                                                "e2e_p50_ms",  "e2e_p90_ms",  "e2e_p99_ms"};
  return keys;
}

const std::vector<std::string>& known_plots() {
  static const std::vector<std::string> plots = {
      "breakdown",       "latency_vs_hbm",   "utilisation_vs_hbm",
      "noc_hbm_heatmap", "latency_vs_cores", "flops_vs_bandwidth",
      "energy",          "tokens_per_joule", "strategies"};
  return plots;
}

Result<SweepSpec> parse_sweep_text(const std::string& text, const std::string& file) {
  auto root = YamlNode::load_string(text, file);
  if (!root) return root.error();
  try {
    return parse(*root, text);
  } catch (const Failure& f) {
    return f.error();
  }
}

Result<SweepSpec> read_sweep(const std::string& file) {
  auto text = read_file(file);
  if (!text) return text.error();
  return parse_sweep_text(*text, file);
}

}  // namespace tessera::dse
