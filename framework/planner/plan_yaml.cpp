// plan.yaml writer and reader. Each struct's keys are listed once (the *_fields functions) and
// walked by both directions, so the two cannot drift apart.
#include "framework/planner/plan_yaml.hpp"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <optional>
#include <string_view>
#include <type_traits>

#include "framework/common/files.hpp"
#include "framework/common/user_text.hpp"
#include "framework/common/yaml_reader.hpp"
#include "framework/planner/planner.hpp"

namespace tessera::planner {

namespace {

// Bumped whenever a key is added, removed or changes meaning: a plan of another format is refused
// with a request to re-compile, never read with a default filled in. 3: no search time (a plan's
// bytes depend on its inputs only), model and chip files by absolute path. 4: the source's
// weight_dtype (--weight-dtype) and each execution plan's cross_chip_bytes. 5: each execution
// plan's factors, rotated_operand, rotation_steps and combine_bytes (where its tiles sit and what
// moves between them, for the simulator's traffic). 6: each execution plan's placement and each
// preload plan's network_s (priced on the chip's routes; `none` when the Machine's rates priced
// it). 7: each execution plan's core_digits (where a plugin's plan put its tiles). 8: energy. 9:
// each op's core_mapping (how one core runs its tile, when the mapper timed it). 11: the source's
// precision (--precision), the precision file's text; the `dispatch:` block; the vendor design
// and each op's `streamed`. 13: each op's `collectives` (a parallel strategy's stage). 14: the
// vendor design's `stream_bytes_per_s` (its stack's read rate in a prefill step).
constexpr const char* kFormat = "tessera-plan-14";

// What compile writes stays far inside these; a number beyond them is a corrupted or hand-made plan
// that would have the simulator report hours per token, or overflow.
constexpr double kMaxPlanSeconds = 1e6;
// The shortest duration compile writes for a step of work is ~6e-11 s; a non-zero one far below it
// (a denormal such as 1e-320) is no duration a chip has, and the simulator's clock could not
// advance past it. Totals and timelines are differences and sums, whose rounding residue may be
// tinier (a congestion of 6.7e-17 s): the floor is for the durations the simulator runs.
constexpr double kMinPlanSeconds = 1e-15;

bool simulated_duration(std::string_view key) {
  for (std::string_view d :
       {"compute_s", "shift_s", "sync_s", "distribute_s", "network_s", "command_s", "launch_s"})
    if (key == d) return true;
  return false;
}
constexpr const char* kNone = "none";                 // an optional number that is absent
constexpr double kMaxPlanBytes = 9007199254740992.0;  // 2^53 (8 PiB): exact in a double

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
  v("graph_name", s.graph_name);
  v("graph_ops", s.graph_ops);
  v("target", s.target);
  v("chip", s.chip);
}

// A parallel strategy's stage (PlanSource::Stage): `one_chip_of` beside the other source keys, the
// shard as one map. Only a stage's plan has them, so every other plan keeps its bytes.
template <class S, class V>
void shard_fields(S& s, V&& v) {
  v("tp", s.tp);
  v("ep", s.ep);
  v("first_layer", s.first_layer);
  v("last_layer", s.last_layer);
  v("embedding", s.embedding);
  v("head", s.head);
}

// Above any machine a chip file describes (parallel/strategy.hpp's kMaxDegree); layers below the
// zoo's deepest model many times over.
constexpr int64_t kMaxShardDegree = 4096;
constexpr int64_t kMaxShardLayers = 1 << 20;

// The Machine's keys are chip/machine.hpp's one list.
template <class M, class V>
void machine_keys(M& m, V&& v) {
  machine_fields(m, [&](const char* key, auto& field, MachineFieldUse) { v(key, field); });
}

template <class S, class V>
void split_fields(S& s, V&& v) {
  v("op", s.op);
  v("rank", s.rank);
  v("slices", s.slices);
}

template <class E, class V>
void exec_fields(E& e, V&& v) {
  v("label", e.label);
  v("tile", e.tile);
  v("cores_used", e.cores_used);
  v("exec_bytes_per_core", e.exec_bytes_per_core);
  v("hbm_operand_bytes_per_core", e.hbm_operand_bytes_per_core);
  v("compute_s", e.compute_s);
  v("shift_s", e.shift_s);
  v("sync_s", e.sync_s);
  v("shift_bytes", e.shift_bytes);
  v("cross_chip_bytes", e.cross_chip_bytes);
  v("factors", e.factors);
  v("rotated_operand", e.rotated_operand);
  v("rotation_steps", e.rotation_steps);
  v("combine_bytes", e.combine_bytes);
  v("placement", e.placement);
  v("core_digits", e.core_digits);
}

template <class P, class V>
void preload_fields(P& p, V&& v) {
  v("label", p.label);
  v("preload_bytes_per_core", p.preload_bytes_per_core);
  v("hbm_to_core_bytes", p.hbm_to_core_bytes);
  v("distribute_bytes", p.distribute_bytes);
  v("distribute_s", p.distribute_s);
  v("network_s", p.network_s);
}

// A resident op's home (op_plans.hpp's ExecPlan::home_*), written only for resident ops.
template <class E, class V>
void home_fields(E& e, V&& v) {
  v("bytes_per_core", e.home_bytes_per_core);
  v("distribute_bytes", e.home_distribute_bytes);
  v("distribute_s", e.home_distribute_s);
}

template <class R, class V>
void residency_fields(R& r, V&& v) {
  v("mode", r.mode);
  v("bytes_per_core", r.bytes_per_core);
  v("choices_tried", r.choices_tried);
}

// The `dispatch:` block (written when the mode is not none, so other plans keep their bytes): the
// costs the timeline charged per op, and their total in the step (breakdown.dispatch_s).
template <class D, class V>
void dispatch_fields(D& d, V&& v) {
  v("command_s", d.command_s);
  v("launch_s", d.launch_s);
}

template <class U, class V>
void resident_unit_fields(U& u, V&& v) {
  v("label", u.label);
  v("kind", u.kind);
  v("bytes", u.bytes);
  v("saves_s", u.saves_s);
  v("resident", u.resident);
  v("why", u.why);
}

// A collective as plan.yaml writes it, under the op it follows (collective_op.hpp); the kind and
// algorithm by name.
struct CollectiveRecord {
  std::string after, where, kind, algorithm;
  double bytes = 0, planned_s = 0, simulated_s = 0;
  std::vector<uint32_t> group;
};

template <class C, class V>
void collective_fields(C& c, V&& v) {
  v("after", c.after);
  v("where", c.where);
  v("kind", c.kind);
  v("algorithm", c.algorithm);
  v("bytes", c.bytes);
  v("group", c.group);
  v("planned_s", c.planned_s);
  v("simulated_s", c.simulated_s);
}

template <class C, class V>
void core_mapping_fields(C& c, V&& v) {
  v("arch", c.arch);
  v("einsum", c.einsum);
  v("looptree", c.looptree);
  v("tile_s", c.tile_s);
  v("tile_j", c.tile_j);
  v("utilization", c.utilization);
}

template <class B, class V>
void breakdown_fields(B& b, V&& v) {
  v("execution_only_s", b.execution_only_s);
  v("overlapped_s", b.overlapped_s);
  v("preload_stall_s", b.preload_stall_s);
  v("congestion_s", b.congestion_s);
}

// The op's scalars; `exec` and `preload` are nested maps handled by the callers.
template <class O, class V>
void op_fields(O& o, V&& v) {
  v("op", o.op);
  v("name", o.name);
  v("class", o.op_class);
  v("hbm_read_bytes", o.hbm_read_bytes);
  v("hbm_write_bytes", o.hbm_write_bytes);
  v("flops", o.flops);
  v("preload_position", o.preload_position);
  v("preloads_during", o.preloads_during);
  v("sram_bytes_per_core", o.sram_bytes_per_core);
  v("preload_start_s", o.preload_start_s);
  v("preload_end_s", o.preload_end_s);
  v("execute_start_s", o.execute_start_s);
  v("distribute_end_s", o.distribute_end_s);
  v("execute_end_s", o.execute_end_s);
}

template <class E, class V>
void energy_fields(E& e, V&& v) {
  v("compute_j", e.compute_j);
  v("sram_j", e.sram_j);
  v("network_j", e.network_j);
  v("chip_to_chip_j", e.chip_to_chip_j);
  v("off_chip_j", e.off_chip_j);
  v("static_j", e.static_j);
}

template <class R, class V>
void totals_fields(R& r, V&& v) {
  v("latency_s", r.latency_s);
  v("hbm_utilisation", r.hbm_utilisation);
  v("interconnect_utilisation", r.interconnect_utilisation);
  v("achieved_flops_per_s", r.achieved_flops_per_s);
  v("orders_tried", r.orders_tried);
}

// ---- writing ----

struct Emit {
  YAML::Emitter& out;
  template <class T>
  void operator()(const char* key, const T& value) {
    out << YAML::Key << key << YAML::Value;
    if constexpr (std::is_same_v<T, std::string>) {
      // A multi-line text (a LoopTree) as a literal block, so the file shows it as printed.
      if (value.find('\n') != std::string::npos) out << YAML::Literal;
      out << value;
    } else if constexpr (std::is_floating_point_v<T>) {
      out << fmt::format("{}", value);  // shortest text that reads back to the same double
    } else if constexpr (std::is_integral_v<T>) {
      out << fmt::format("{}", value);
    } else if constexpr (std::is_same_v<T, std::optional<double>>) {
      out << (value ? fmt::format("{}", *value) : std::string(kNone));
    } else if constexpr (std::is_same_v<T, std::vector<CoreDigit>>) {
      out << YAML::Flow << YAML::BeginSeq;
      for (const CoreDigit& d : value)
        out << YAML::Flow << YAML::BeginSeq << fmt::format("{}", d.rank)
            << fmt::format("{}", d.count) << fmt::format("{}", d.core_stride) << YAML::EndSeq;
      out << YAML::EndSeq;
    } else {  // a list of integers
      out << YAML::Flow << YAML::BeginSeq;
      for (auto x : value) out << fmt::format("{}", x);
      out << YAML::EndSeq;
    }
  }
};

template <class T, class Fields>
void emit_map(YAML::Emitter& out, const char* key, const T& value, Fields fields, bool flow) {
  out << YAML::Key << key << YAML::Value;
  if (flow) out << YAML::Flow;
  out << YAML::BeginMap;
  fields(value, Emit{out});
  out << YAML::EndMap;
}

void emit_source(YAML::Emitter& out, const PlanSource& source) {
  out << YAML::Key << "source" << YAML::Value << YAML::BeginMap;
  source_fields(source, Emit{out});
  if (source.expert_skew > 0) Emit{out}("expert_skew", source.expert_skew);
  if (!source.precision.empty())
    out << YAML::Key << "precision" << YAML::Value << YAML::Literal << source.precision;
  if (source.stage) {
    Emit{out}("one_chip_of", source.stage->one_chip_of);
    emit_map(
        out, "shard", *source.stage, [](auto& x, auto&& v) { shard_fields(x, v); }, true);
  }
  out << YAML::EndMap;
}

void emit_op(YAML::Emitter& out, const OpSchedule& op) {
  out << YAML::BeginMap;
  op_fields(op, Emit{out});
  emit_map(
      out, "exec", op.exec, [](auto& e, auto&& v) { exec_fields(e, v); }, true);
  emit_map(
      out, "preload", op.preload, [](auto& p, auto&& v) { preload_fields(p, v); }, true);
  if (op.resident)
    emit_map(
        out, "home", op.exec, [](auto& e, auto&& v) { home_fields(e, v); }, true);
  if (op.streamed) Emit{out}("streamed", op.streamed);  // only the vendor design's streamed ops
  if (!op.collectives.empty()) {  // only a parallel strategy's stages have them
    out << YAML::Key << "collectives" << YAML::Value << YAML::BeginSeq;
    for (const CollectiveOp& c : op.collectives) {
      CollectiveRecord r{c.after,
                         c.where,
                         collective::to_string(c.collective.kind),
                         collective::to_string(c.collective.algorithm),
                         c.collective.bytes,
                         c.planned_s,
                         c.simulated_s,
                         c.collective.group};
      out << YAML::Flow << YAML::BeginMap;
      collective_fields(r, Emit{out});
      out << YAML::EndMap;
    }
    out << YAML::EndSeq;
  }
  if (op.core_mapping)
    emit_map(
        out, "core_mapping", *op.core_mapping, [](auto& c, auto&& v) { core_mapping_fields(c, v); },
        false);
  out << YAML::EndMap;
}

void emit_dispatch(YAML::Emitter& out, const DesignResult& r) {
  out << YAML::Key << "dispatch" << YAML::Value << YAML::BeginMap;
  Emit{out}("mode", std::string(to_string(r.dispatch.mode)));
  dispatch_fields(r.dispatch, Emit{out});
  Emit{out}("total_s", r.breakdown.dispatch_s);
  out << YAML::EndMap;
}

void emit_residency(YAML::Emitter& out, const ResidencyRecord& r) {
  out << YAML::Key << "residency" << YAML::Value << YAML::BeginMap;
  residency_fields(r, Emit{out});
  out << YAML::Key << "units" << YAML::Value << YAML::BeginSeq;
  for (const ResidentUnit& u : r.units) {
    out << YAML::Flow << YAML::BeginMap;
    resident_unit_fields(u, Emit{out});
    out << YAML::EndMap;
  }
  out << YAML::EndSeq << YAML::EndMap;
}

// ---- reading ----

// The bound of a number by what its key measures: seconds, bytes, or (rates, FLOPs, shares) only
// finiteness.
std::optional<std::pair<double, const char*>> upper_bound(std::string_view key) {
  if (key.ends_with("per_s") || key == "clock_hz") return std::nullopt;
  if (key.ends_with("_s")) return std::pair{kMaxPlanSeconds, "s"};
  if (key.find("bytes") != std::string_view::npos) return std::pair{kMaxPlanBytes, "bytes"};
  return std::nullopt;
}

double parse_number(const YamlNode& node, std::string_view key) {
  std::string text = node.as_string();
  double value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || !std::isfinite(value))
    throw node.fail("expected a number (e.g. 1.5e-3), got " + in_quotes(text));
  if (value < 0) throw node.fail("must be >= 0, got " + printable(text));
  auto bound = upper_bound(key);
  if (simulated_duration(key) && value > 0 && value < kMinPlanSeconds)
    throw node.fail(
        fmt::format("must be 0 or at least {:g} s, got {}", kMinPlanSeconds, printable(text)));
  if (bound && value > bound->first)
    throw node.fail(
        fmt::format("must be at most {:g} {}, got {}; no plan tessera compile writes "
                    "comes near it",
                    bound->first, bound->second, printable(text)));
  return value;
}

