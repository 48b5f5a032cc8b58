// plan.yaml's `source:` — the model request and chip choice a plan was made from — both ways, and
// reopening a saved plan's model and chip with the checks that it still matches them.
#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <filesystem>
#include <map>

#include "framework/codegen/program_check.hpp"
#include "framework/common/reference.hpp"
#include "framework/common/user_text.hpp"
#include "framework/driver/driver.hpp"

namespace tessera::driver {

namespace {

namespace fs = std::filesystem;
using planner::PlanSource;

// A model or chip file as a plan records it: absolute, so the plan works from any directory.
std::string recorded_path(const std::string& word, std::span<const std::string_view> suffixes) {
  if (!names_a_file(word, suffixes)) return word;
  return fs::absolute(word).lexically_normal().string();
}

// A recorded path as simulate opens it: a relative one (written by hand, or a plan moved with its
// model) is relative to the plan's directory.
std::string beside_plan(const std::string& word, std::span<const std::string_view> suffixes,
                        const std::string& plan_file) {
  if (!names_a_file(word, suffixes) || fs::path(word).is_absolute()) return word;
  return (fs::path(plan_file).parent_path() / word).lexically_normal().string();
}

// "llama2-13b (batch 16, seq 2048)" for a zoo model, the path for a file.
std::string model_words(const PlanSource& s) {
  if (s.batch == 0) return s.model;
  return s.model + " (batch " + std::to_string(s.batch) +
         (s.seq > 0 ? ", seq " + std::to_string(s.seq) : std::string()) +
         (s.mode == "prefill" ? ", prefill)" : ")");
}

Error mismatch(const std::string& file, const std::string& field, const std::string& what) {
  return input_error(file + ": " + field + ": " + what + " — re-run tessera compile");
}

Status check_model(const std::string& file, const planner::Plan& plan, const ir::Graph& graph) {
  const PlanSource& s = plan.source;
  size_t planned = s.graph_ops != graph.ops().size() ? s.graph_ops : plan.result.ops.size();
  if (planned != graph.ops().size())
    return mismatch(file, "source.graph_ops",
                    "the plan has " + std::to_string(planned) + " ops but " + model_words(s) +
                        " has " + std::to_string(graph.ops().size()));
  if (!s.graph_name.empty() && s.graph_name != graph.name())
    return mismatch(file, "source.graph_name",
                    "the plan was made for '" + s.graph_name + "' but " + model_words(s) + " is '" +
                        graph.name() + "'");
  for (size_t i = 0; i < graph.ops().size(); ++i)
    if (plan.result.ops[i].name != graph.ops()[i].name)
      return mismatch(file, "ops[" + std::to_string(i) + "].name",
                      "the plan has '" + plan.result.ops[i].name + "' but op " + std::to_string(i) +
                          " of " + model_words(s) + " is '" + graph.ops()[i].name + "'");
  return ok_status();
}

// The chip's shape: Machine's integer fields (cores, chips, SRAM per core, HBM controllers). A
// plan made for another shape cannot run on this chip; rates may differ (a re-measured memory).
std::vector<std::pair<std::string, uint64_t>> shape(const Machine& m) {
  std::vector<std::pair<std::string, uint64_t>> out;
  machine_fields(m, [&](const char* key, const auto& field, MachineFieldUse) {
    if constexpr (std::is_integral_v<std::decay_t<decltype(field)>>) out.emplace_back(key, field);
  });
  return out;
}

Status check_chip(const std::string& file, const Machine& planned, const Machine& built) {
  if (planned.chip != built.chip)
    return mismatch(file, "machine.chip",
                    "the plan was made for chip '" + planned.chip + "' but the chip is now '" +
                        built.chip + "'");
  auto was = shape(planned), now = shape(built);
  for (size_t i = 0; i < was.size(); ++i)
    if (was[i].second != now[i].second)
      return mismatch(file, "machine." + was[i].first,
                      "the plan has " + std::to_string(was[i].second) + " but chip '" + built.chip +
                          "' has " + std::to_string(now[i].second));
  return ok_status();
}

// What the plan's source names cannot be opened: the error, said to come from that field.
Error in_field(const std::string& file, const std::string& field, Error error) {
  error.message = printable(file) + ": " + field + ": " + error.message;
  return error;
}

// A number of op i beyond what compile could write for it on the plan's machine.
Error out_of_bounds(const std::string& file, size_t i, const std::string& key, double value,
                    double bound, const std::string& why) {
  return input_error(
      fmt::format("{}: ops[{}].{}: {:g} is more than {:g} ({}); no compile writes "
                  "it — re-run tessera compile",
                  printable(file), i, key, value, bound, why));
}

constexpr double kRounding = 1e-9;  // the planner rounds what it derives from the graph

// The numbers compile copies from the graph op (its HBM traffic and FLOPs), which the simulator
// times and prices: another value means the plan was edited or its source (model, shape, dtype)
// names another graph, so timing and energy would describe different ops.
Status check_op_facts(const std::string& file, size_t i, const planner::OpSchedule& op,
                      const codegen::OpBounds& b, const PlanSource& source) {
  struct Fact {
    const char* key;
    double value, graph;
    const char* what;
  };
  const Fact facts[] = {
      {"hbm_read_bytes", op.hbm_read_bytes, b.hbm_read_bytes, "bytes read from HBM"},
      {"hbm_write_bytes", op.hbm_write_bytes, b.hbm_write_bytes, "bytes written to HBM"},
      {"flops", op.flops, b.flops, "FLOPs"}};
  const std::string dtype = source.dtype.empty() ? "" : " at source.dtype " + source.dtype;
  for (const auto& [key, value, graph, what] : facts)
    if (std::abs(value - graph) > kRounding * graph)
      return input_error(fmt::format(
          "{}: ops[{}].{}: {:g}, but op {} of {}{} has {:g} {}; no compile writes it — re-run "
          "tessera compile",
          printable(file), i, key, value, in_quotes(op.name), printable(model_words(source)),
          printable(dtype), graph, what));
  // What an op reads from HBM reaches its cores through its preload: none on the network would
  // simulate weights that were never loaded. (How much is the plan's: a plugin's plan may count
  // a gather's rows without its indices.)
  if (op.hbm_read_bytes > 0 && !(op.preload.hbm_to_core_bytes > 0))
    return input_error(fmt::format(
        "{}: ops[{}].preload.hbm_to_core_bytes: 0, but op {} reads {:g} bytes from HBM, which "
        "reach its cores only through its preload; no compile writes it — re-run tessera compile",
        printable(file), i, in_quotes(op.name), op.hbm_read_bytes));
  return ok_status();
}

// Each op's numbers within its graph op's: bytes within its tensors on every core, HBM traffic
// within its HBM data, FLOPs its Einsum's, space per core within the core's SRAM, cores within
// the machine's, and its tile within the op's extents.
Status check_op_bounds(const std::string& file, size_t i, const planner::OpSchedule& op,
                       const ir::Op& graph_op, const codegen::OpBounds& b, const Machine& m) {
  constexpr double kSlack = 1 + kRounding;
  const std::string moved =
      fmt::format("its tensors' {:g} bytes on each of {} cores", b.tensor_bytes, m.cores);
  const std::string sram = "machine.sram_bytes_per_core";
  const auto sram_bytes = static_cast<double>(m.sram_bytes_per_core);
  struct Limit {
    const char* key;
    double value, bound;
    std::string why;
  };
  const Limit limits[] = {
      {"sram_bytes_per_core", op.sram_bytes_per_core, sram_bytes, sram},
      {"exec.exec_bytes_per_core", op.exec.exec_bytes_per_core, sram_bytes, sram},
      {"exec.hbm_operand_bytes_per_core", op.exec.hbm_operand_bytes_per_core, sram_bytes, sram},
      {"exec.shift_bytes", op.exec.shift_bytes, b.moved_bytes, moved},
      {"preload.preload_bytes_per_core", op.preload.preload_bytes_per_core, sram_bytes, sram},
      {"preload.hbm_to_core_bytes", op.preload.hbm_to_core_bytes, b.moved_bytes, moved},
      {"preload.distribute_bytes", op.preload.distribute_bytes, b.moved_bytes, moved}};
  for (const auto& [key, value, bound, why] : limits)
    if (value > bound * kSlack) return out_of_bounds(file, i, key, value, bound, why);
  if (op.exec.cores_used > m.cores)
    return input_error(
        fmt::format("{}: ops[{}].exec.cores_used: {} cores, but machine.cores is "
                    "{} — re-run tessera compile",
                    printable(file), i, op.exec.cores_used, m.cores));
  const auto& ranks = graph_op.einsum.ranks;
  if (!op.exec.tile.empty() && op.exec.tile.size() != ranks.size())
    return input_error(
        fmt::format("{}: ops[{}].exec.tile: {} extents for an op of {} ranks — "
                    "re-run tessera compile",
                    printable(file), i, op.exec.tile.size(), ranks.size()));
  for (size_t r = 0; r < op.exec.tile.size(); ++r)
    if (op.exec.tile[r] < 1 || op.exec.tile[r] > ranks[r].extent)
      return input_error(
          fmt::format("{}: ops[{}].exec.tile[{}]: {} is outside rank {}'s extent "
                      "1..{} — re-run tessera compile",
                      printable(file), i, r, op.exec.tile[r], ranks[r].name, ranks[r].extent));
  return ok_status();
}

// A resident op (a `home:`) reads and writes nothing off chip, and its home lies within the
// plan's residency: a plan that says an op's data stays in SRAM says how much SRAM it holds.
Status check_resident(const std::string& file, size_t i, const planner::OpSchedule& op,
                      const planner::ResidencyRecord& residency) {
  constexpr double kSlack = 1 + kRounding;
  if (op.exec.home_bytes_per_core <= residency.bytes_per_core * kSlack) return ok_status();
  return input_error(
      fmt::format("{}: ops[{}].home.bytes_per_core: {:g}, but residency.bytes_per_core is {:g} "
                  "(the homes of every resident op together); no compile writes it — re-run "
                  "tessera compile",
                  printable(file), i, op.exec.home_bytes_per_core, residency.bytes_per_core));
}

Status check_bounds(const std::string& file, const planner::Plan& plan, const ir::Graph& graph) {
  for (size_t i = 0; i < graph.ops().size(); ++i) {
    const ir::Op& op = graph.ops()[i];
    codegen::OpBounds bounds = codegen::op_bounds(graph, op, plan.machine);
    if (plan.result.ops[i].resident) {
      if (Status s = check_resident(file, i, plan.result.ops[i], plan.result.residency); !s)
        return s;
      bounds.hbm_read_bytes = bounds.hbm_write_bytes = 0;
    }
    if (Status s = check_op_facts(file, i, plan.result.ops[i], bounds, plan.source); !s) return s;
    Status s = check_op_bounds(file, i, plan.result.ops[i], op, bounds, plan.machine);
    if (!s) return s;
  }
  return ok_status();
}

Result<std::map<std::string, int64_t>> parse_dims(const std::string& file,
                                                  const std::string& text) {
  std::map<std::string, int64_t> dims;
  for (size_t start = 0; start < text.size();) {
    size_t comma = std::min(text.find(',', start), text.size());
    std::string dim = text.substr(start, comma - start);
    size_t eq = dim.find('=');
    int64_t value = 0;
    bool ok = eq != std::string::npos && eq > 0;
    if (ok) {
      const char* last = dim.data() + dim.size();
      auto [end, ec] = std::from_chars(dim.data() + eq + 1, last, value);
      ok = ec == std::errc() && end == last && value >= 1 && value <= zoo::kMaxSeq;
    }
    if (!ok)
      return input_error(printable(file) + ": source.onnx_dims: " + in_quotes(dim) +
                         ": expected NAME=VALUE with VALUE in [1, " + std::to_string(zoo::kMaxSeq) +
                         "], comma separated");
    dims[dim.substr(0, eq)] = value;
    start = comma + 1;
  }
  return dims;
}

}  // namespace

PlanSource plan_source(const LoadedModel& model, const OpenChip& chip, const ir::Graph& planned) {
  const ModelRequest& r = model.request;
  PlanSource s;
  s.tessera_version = TESSERA_VERSION;
  s.model = recorded_path(r.model, kModelFileSuffixes);
  if (model_kind(r.model) == ModelKind::zoo_name || r.shape_given) {
    s.batch = r.shape.batch;
    s.seq = r.shape.seq.value_or(0);
    if (r.shape.mode) s.mode = *r.shape.mode == zoo::Mode::decode ? "decode" : "prefill";
    if (r.shape.dtype) s.dtype = ir::to_string(*r.shape.dtype);
    if (r.shape.weight_dtype) s.weight_dtype = ir::to_string(*r.shape.weight_dtype);
  }
  for (const auto& [name, value] : r.onnx.dims)
    s.onnx_dims += (s.onnx_dims.empty() ? "" : ",") + name + "=" + std::to_string(value);
  s.skip_unsupported = r.onnx.skip_unsupported ? 1 : 0;
  s.graph_name = planned.name();
  s.graph_ops = planned.ops().size();
  s.target = chip.target.name;
  s.chip = recorded_path(chip.choice.chip, kYamlFileSuffixes);
  s.expert_skew = r.shape.expert_skew;
  if (r.shape.precision) s.precision = zoo::precision_yaml(*r.shape.precision);
  if (chip.one_chip_of > 0 || r.shard != zoo::Shard{}) {
    const zoo::Shard& shard = r.shard;
    auto flag = [](std::optional<bool> b) { return b ? int64_t{*b} : int64_t{-1}; };
    s.stage = PlanSource::Stage{chip.one_chip_of,
                                shard.tp,
                                shard.ep,
                                shard.first_layer,
                                shard.last_layer.value_or(-1),
                                flag(shard.embedding),
                                flag(shard.head)};
  }
  return s;
}

Result<ModelRequest> model_request(const PlanSource& s, const std::string& plan_file) {
  ModelRequest r;
  r.model = beside_plan(s.model, kModelFileSuffixes, plan_file);
  r.shape_given = s.batch > 0;
  r.shape.batch = s.batch > 0 ? s.batch : 1;
  if (s.seq > 0) r.shape.seq = s.seq;
  if (!s.mode.empty()) r.shape.mode = s.mode == "prefill" ? zoo::Mode::prefill : zoo::Mode::decode;
  if (!s.dtype.empty()) r.shape.dtype = ir::parse_dtype(s.dtype);
  if (!s.weight_dtype.empty()) {
    r.shape.weight_dtype = ir::parse_dtype(s.weight_dtype);
    if (!r.shape.weight_dtype)
      return input_error(printable(plan_file) + ": source.weight_dtype " +
                         in_quotes(s.weight_dtype) + " is not a dtype; expected one of " +
                         ir::dtype_names());
  }
  auto dims = parse_dims(plan_file, s.onnx_dims);
  if (!dims) return dims.error();
  r.onnx.dims = std::move(*dims);
  r.onnx.skip_unsupported = s.skip_unsupported != 0;
  r.shape.expert_skew = s.expert_skew;
  if (!s.precision.empty()) {
    auto precision =
        zoo::parse_precision_text(s.precision, printable(plan_file) + ": source.precision");
    if (!precision) return precision.error();
    r.shape.precision = std::move(*precision);
  }
  if (s.stage) {
    r.shard = zoo::Shard{.tp = s.stage->tp,
                         .ep = s.stage->ep,
                         .first_layer = s.stage->first_layer,
                         .last_layer = std::nullopt};
    if (s.stage->last_layer >= 0) r.shard.last_layer = s.stage->last_layer;
    if (s.stage->embedding >= 0) r.shard.embedding = s.stage->embedding == 1;
    if (s.stage->head >= 0) r.shard.head = s.stage->head == 1;
  }
  return r;
}

ChipChoice chip_choice(const PlanSource& s, const std::string& plan_file) {
  return ChipChoice{s.target, beside_plan(s.chip, kYamlFileSuffixes, plan_file)};
}

Result<Reopened> reopen(PluginSet& plugins, const planner::Plan& plan,
                        const std::string& plan_file) {
  auto request = model_request(plan.source, plan_file);
  if (!request) return request.error();
  auto model = load(*request);
  // A shard the model cannot take (a tp that does not divide its heads, layers beyond its own)
  // is the shard's fault, not the model's.
  if (!model)
    return in_field(plan_file, plan.source.stage ? "source.model, source.shard" : "source.model",
                    model.error());
  std::shared_ptr<const ir::Graph> graph = model->graph;
  if (!plan.splits.empty()) {
    auto split = planner::apply_splits(*graph, plan.splits);
    if (!split) return input_error(plan_file + ": splits: " + split.error().message);
    graph = std::make_shared<const ir::Graph>(std::move(*split));
  }
  if (Status s = check_model(plan_file, plan, *graph); !s) return s.error();
  auto chip = open_chip(plugins, chip_choice(plan.source, plan_file));
  if (!chip) return in_field(plan_file, "source.target, source.chip", chip.error());
  if (plan.source.stage && plan.source.stage->one_chip_of > 0) {
    const int64_t chips = chip->models.machine.chips;
    if (chips != plan.source.stage->one_chip_of)
      return mismatch(
          plan_file, "source.one_chip_of",
          fmt::format("the plan is one chip of {} but chip '{}' has {}",
                      plan.source.stage->one_chip_of, chip->models.machine.chip, chips));
    auto one = open_one_chip(plugins, *chip);
    if (!one) return in_field(plan_file, "source.one_chip_of", one.error());
    chip = std::move(one);
  }
  if (Status s = check_chip(plan_file, plan.machine, chip->models.machine); !s) return s.error();
  if (Status s = check_bounds(plan_file, plan, *graph); !s) return s.error();
  return Reopened{std::move(*model), std::move(graph), std::move(*chip)};
}

}  // namespace tessera::driver
