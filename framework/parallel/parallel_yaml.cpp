// parallel.yaml written and read, and a parallel compile reopened from it (parallel_yaml.hpp).
#include "framework/parallel/parallel_yaml.hpp"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <map>

#include "framework/common/files.hpp"
#include "framework/common/user_text.hpp"
#include "framework/common/yaml_reader.hpp"
#include "framework/parallel/compose.hpp"
#include "framework/planner/plan_yaml.hpp"
#include "framework/planner/planner.hpp"

namespace tessera::parallel {
namespace {

namespace fs = std::filesystem;

// Bumped whenever a key is added, removed or changes meaning: another format is refused with a
// request to re-compile, never read with a default filled in.
constexpr const char* kFormat = "tessera-parallel-plan-2";
constexpr const char* kNone = "none";
// Far beyond any step a compile writes; a number past them is a corrupted or hand-made file.
constexpr double kMaxSeconds = 1e6;
constexpr double kMaxBytes = 9007199254740992.0;  // 2^53: exact in a double
constexpr int64_t kMaxLayers = 1 << 20;

std::string number(double value) {
  return fmt::format("{}", value);  // the shortest text that reads back to the same double
}

// The keys plan.yaml's `source:` records of the model request and chip choice.
template <class S, class V>
void source_fields(S& s, V&& v) {
  v("tessera_version", s.tessera_version);
  v("model", s.model);
  v("batch", s.batch);
  v("seq", s.seq);
  v("mode", s.mode);
  v("dtype", s.dtype);
  v("weight_dtype", s.weight_dtype);
  v("onnx_dims", s.onnx_dims);
  v("skip_unsupported", s.skip_unsupported);
  v("target", s.target);
  v("chip", s.chip);
}

struct Emit {
  YAML::Emitter& out;
  void operator()(const char* key, const std::string& value) {
    out << YAML::Key << key << YAML::Value << value;
  }
  template <class T>
  void operator()(const char* key, const T& value) {
    out << YAML::Key << key << YAML::Value;
    if constexpr (std::is_floating_point_v<T>) {
      out << number(value);
    } else if constexpr (std::is_integral_v<T>) {
      out << fmt::format("{}", value);
    } else if constexpr (std::is_same_v<T, std::optional<double>>) {
      out << (value ? number(*value) : std::string(kNone));
    } else {  // a list of numbers
      out << YAML::Flow << YAML::BeginSeq;
      for (auto x : value) out << number(static_cast<double>(x));
      out << YAML::EndSeq;
    }
  }
};

template <class S, class V>
void stage_fields(S& s, V&& v) {
  v("first_layer", s.first_layer);
  v("last_layer", s.last_layer);
  v("chips", s.chips);
  v("plan", s.plan);
}

template <class C, class V>
void collective_fields(C& c, V&& v) {
  v("stage", c.stage);
  v("where", c.where);
  v("kind", c.kind);
  v("algorithm", c.algorithm);
  v("bytes", c.bytes);
  v("chips", c.chips);
  v("per_micro_batch", c.per_micro_batch);
  v("seconds", c.seconds);
}

template <class D, class V>
void step_fields(D& d, V&& v) {
  v("design", d.design);
  v("step_s", d.step_s);
  v("stage_s", d.stage_s);
  v("collective_s", d.collective_s);
  v("bubble", d.bubble);
  v("tokens", d.tokens);
  v("energy_j", d.energy_j);
}

// ---- reading ----

double read_number(const YamlNode& node, double max, const char* unit) {
  std::string text = node.as_string();
  double value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || !std::isfinite(value))
    throw node.fail("expected a number (e.g. 1.5e-3), got " + in_quotes(text));
  if (value < 0) throw node.fail("must be >= 0, got " + printable(text));
  if (value > max)
    throw node.fail(fmt::format("must be at most {:g} {}, got {}", max, unit, printable(text)));
  return value;
}

double bound_of(std::string_view key) {
  if (key == "bytes") return kMaxBytes;
  if (key == "tokens") return kMaxBytes;
  if (key == "bubble") return 1;
  if (key == "energy_j") return kMaxSeconds * 1e6;  // a megawatt for the longest step
  return kMaxSeconds;
}

struct Read {
  const YamlNode& map;
  template <class T>
  void operator()(const char* key, T& field) {
    YamlNode node = map.child(key);
    if constexpr (std::is_same_v<T, std::string>) {
      field = node.as_string();
    } else if constexpr (std::is_floating_point_v<T>) {
      field = read_number(node, bound_of(key), std::string_view(key).ends_with("_s") ? "s" : "");
    } else if constexpr (std::is_integral_v<T>) {
      field = static_cast<T>(node.as_int(0, kMaxLayers));
    } else if constexpr (std::is_same_v<T, std::optional<double>>) {
      field.reset();
      if (node.as_string() != kNone) field = read_number(node, bound_of(key), "");
    } else if constexpr (std::is_same_v<T, std::vector<double>>) {
      field.clear();
      for (const auto& item : node.items()) field.push_back(read_number(item, kMaxSeconds, "s"));
    } else {  // chips
      field.clear();
      for (const auto& item : node.items())
        field.push_back(static_cast<uint32_t>(item.as_int(0, kMaxDegree - 1)));
    }
  }
};

struct Keys {
  std::vector<std::string>& keys;
  template <class T>
  void operator()(const char* key, const T&) {
    keys.emplace_back(key);
  }
};

template <class T, class Fields>
void read_map(const YamlNode& node, T& value, Fields fields) {
  std::vector<std::string> keys;
  fields(value, Keys{keys});
  node.only_keys(keys);
  fields(value, Read{node});
}

Resolved read_strategy(const YamlNode& node, std::string& design) {
  node.only_keys({"format", "strategy", "chips", "tp", "pp", "dp", "ep", "micro_batches",
                  "micro_batch_users", "batch", "stage_layers", "collective", "design"});
  std::string format = node.child("format").as_string();
  if (format != kFormat)
    throw node.child("format").fail("expected '" + std::string(kFormat) +
                                    "' (written by this version of tessera), got " +
                                    in_quotes(format) + "; re-run `tessera compile --parallel`");
  Resolved r;
  r.chips = node.child("chips").as_int(1, kMaxDegree);
  r.tp = node.child("tp").as_int(1, kMaxDegree);
  r.pp = node.child("pp").as_int(1, kMaxDegree);
  r.dp = node.child("dp").as_int(1, kMaxDegree);
  r.ep = node.child("ep").as_int(1, kMaxDegree);
  r.micro_batches = node.child("micro_batches").as_int(1, kMaxDegree);
  r.micro_batch = node.child("micro_batch_users").as_int(1, kMaxLayers);
  r.batch = node.child("batch").as_int(1, kMaxLayers);
  YamlNode layers = node.child("stage_layers");
  for (const YamlNode& item : layers.items()) r.stage_layers.push_back(item.as_int(0, kMaxLayers));
  if (r.stage_layers.size() != static_cast<size_t>(r.pp))
    throw layers.fail(fmt::format("{} stages' layers for pp {}", r.stage_layers.size(), r.pp));
  YamlNode algorithm = node.child("collective");
  auto parsed = collective::parse_collective_algorithm(algorithm.as_string());
  if (!parsed) throw algorithm.fail(parsed.error().message);
  r.algorithm = *parsed;
  YamlNode written = node.child("design");
  design = written.as_string();
  if (!planner::parse_design(design))
    throw written.fail("unknown design " + in_quotes(design) +
                       "; valid: " + planner::design_names());
  return r;
}

ParallelPlan parse_root(const YamlNode& root) {
  root.only_keys({"parallel", "source", "stages", "collectives", "designs"});
  ParallelPlan plan;
  plan.strategy = read_strategy(root.child("parallel"), plan.design);
  read_map(root.child("source"), plan.source, [](auto& s, auto&& v) { source_fields(s, v); });
  for (const YamlNode& item : root.child("stages").items()) {
    StageRecord stage;
    read_map(item, stage, [](auto& s, auto&& v) { stage_fields(s, v); });
    if (stage.plan.empty()) throw item.child("plan").fail("names no plan file");
    plan.stages.push_back(std::move(stage));
  }
  for (const YamlNode& item : root.child("collectives").items()) {
    CollectiveRecord use;
    read_map(item, use, [](auto& c, auto&& v) { collective_fields(c, v); });
    plan.collectives.push_back(std::move(use));
  }
  for (const YamlNode& item : root.child("designs").items()) {
    StepRecord step;
    read_map(item, step, [](auto& d, auto&& v) { step_fields(d, v); });
    plan.designs.push_back(std::move(step));
  }
  return plan;
}

// ---- reopening ----

Error mismatch(const std::string& file, const std::string& field, const std::string& what) {
  return input_error(printable(file) + ": " + field + ": " + what +
                     " — re-run tessera compile --parallel");
}

std::string layers_text(int64_t first, int64_t last) {
  return fmt::format("layers {}-{}", first, last);
}

// The stage plan's shard and machine against the stage parallel.yaml says it runs.
Status check_stage_plan(const std::string& plan_file, const planner::Plan& plan,
                        const ParallelPlan& parallel, const StageRun& stage, int64_t chips) {
  if (!plan.source.stage)
    return mismatch(plan_file, "source.shard",
                    "the plan is of a whole model, not a stage of a parallel strategy");
  const planner::PlanSource::Stage& s = *plan.source.stage;
  const Resolved& r = parallel.strategy;
  if (s.one_chip_of != chips)
    return mismatch(plan_file, "source.one_chip_of",
                    fmt::format("the plan is one chip of {} but the strategy's machine has {}",
                                s.one_chip_of, chips));
  // A whole model's plan has no layer range (-1); its stage is the empty range at 0.
  const int64_t plan_last = s.last_layer < 0 ? s.first_layer : s.last_layer;
  if (s.tp != r.tp || s.ep != r.ep || s.first_layer != stage.first_layer ||
      plan_last != stage.last_layer)
    return mismatch(
        plan_file, "source.shard",
        fmt::format("the plan is {} at tp {}, ep {}, but its stage is {} at tp {}, ep {}",
                    layers_text(s.first_layer, s.last_layer), s.tp, s.ep,
                    layers_text(stage.first_layer, stage.last_layer), r.tp, r.ep));
  if (plan.source.batch != r.micro_batch && plan.source.batch > 0)  // 0: a model as given
    return mismatch(
        plan_file, "source.batch",
        fmt::format("the plan serves {} user(s) but a micro-batch of the strategy has {}",
                    plan.source.batch, r.micro_batch));
  if (plan.source.model != parallel.source.model)
    return mismatch(plan_file, "source.model",
                    "the plan is of " + in_quotes(plan.source.model) + " but the strategy runs " +
                        in_quotes(parallel.source.model));
  if (planner::to_string(plan.result.design) != parallel.design)
    return mismatch(plan_file, "design",
                    fmt::format("the plan holds {} but parallel.yaml's stage plans hold {}",
                                planner::to_string(plan.result.design), parallel.design));
  return ok_status();
}

// Two figures the same but for what a YAML round trip may do to the last digits.
bool same_figure(double was, double now) {
  return std::abs(was - now) <= 1e-9 * std::abs(now);
}

// The collectives derived again against the ones the file records.
Status check_collectives(const std::string& file, const ParallelPlan& plan,
                         const std::vector<CollectiveUse>& uses) {
  if (uses.size() != plan.collectives.size())
    return mismatch(file, "collectives",
                    fmt::format("the file has {} but the strategy's stages need {}",
                                plan.collectives.size(), uses.size()));
  for (size_t i = 0; i < uses.size(); ++i) {
    const CollectiveRecord& was = plan.collectives[i];
    const CollectiveUse& now = uses[i];
    auto field = [&](const char* key) { return fmt::format("collectives[{}].{}", i, key); };
    if (was.stage != now.stage)
      return mismatch(file, field("stage"),
                      fmt::format("{}, but it is stage {}'s", was.stage, now.stage));
    if (was.where != now.where || was.kind != collective::to_string(now.op.kind))
      return mismatch(
          file, field("where"),
          fmt::format("{} ({}), but the stage's is {} ({})", in_quotes(was.where),
                      in_quotes(was.kind), now.where, collective::to_string(now.op.kind)));
    if (!same_figure(was.bytes, now.op.bytes))
      return mismatch(file, field("bytes"),
                      fmt::format("{:g}, but the stage moves {:g}", was.bytes, now.op.bytes));
    if (was.chips != now.op.group)
      return mismatch(file, field("chips"),
                      fmt::format("[{}], but the stage's chips are [{}]",
                                  fmt::join(was.chips, ", "), fmt::join(now.op.group, ", ")));
    if (was.per_micro_batch != now.per_micro_batch)
      return mismatch(file, field("per_micro_batch"),
                      fmt::format("{}, but the stage passes it {} time(s)", was.per_micro_batch,
                                  now.per_micro_batch));
    if (was.algorithm != collective::to_string(now.planned.algorithm))
      return mismatch(file, field("algorithm"),
                      fmt::format("{}, but stage {}'s '{}' runs {} now", was.algorithm, now.stage,
                                  now.where, collective::to_string(now.planned.algorithm)));
    if (!same_figure(was.seconds, now.planned.seconds))
      return mismatch(file, field("seconds"),
                      fmt::format("{:g}, but stage {}'s '{}' is priced at {:g} now", was.seconds,
                                  now.stage, now.where, now.planned.seconds));
  }
  return ok_status();
}

// The collectives a stage plan holds as ops against the ones stage s needs now: each of its
// places as many times as the stage passes it, each with the kind, algorithm, bytes and planned
// seconds the strategy gives it, and (`owner`: the first stage that runs the plan, whose groups
// it records) the same chips. What the plan's timeline added after its ops is what is checked.
Status check_stage_collectives(const std::string& plan_file, const planner::Plan& plan,
                               const std::vector<CollectiveUse>& uses, size_t s, bool owner) {
  std::map<std::string, int64_t> held;
  const auto& ops = plan.result.ops;
  for (size_t i = 0; i < ops.size(); ++i)
    for (size_t j = 0; j < ops[i].collectives.size(); ++j) {
      const planner::CollectiveOp& c = ops[i].collectives[j];
      const collective::Collective& was = c.collective;
      auto field = [&](const char* key) {
        return fmt::format("ops[{}].collectives[{}].{}", i, j, key);
      };
      auto use = std::ranges::find_if(uses, [&](const CollectiveUse& u) {
        return u.stage == s && u.where == c.where &&
               u.op.kind != collective::CollectiveKind::send_recv;
      });
      if (use == uses.end())
        return mismatch(
            plan_file, field("where"),
            fmt::format("{}, but stage {} has no such collective", in_quotes(c.where), s));
      ++held[c.where];
      const std::string what = fmt::format("stage {}'s '{}'", s, c.where);
      if (was.kind != use->op.kind)
        return mismatch(plan_file, field("kind"),
                        fmt::format("{}, but {} is {}", collective::to_string(was.kind), what,
                                    collective::to_string(use->op.kind)));
      if (was.algorithm != use->planned.algorithm)
        return mismatch(plan_file, field("algorithm"),
                        fmt::format("{}, but {} runs {}", collective::to_string(was.algorithm),
                                    what, collective::to_string(use->planned.algorithm)));
      if (!same_figure(was.bytes, use->op.bytes))
        return mismatch(plan_file, field("bytes"),
                        fmt::format("{:g}, but {} moves {:g}", was.bytes, what, use->op.bytes));
      if (owner && was.group != use->op.group)
        return mismatch(plan_file, field("group"),
                        fmt::format("[{}], but {} runs on chips [{}]", fmt::join(was.group, ", "),
                                    what, fmt::join(use->op.group, ", ")));
      if (!same_figure(c.planned_s, use->planned.seconds))
        return mismatch(plan_file, field("planned_s"),
                        fmt::format("{:g}, but {} is priced at {:g} now", c.planned_s, what,
                                    use->planned.seconds));
    }
  for (const CollectiveUse& u : uses)
    if (u.stage == s && u.op.kind != collective::CollectiveKind::send_recv &&
        held[u.where] != u.per_micro_batch)
      return mismatch(plan_file, "ops[].collectives",
                      fmt::format("the plan holds '{}' {} time(s), but stage {} passes it {}",
                                  u.where, held[u.where], s, u.per_micro_batch));
  return ok_status();
}

Error in_field(const std::string& file, const std::string& field, Error error) {
  error.message = printable(file) + ": " + field + ": " + error.message;
  return error;
}

// The strategy as the file records it, resolved again: the same degrees and layers or a mismatch.
Result<Resolved> resolve_again(const std::string& file, const ParallelPlan& plan,
                               const ParallelModel& model, const Machine& machine) {
  const Resolved& was = plan.strategy;
  ParallelStrategy strategy;
  strategy.flat = false;
  strategy.tp = was.tp;
  strategy.pp = was.pp;
  strategy.dp = was.dp;
  strategy.ep = was.ep;
  strategy.micro_batches = was.micro_batches;
  strategy.stage_layers = was.stage_layers;
  strategy.algorithm = was.algorithm;
  auto now = resolve(strategy, model, machine);
  if (!now) return in_field(file, "parallel", now.error());
  if (now->chips != was.chips)
    return mismatch(file, "parallel.chips",
                    fmt::format("{}, but chip '{}' has {}", was.chips, machine.chip, now->chips));
  if (now->batch != was.batch || now->micro_batch != was.micro_batch)
    return mismatch(file, "parallel.micro_batch_users",
                    fmt::format("{} of {}, but the model request gives {} of {}", was.micro_batch,
                                was.batch, now->micro_batch, now->batch));
  return now;
}

}  // namespace