// Signed fields allow -1 ("none"); every integer must fit its field.
template <class T>
T read_integer(const YamlNode& node) {
  constexpr auto max = static_cast<int64_t>(
      std::min<uint64_t>(std::numeric_limits<T>::max(), std::numeric_limits<int64_t>::max()));
  return static_cast<T>(node.as_int(std::is_signed_v<T> ? -1 : 0, max));
}

struct Keys {
  std::vector<std::string>& keys;
  template <class T>
  void operator()(const char* key, const T&) {
    keys.emplace_back(key);
  }
};

struct Read {
  const YamlNode& map;
  template <class T>
  void operator()(const char* key, T& field) {
    YamlNode node = map.child(key);
    if constexpr (std::is_same_v<T, std::string>) {
      field = node.as_string();
    } else if constexpr (std::is_same_v<T, bool>) {
      std::string text = node.as_string();
      if (text != "true" && text != "false")
        throw node.fail("expected true or false, got " + in_quotes(text));
      field = text == "true";
    } else if constexpr (std::is_floating_point_v<T>) {
      field = parse_number(node, key);
    } else if constexpr (std::is_integral_v<T>) {
      field = read_integer<T>(node);
    } else if constexpr (std::is_same_v<T, std::optional<double>>) {
      field.reset();
      if (node.as_string() != kNone) field = parse_number(node, key);
    } else if constexpr (std::is_same_v<T, std::vector<CoreDigit>>) {
      field.clear();
      for (const auto& item : node.items()) {
        auto parts = item.items();
        if (parts.size() != 3) throw item.fail("expected [rank, count, core_stride]");
        field.push_back({read_integer<int>(parts[0]), read_integer<int64_t>(parts[1]),
                         read_integer<int64_t>(parts[2])});
      }
    } else {
      field.clear();
      for (const auto& item : node.items())
        field.push_back(read_integer<typename T::value_type>(item));
    }
  }
};

// Checks the keys (fields plus `extra`) and reads the fields.
template <class T, class Fields>
void read_map(const YamlNode& node, T& value, Fields fields,
              const std::vector<std::string>& extra = {}) {
  std::vector<std::string> keys = extra;
  fields(value, Keys{keys});
  node.only_keys(keys);
  fields(value, Read{node});
}

// Counts a plan of `ops` ops can hold: every op runs on at least one core (reopening checks the
// chip's count), and op classes and overlapping preloads index the ops.
void check_op_counts(const YamlNode& node, const OpSchedule& op, size_t ops) {
  if (op.exec.cores_used < 1)
    throw node.child("exec").child("cores_used").fail("0 cores; an op runs on at least one core");
  if (op.op_class < 0 || static_cast<size_t>(op.op_class) >= ops)
    throw node.child("class").fail(
        fmt::format("class {} is not an op class of a plan with {} ops", op.op_class, ops));
  if (static_cast<size_t>(op.preloads_during) >= ops)
    throw node.child("preloads_during")
        .fail(fmt::format("{} preloads cannot overlap one op of a plan with {} ops",
                          op.preloads_during, ops));
}

CollectiveOp read_collective(const YamlNode& node, int index) {
  CollectiveRecord r;
  read_map(node, r, [](auto& c, auto&& v) { collective_fields(c, v); });
  auto kind = collective::parse_collective_kind(r.kind);
  if (!kind) throw node.child("kind").fail(kind.error().message);
  auto algorithm = collective::parse_collective_algorithm(r.algorithm);
  if (!algorithm) throw node.child("algorithm").fail(algorithm.error().message);
  if (!(r.bytes > 0)) throw node.child("bytes").fail("expected bytes > 0");
  return CollectiveOp{r.after,     index,
                      r.where,     collective::Collective{*kind, *algorithm, r.bytes, r.group},
                      r.planned_s, r.simulated_s};
}