std::string stage_plan_file(const ParallelCompilation& c, size_t stage,
                            std::optional<planner::Design> each) {
  size_t first = stage;
  for (size_t s = 0; s < stage; ++s)
    if (c.stages[s].compilation == c.stages[stage].compilation) {
      first = s;
      break;
    }
  return each ? fmt::format("stage-{}-{}.yaml", first, planner::to_string(*each))
              : fmt::format("stage-{}.yaml", first);
}

ParallelPlan parallel_plan(const ParallelCompilation& c, const planner::PlanSource& source,
                           planner::Design written) {
  ParallelPlan plan;
  plan.strategy = c.strategy;
  plan.design = planner::to_string(written);
  plan.source = source;
  plan.source.graph_name.clear();
  plan.source.graph_ops = 0;
  plan.source.stage.reset();
  for (size_t s = 0; s < c.stages.size(); ++s)
    plan.stages.push_back(StageRecord{c.stages[s].first_layer, c.stages[s].last_layer,
                                      c.stages[s].chips, stage_plan_file(c, s)});
  for (const CollectiveUse& u : c.collectives)
    plan.collectives.push_back(CollectiveRecord{u.stage, u.where, collective::to_string(u.op.kind),
                                                collective::to_string(u.planned.algorithm),
                                                u.op.bytes, u.op.group, u.per_micro_batch,
                                                u.planned.seconds});
  for (const DesignStep& d : c.designs)
    plan.designs.push_back(StepRecord{planner::to_string(d.design), d.planned_s,
                                      d.collective_planned_s, d.bubble, d.tokens, d.stage_planned_s,
                                      d.energy_j});
  return plan;
}