OpSchedule read_op(const YamlNode& node, int index, size_t ops) {
  OpSchedule op;
  read_map(node, op, [](auto& o, auto&& v) { op_fields(o, v); },
           {"exec", "preload", "home", "core_mapping", "streamed", "collectives"});
  if (op.op != index)
    throw node.child("op").fail(
        fmt::format("expected op {} (ops are listed in execution order), "
                    "got {}",
                    index, op.op));
  read_map(node.child("exec"), op.exec, [](auto& e, auto&& v) { exec_fields(e, v); });
  read_map(node.child("preload"), op.preload, [](auto& p, auto&& v) { preload_fields(p, v); });
  if (node.has("home")) {  // written for ops whose off-chip data stays in SRAM
    op.resident = true;
    read_map(node.child("home"), op.exec, [](auto& e, auto&& v) { home_fields(e, v); });
  }
  if (node.has("streamed")) Read{node}("streamed", op.streamed);
  if (op.streamed && op.preload_position < 0)
    throw node.child("streamed").fail("an op that preloads nothing streams nothing; remove it");
  if (node.has("core_mapping")) {  // written when the mapper timed the op's tile
    CoreMappingRecord core;
    read_map(node.child("core_mapping"), core,
             [](auto& c, auto&& v) { core_mapping_fields(c, v); });
    op.core_mapping = std::move(core);
  }
  if (node.has("collectives"))
    for (const YamlNode& item : node.child("collectives").items())
      op.collectives.push_back(read_collective(item, index));
  for (const CollectiveOp& c : op.collectives) op.collective_s += c.planned_s;
  check_op_counts(node, op, ops);
  return op;
}

// The source's keys, and a stage's `one_chip_of` and `shard` (both or neither), each bounded.
void read_source(const YamlNode& node, PlanSource& source) {
  read_map(node, source, [](auto& s, auto&& v) { source_fields(s, v); },
           {"expert_skew", "precision", "one_chip_of", "shard"});
  if (node.has("expert_skew"))
    source.expert_skew = parse_number(node.child("expert_skew"), "expert_skew");
  if (node.has("precision")) source.precision = node.child("precision").as_string();
  if (!node.has("one_chip_of") && !node.has("shard")) return;
  PlanSource::Stage stage;
  stage.one_chip_of = node.child("one_chip_of").as_int(0, kMaxShardDegree);
  YamlNode shard = node.child("shard");
  if (!shard.is_map())
    throw shard.fail("expected a map {tp, ep, first_layer, last_layer, embedding, head}");
  std::vector<std::string> keys;
  shard_fields(stage, Keys{keys});
  shard.only_keys(keys);
  stage.tp = shard.child("tp").as_int(1, kMaxShardDegree);
  stage.ep = shard.child("ep").as_int(1, kMaxShardDegree);
  stage.first_layer = shard.child("first_layer").as_int(0, kMaxShardLayers);
  YamlNode last = shard.child("last_layer");
  stage.last_layer = last.as_int(-1, kMaxShardLayers);
  if (stage.last_layer >= 0 && stage.last_layer < stage.first_layer)
    throw last.fail(fmt::format(
        "the stage's layers are [first_layer, last_layer): {} must be at least first_layer {} "
        "(or -1: through the model's last layer)",
        stage.last_layer, stage.first_layer));
  stage.embedding = shard.child("embedding").as_int(-1, 1);
  stage.head = shard.child("head").as_int(-1, 1);
  source.stage = stage;
}