std::string write_parallel_yaml(const ParallelPlan& plan) {
  const Resolved& r = plan.strategy;
  YAML::Emitter out;
  out << YAML::Comment(
             "Tessera parallel compile: a strategy's stages, collectives and step "
             "(docs/formats.md).")
      << YAML::Newline
      << YAML::Comment(
             "Each stage's plan is one chip's (stages[].plan); times in seconds, sizes in bytes.");
  out << YAML::BeginMap;
  out << YAML::Key << "parallel" << YAML::Value << YAML::BeginMap;
  Emit e{out};
  e("format", std::string(kFormat));
  e("strategy", to_string(r));
  e("chips", r.chips);
  e("tp", r.tp);
  e("pp", r.pp);
  e("dp", r.dp);
  e("ep", r.ep);
  e("micro_batches", r.micro_batches);
  e("micro_batch_users", r.micro_batch);
  e("batch", r.batch);
  e("stage_layers", r.stage_layers);
  e("collective", std::string(collective::to_string(r.algorithm)));
  e("design", plan.design);
  out << YAML::EndMap;
  out << YAML::Key << "source" << YAML::Value << YAML::BeginMap;
  source_fields(plan.source, e);
  out << YAML::EndMap;
  auto list = [&](const char* key, const auto& items, auto fields) {
    out << YAML::Key << key << YAML::Value << YAML::BeginSeq;
    for (const auto& item : items) {
      out << YAML::Flow << YAML::BeginMap;
      fields(item, e);
      out << YAML::EndMap;
    }
    out << YAML::EndSeq;
  };
  list("stages", plan.stages, [](auto& s, auto&& v) { stage_fields(s, v); });
  list("collectives", plan.collectives, [](auto& c, auto&& v) { collective_fields(c, v); });
  list("designs", plan.designs, [](auto& d, auto&& v) { step_fields(d, v); });
  out << YAML::EndMap;
  return std::string(out.c_str()) + "\n";
}