// The dispatch block: a mode other than none; its numbers as every time's (parse_number).
void read_dispatch(const YamlNode& node, DesignResult& r) {
  node.only_keys({"mode", "command_s", "launch_s", "total_s"});
  YamlNode mode = node.child("mode");
  auto parsed = parse_dispatch(mode.as_string());
  if (!parsed || *parsed == DispatchMode::none)
    throw mode.fail(
        "expected traced, host or host-async (a plan without dispatch has no dispatch block), "
        "got " +
        in_quotes(mode.as_string()));
  r.dispatch.mode = *parsed;
  Read{node}("command_s", r.dispatch.command_s);
  Read{node}("launch_s", r.dispatch.launch_s);
  Read{node}("total_s", r.breakdown.dispatch_s);
}

// The residency block: its mode one of the modes, each unit's kind one of the kinds.
void read_residency(const YamlNode& node, ResidencyRecord& r) {
  read_map(node, r, [](auto& x, auto&& v) { residency_fields(x, v); }, {"units"});
  if (!parse_residency(r.mode))
    throw node.child("mode").fail("unknown residency " + in_quotes(r.mode) + "; expected " +
                                  kResidencyNames);
  for (const YamlNode& item : node.child("units").items()) {
    ResidentUnit u;
    read_map(item, u, [](auto& x, auto&& v) { resident_unit_fields(x, v); });
    if (u.kind != "weights" && u.kind != "kv_cache")
      throw item.child("kind").fail("expected weights or kv_cache, got " + in_quotes(u.kind));
    r.units.push_back(std::move(u));
  }
}

void check_order(const YamlNode& root, const DesignResult& r) {
  YamlNode order = root.child("preload_order");
  for (size_t m = 0; m < r.preload_order.size(); ++m) {
    int op = r.preload_order[m];
    if (op < 0 || op >= static_cast<int>(r.ops.size()) ||
        r.ops[op].preload_position != static_cast<int>(m))
      throw order.items()[m].fail(fmt::format(
          "preload {} names op {}, whose preload_position is not {}; the list must give, in "
          "order, the ops whose preload_position is 0, 1, 2, ...",
          m, op, m));
  }
  for (const auto& op : r.ops)
    if (op.preload_position >= static_cast<int>(r.preload_order.size()))
      throw order.fail(fmt::format("op {} has preload_position {} but the list has {} entries",
                                   op.op, op.preload_position, r.preload_order.size()));
}

// `stream_bytes_per_s`: only the vendor design's streamed stack reads at a rate of its own.
void read_stream_rate(const YamlNode& root, DesignResult& r) {
  YamlNode node = root.child("stream_bytes_per_s");
  if (r.design != Design::vendor)
    throw node.fail("only the vendor design's plan has a stream rate; remove it");
  Read{root}("stream_bytes_per_s", r.stream_bytes_per_s);
  if (!(r.stream_bytes_per_s > 0))
    throw node.fail("expected a rate in bytes per second > 0 (a plan without one has no key)");
}

Plan parse_root(const YamlNode& root) {
  root.only_keys({"format", "design", "source", "machine", "splits", "totals", "breakdown",
                  "energy", "residency", "dispatch", "stream_bytes_per_s", "preload_order", "ops"});
  std::string format = root.child("format").as_string();
  if (format != kFormat)
    throw root.child("format").fail(
        "expected '" + std::string(kFormat) + "' (written by this version of tessera), got " +
        in_quotes(format) + "; re-run `tessera compile` to write a " + "current plan");
  Plan plan;
  YamlNode design = root.child("design");
  auto parsed = parse_design(design.as_string());
  if (!parsed)
    throw design.fail("unknown design " + in_quotes(design.as_string()) +
                      "; valid: " + design_names());
  plan.result.design = *parsed;
  read_source(root.child("source"), plan.source);
  read_map(root.child("machine"), plan.machine, [](auto& m, auto&& v) { machine_keys(m, v); });
  for (const YamlNode& item : root.child("splits").items()) {
    OpSplit split;
    read_map(item, split, [](auto& s, auto&& v) { split_fields(s, v); }, {"through"});
    if (split.slices < 2) throw item.child("slices").fail("a split has at least 2 slices");
    if (item.has("through")) split.through = item.child("through").as_string();  // a chain
    plan.splits.push_back(std::move(split));
  }
  if (plan.machine.cores < 1) throw root.child("machine").child("cores").fail("must be at least 1");
  read_map(root.child("totals"), plan.result, [](auto& r, auto&& v) { totals_fields(r, v); },
           {"collective_exposed_s"});
  if (root.child("totals").has("collective_exposed_s"))  // written for a stage's collectives
    Read{root.child("totals")}("collective_exposed_s", plan.result.collective_exposed_s);
  read_map(root.child("breakdown"), plan.result.breakdown,
           [](auto& b, auto&& v) { breakdown_fields(b, v); });
  if (root.has("energy")) {  // written when the chip states energy rates
    EnergyBreakdown energy;
    read_map(root.child("energy"), energy, [](auto& e, auto&& v) { energy_fields(e, v); });
    plan.result.energy = energy;
  }
  if (root.has("residency")) read_residency(root.child("residency"), plan.result.residency);
  if (root.has("dispatch")) read_dispatch(root.child("dispatch"), plan.result);
  if (root.has("stream_bytes_per_s")) read_stream_rate(root, plan.result);
  Read{root}("preload_order", plan.result.preload_order);
  std::vector<YamlNode> ops = root.child("ops").items();
  for (size_t i = 0; i < ops.size(); ++i)
    plan.result.ops.push_back(read_op(ops[i], static_cast<int>(i), ops.size()));
  check_order(root, plan.result);
  return plan;
}

}  // namespace