bool is_parallel_yaml(const std::string& text) {
  for (size_t at = 0; at < text.size();) {
    if (text.compare(at, 9, "parallel:") == 0) return true;
    size_t next = text.find('\n', at);
    if (next == std::string::npos) break;
    at = next + 1;
  }
  return false;
}

Result<ParallelPlan> parse_parallel_yaml(const std::string& text, const std::string& file) {
  auto root = YamlNode::load_string(text, file);
  if (!root) return root.error();
  try {
    return parse_root(*root);
  } catch (const Failure& f) {
    return f.error();
  }
}

Result<ParallelPlan> read_parallel_yaml(const std::string& path) {
  auto text = read_file(path, kMaxTextBytes);
  if (!text) return text.error();
  return parse_parallel_yaml(*text, path);
}

Result<ReopenedParallel> reopen_parallel(PluginSet& plugins, const ParallelPlan& plan,
                                         const std::string& file, bool simulate,
                                         const sim::SimOptions& options) {
  auto request = driver::model_request(plan.source, file);
  if (!request) return request.error();
  auto model = parallel_model(*request);
  if (!model) return in_field(file, "source.model", model.error());
  auto machine = driver::open_chip(plugins, driver::chip_choice(plan.source, file));
  if (!machine) return in_field(file, "source.target, source.chip", machine.error());
  auto resolved = resolve_again(file, plan, *model, machine->models.machine);
  if (!resolved) return resolved.error();
  const size_t stages = resolved->stage_layers.size();
  if (plan.stages.size() != stages)
    return mismatch(
        file, "stages",
        fmt::format("{} stage(s), but the strategy has {}", plan.stages.size(), stages));
  auto graph = collective::chip_graph(machine->models.topology);
  if (!graph) return graph.error();
  const Placement place = placement(*graph, *resolved);

  ParallelCompilation out;
  out.strategy = *resolved;
  // The collectives first: each stage plan's collective ops wait what the mover gives now.
  sim::CollectivePricer pricer(*graph);
  auto uses = stage_collectives(pricer, *model, out, [&](int64_t r, size_t s) {
    return place.group(r, static_cast<int64_t>(s));
  });
  if (!uses) return uses.error();
  if (Status st = check_collectives(file, plan, *uses); !st) return st.error();
  out.collectives = std::move(*uses);
  if (simulate)
    if (Status st = simulate_uses(*graph, out); !st) return st.error();
  std::map<std::string, size_t> opened;  // plan file -> its compilation
  int64_t first = 0;
  for (size_t s = 0; s < stages; ++s) {
    const StageRecord& record = plan.stages[s];
    StageRun stage{first, first + resolved->stage_layers[s],
                   place.group(0, static_cast<int64_t>(s)), 0,
                   place.stage_chips(resolved->dp, static_cast<int64_t>(s))};
    first = stage.last_layer;
    const std::string field = fmt::format("stages[{}]", s);
    if (record.first_layer != stage.first_layer || record.last_layer != stage.last_layer)
      return mismatch(file, field + ".first_layer",
                      fmt::format("{}, but the strategy's stage {} is {}",
                                  layers_text(record.first_layer, record.last_layer), s,
                                  layers_text(stage.first_layer, stage.last_layer)));
    if (record.chips != stage.chips)
      return mismatch(file, field + ".chips",
                      fmt::format("[{}], but the strategy places stage {} on [{}]",
                                  fmt::join(record.chips, ", "), s, fmt::join(stage.chips, ", ")));
    const std::string plan_file = (fs::path(file).parent_path() / record.plan).string();
    if (auto it = opened.find(plan_file); it != opened.end()) {
      stage.compilation = it->second;
      const planner::Plan& shared = out.compilations[it->second].designs.front().plan;
      if (Status st = check_stage_plan(plan_file, shared, plan, stage, resolved->chips); !st)
        return st.error();
      if (Status st = check_stage_collectives(plan_file, shared, out.collectives, s, false); !st)
        return st.error();
      out.stages.push_back(std::move(stage));
      continue;
    }
    auto stage_plan = planner::read_plan_yaml(plan_file);
    if (!stage_plan) return in_field(file, field + ".plan", stage_plan.error());
    if (Status st = check_stage_plan(plan_file, *stage_plan, plan, stage, resolved->chips); !st)
      return st.error();
    if (Status st = check_stage_collectives(plan_file, *stage_plan, out.collectives, s, true); !st)
      return st.error();
    auto reopened = driver::reopen(plugins, *stage_plan, plan_file);
    if (!reopened) return reopened.error();
    if (simulate) set_simulated_collectives(stage_plan->result, out.collectives, s);
    driver::CompiledDesign compiled{*stage_plan, std::nullopt};
    if (simulate) {
      auto run = driver::simulate(*stage_plan, reopened->chip, *reopened->graph, options);
      // What the plan holds that its ops cannot have is the plan file's fault (as plan.yaml's).
      if (!run && run.error().kind == ErrorKind::input)
        return input_error(printable(plan_file) + ": " + run.error().message);
      if (!run) return run.error();
      compiled.simulated = std::move(*run);
    }
    driver::Compilation compilation;
    compilation.graph = reopened->graph;
    compilation.designs.push_back(std::move(compiled));
    stage.compilation = opened[plan_file] = out.compilations.size();
    out.compilations.push_back(std::move(compilation));
    out.stages.push_back(std::move(stage));
  }
  out.designs = compose_steps(out, *model, machine->models.energy);
  auto first_token = first_token_of(machine->spec, *model);
  if (!first_token) return in_field(file, "source.model", first_token.error());
  out.first_token = *first_token;
  return ReopenedParallel{std::move(*model), std::move(*machine), std::move(out)};
}

}  // namespace tessera::parallel