std::string write_plan_yaml(const Plan& plan) {
  const DesignResult& r = plan.result;
  YAML::Emitter out;
  out << YAML::Comment("Tessera plan: one design's schedule (docs/planner.md).") << YAML::Newline
      << YAML::Comment(
             "Times in seconds from the start of one step; sizes in bytes, per core "
             "where the key says so.");
  out << YAML::BeginMap;
  out << YAML::Key << "format" << YAML::Value << kFormat;
  out << YAML::Key << "design" << YAML::Value << to_string(r.design);
  emit_source(out, plan.source);
  emit_map(
      out, "machine", plan.machine, [](auto& m, auto&& v) { machine_keys(m, v); }, false);
  out << YAML::Key << "splits" << YAML::Value << YAML::BeginSeq;
  for (const OpSplit& split : plan.splits) {
    out << YAML::Flow << YAML::BeginMap;
    split_fields(split, Emit{out});
    if (!split.through.empty()) Emit{out}("through", split.through);
    out << YAML::EndMap;
  }
  out << YAML::EndSeq;
  emit_map(
      out, "totals", r,
      [](auto& x, auto&& v) {
        totals_fields(x, v);
        if (x.collective_exposed_s != 0) v("collective_exposed_s", x.collective_exposed_s);
      },
      false);
  emit_map(
      out, "breakdown", r.breakdown, [](auto& b, auto&& v) { breakdown_fields(b, v); }, false);
  if (r.energy)
    emit_map(
        out, "energy", *r.energy, [](auto& e, auto&& v) { energy_fields(e, v); }, false);
  if (r.residency.mode != "off") emit_residency(out, r.residency);
  if (r.dispatch.mode != DispatchMode::none) emit_dispatch(out, r);
  if (r.stream_bytes_per_s > 0) Emit{out}("stream_bytes_per_s", r.stream_bytes_per_s);
  Emit{out}("preload_order", r.preload_order);
  out << YAML::Key << "ops" << YAML::Value << YAML::BeginSeq;
  for (const auto& op : r.ops) emit_op(out, op);
  out << YAML::EndSeq << YAML::EndMap;
  return std::string(out.c_str()) + "\n";
}

Result<Plan> parse_plan_yaml(const std::string& text, const std::string& file) {
  auto root = YamlNode::load_string(text, file);
  if (!root) return root.error();
  try {
    return parse_root(*root);
  } catch (const Failure& f) {
    return f.error();
  }
}

Result<Plan> read_plan_yaml(const std::string& path) {
  auto text = read_file(path, kMaxTextBytes);
  if (!text && text.error().code != StatusCode::not_found) return text.error();
  if (!text)
    return input_error(path +
                           ": cannot open the file (does it exist? `tessera compile -o DIR` "
                           "writes DIR/plan.yaml)",
                       StatusCode::not_found);
  return parse_plan_yaml(*text, path);
}

}  // namespace tessera::planner
