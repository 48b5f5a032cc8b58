// compile(): the off-chip check, per-op plans by class (through the OpPlanCache), the split of the
// classes that fit no plan, every design, and the simulation of each.
#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <mutex>
#include <optional>

#include "framework/driver/driver.hpp"
#include "framework/ir/repeats.hpp"
#include "framework/planner/energy_estimate.hpp"
#include "framework/planner/planner.hpp"
#include "framework/planner/residency.hpp"
#include "framework/sim/network_pricer.hpp"
#include "framework/sim/sim_energy.hpp"

namespace tessera::driver {

namespace {

// A core's tiles are mapped for what the planner minimises.
mapper::Objective core_objective(PlanObjective objective) {
  switch (objective) {
    case PlanObjective::energy:
      return mapper::Objective::energy;
    case PlanObjective::edp:
      return mapper::Objective::edp;
    case PlanObjective::latency:
      break;
  }
  return mapper::Objective::latency;
}

// With a core's tiles mapped (core_cost tcm), each op's chosen step tile and how the core runs it
// (cached: the planner mapped every one already).
Status record_core_mappings(planner::DesignResult& result, const OpenChip& chip,
                            PlanObjective objective) {
  const ChipModels& m = chip.models;
  if (m.core_cost != CoreCost::tcm || !m.core) return ok_status();
  spdlog::debug("core {}: {} distinct tiles mapped, {} answered from the cache",
                m.core->arch().name, m.core->misses(), m.core->hits());
  for (planner::OpSchedule& op : result.ops) {
    const auto& tile = op.exec.core_tile;
    if (!tile || !CoreMapper::maps(*tile)) continue;
    auto mapped = m.core->map(*tile, core_objective(objective));
    if (!mapped) return mapped.error();
    const CoreMapping& c = **mapped;
    if (!std::isfinite(c.seconds)) continue;
    op.core_mapping = planner::CoreMappingRecord{m.core->arch().name, c.einsum(), c.tree(),
                                                 c.seconds,           c.joules,   c.utilization};
  }
  return ok_status();
}

Progress progress_of(const CompileOptions& o, const std::string& stage) {
  return o.progress ? o.progress(stage) : Progress{};
}

// The Machine the plans are made for. At per-core rates the cost model's cross-chip factor stands
// for the chip links (T10's and the Elk artifact's accounting): neither the partials crossing chips
// nor the activations handed between them (planner/handoff.hpp) are priced on them again.
Machine planning_machine(const OpenChip& chip) {
  Machine m = chip.models.machine;
  if (chip.spec.conventions.transfers != TransferPricing::routes) m.chip_link_bytes_per_s = 0;
  return m;
}

// The partitioner per class of a graph's ops, behind the cache: the original graph, the split
// search's candidates and the split graph share every class they have in common.
class ClassPlanner {
 public:
  ClassPlanner(const OpenChip& chip, const CompileOptions& o)
      : chip_(chip),
        o_(o),
        machine_(planning_machine(chip)),
        cache_(o.op_plans != nullptr ? *o.op_plans : own_) {
    if (chip.spec.conventions.transfers == TransferPricing::routes) {
      auto pricer = sim::FlowNetworkPricer::build(chip.models);
      if (pricer)
        pricer_ = std::move(*pricer);
      else  // e.g. a topology without memory controllers: it cannot be simulated either
        spdlog::warn(
            "chip '{}': transfers are priced at the per-core rates of its Machine, not on "
            "its routes: {}",
            chip.models.machine.chip, pricer.error().message);
    }
    const ChipModels& m = chip.models;
    if (m.core_cost == CoreCost::tcm && m.core)
      core_ = std::make_unique<CoreTileCost>(*m.core, m.cost_model, core_objective(o.objective));
  }

  // Per op of `ops` its class's outcome, each class planned once (in parallel); empty `ops`: per
  // class of the graph.
  Result<planner::ClassOutcomes> operator()(const ir::Graph& graph, const std::vector<int>& ops,
                                            const Progress& progress = {}) const {
    ir::OpClasses classes = ir::identical_ops(graph);
    std::vector<int> wanted;  // classes, first appearance first
    std::vector<int> slot(classes.first_op.size(), -1);
    auto want = [&](int c) {
      if (slot[c] < 0) slot[c] = static_cast<int>(wanted.size()), wanted.push_back(c);
    };
    if (ops.empty())
      for (size_t c = 0; c < classes.first_op.size(); ++c) want(static_cast<int>(c));
    for (int op : ops) want(classes.class_of[op]);
    auto found = plan(graph, classes, wanted, progress);
    if (!found) return found.error();
    planner::ClassOutcomes out;
    if (ops.empty()) return *found;
    for (int op : ops) out.push_back((*found)[slot[classes.class_of[op]]]);
    return out;
  }

  // The pricer, for what comes after the per-op plans (the designs' energy estimates).
  std::unique_ptr<sim::FlowNetworkPricer> take_pricer() { return std::move(pricer_); }

 private:
  Result<planner::ClassOutcomes> plan(const ir::Graph& graph, const ir::OpClasses& classes,
                                      const std::vector<int>& wanted,
                                      const Progress& progress) const {
    std::vector<std::optional<Result<std::shared_ptr<const planner::ClassOutcome>>>> found(
        wanted.size());
    size_t done = 0;
    std::mutex progress_mutex;
    const ChipModels& m = chip_.models;
    int threads = o_.threads == 0 ? tbb::task_arena::automatic : static_cast<int>(o_.threads);
    tbb::task_arena arena(threads);
    arena.execute([&] {
      tbb::parallel_for(size_t{0}, wanted.size(), [&](size_t w) {
        int op = classes.first_op[wanted[w]];
        found[w] = cache_.get(class_key(chip_, graph, op, o_.objective), [&] {
          return planner::partition_class(graph, op, machine_, tile_cost(),
                                          m.partitioner ? &*m.partitioner : nullptr, pricer_.get(),
                                          chip_.spec.conventions);
        });
        std::lock_guard lock(progress_mutex);
        ++done;
        if (progress) progress(static_cast<double>(done), static_cast<double>(wanted.size()));
      });
    });
    planner::ClassOutcomes out;
    for (auto& f : found) {  // the first error in class order, whatever the thread count
      if (!f->ok()) return f->error();
      out.push_back(**f);
    }
    return out;
  }

  const TileCost& tile_cost() const {
    if (core_) return *core_;
    return chip_.models.cost_model;
  }

  const OpenChip& chip_;
  const CompileOptions& o_;
  Machine machine_;                     // the chip's, as its planning conventions price it
  std::unique_ptr<CoreTileCost> core_;  // null: the plugin's cost model times every tile
  mutable OpPlanCache own_;
  OpPlanCache& cache_;
  std::unique_ptr<sim::FlowNetworkPricer> pricer_;  // null: the Machine's rates price transfers
};

struct Prepared {
  std::shared_ptr<const ir::Graph> graph;
  std::vector<planner::SplitDecision> decisions;
  std::vector<planner::OpSplit> splits;  // every split op, in graph order
  std::vector<planner::OpPlans> class_plans;
  std::unique_ptr<sim::FlowNetworkPricer> pricer;  // null: the Machine's rates price transfers
};

// Every op of a decided class, split alike.
std::vector<planner::OpSplit> splits_of(const ir::Graph& graph,
                                        const std::vector<planner::SplitDecision>& decisions) {
  ir::OpClasses classes = ir::identical_ops(graph);
  std::vector<planner::OpSplit> splits;
  for (size_t i = 0; i < graph.ops().size(); ++i) {
    const ir::Op& representative = graph.ops()[classes.first_op[classes.class_of[i]]];
    for (const auto& d : decisions)
      if (d.split.op == representative.name)
        splits.push_back({graph.ops()[i].name, d.split.rank, d.split.slices, ""});
  }
  return splits;
}

Result<Prepared> prepare(const OpenChip& chip, const LoadedModel& model, const CompileOptions& o) {
  ClassPlanner plan_classes(chip, o);
  auto outcomes = plan_classes(*model.graph, {}, progress_of(o, "per-op plans (classes)"));
  if (!outcomes) return outcomes.error();
  Prepared p{model.graph, {}, {}, {}, nullptr};
  auto decisions = planner::choose_splits(
      *model.graph, *outcomes, chip.models.machine,
      [&](const ir::Graph& g, const std::vector<int>& ops) { return plan_classes(g, ops); });
  if (!decisions) return decisions.error();
  if (!decisions->empty()) {
    p.decisions = std::move(*decisions);
    p.splits = splits_of(*model.graph, p.decisions);
    auto split = planner::apply_splits(*model.graph, p.splits);
    if (!split) return split.error();
    p.graph = std::make_shared<const ir::Graph>(std::move(*split));
    outcomes = plan_classes(*p.graph, {});
    if (!outcomes) return outcomes.error();
  }
  for (size_t c = 0; c < outcomes->size(); ++c) {
    if (!(*outcomes)[c]->fits)  // the split search keeps only splits whose slices all fit
      return Error{ErrorKind::internal, StatusCode::internal,
                   "internal error: class " + std::to_string(c) + " fits no plan after splitting"};
    p.class_plans.push_back((*outcomes)[c]->plans);
  }
  p.pricer = plan_classes.take_pricer();
  return p;
}

// The planner's cost for an energy or EDP objective: the schedule's planned energy (× latency).
using ScheduleCost = std::function<Result<double>(const planner::DesignResult&)>;

Result<ScheduleCost> objective_cost(PlanObjective objective, const ir::Graph& graph,
                                    const OpenChip& chip, const planner::NetworkPricer* pricer) {
  if (objective == PlanObjective::latency) return ScheduleCost{};
  if (!chip.models.energy)
    return input_error(std::string("--objective ") + to_string(objective) + ": chip '" +
                       chip.models.machine.chip +
                       "' states no energy rates; add an energy section to its chip file "
                       "(docs/energy.md) or plan for latency");
  return ScheduleCost([objective, &graph, &chip,
                       pricer](const planner::DesignResult& r) -> Result<double> {
    auto counts = planner::planned_counts(r, graph, chip.models.machine, pricer);
    if (!counts) return counts.error();
    auto energy = energy_of(*chip.models.energy, *counts);
    if (!energy) return energy.error();
    return objective == PlanObjective::energy ? energy->total_j() : energy->total_j() * r.latency_s;
  });
}

// The design's planned energy (planner/energy_estimate.hpp), when the chip states its rates.
Status estimate_energy(planner::DesignResult& result, const ir::Graph& graph, const OpenChip& chip,
                       const planner::NetworkPricer* pricer) {
  if (!chip.models.energy) return ok_status();
  auto counts = planner::planned_counts(result, graph, chip.models.machine, pricer);
  if (!counts) return counts.error();
  result.energy = reported_energy(*chip.models.energy, *counts, chip);
  return ok_status();
}

// Per op of the split graph, the first op of its unit: a split op's slices (consecutive, named by
// slice_name) form one unit.
std::vector<int> units_of(const ir::Graph& graph, const std::vector<planner::OpSplit>& splits) {
  std::vector<int> unit(graph.ops().size());
  std::map<std::string, int> index;
  for (size_t i = 0; i < graph.ops().size(); ++i) {
    unit[i] = static_cast<int>(i);
    index[graph.ops()[i].name] = static_cast<int>(i);
  }
  for (const auto& s : splits) {
    int first = index.at(planner::slice_name(s.op, s.rank, 0, s.slices));
    for (int64_t k = 1; k < s.slices; ++k) unit[first + k] = first;
  }
  return unit;
}

// A per-design convention's values for `design` (chip_spec/conventions.hpp); empty when not named.
template <class T>
std::vector<T> for_design(const std::map<std::string, std::vector<T>>& per_design,
                          planner::Design design) {
  auto found = per_design.find(to_string(design));
  return found == per_design.end() ? std::vector<T>{} : found->second;
}

// The resident set of `mode`, searched (auto) with Elk-Dyn as the chip's conventions plan it.
Result<planner::ResidencyChoice> choose_residency(const planner::PlannerInput& input,
                                                  ResidencyMode mode,
                                                  planner::PlannerOptions planning,
                                                  const PlanningConventions& conventions) {
  planning.preload_network_shares =
      for_design(conventions.preload_network_share, planner::Design::elk_dyn);
  planning.execution_contentions =
      for_design(conventions.execution_contention, planner::Design::elk_dyn);
  return planner::choose_residency(input, mode, planning);
}

// Whether `o` plans the vendor design of a stack that keeps every weight and KV cache in SRAM
// (conventions.hpp, VendorStack::resident), which plans on those homes whatever --residency says.
bool plans_stack_homes(const OpenChip& chip, const CompileOptions& o) {
  return chip.spec.conventions.vendor == VendorStack::resident &&
         std::ranges::find(o.designs, planner::Design::vendor) != o.designs.end();
}

Error stack_does_not_fit(const Error& why) {
  return input_error(
      "vendor: the chip's stack keeps every weight and KV cache in SRAM (planner: vendor: "
      "resident), and this model does not fit: " +
      why.message);
}

// The homes --residency and the vendor's stack ask for, checked on their bytes alone before any op
// is planned: a model far too large for them is refused at once.
Status check_homes(const OpenChip& chip, const ir::Graph& graph, const CompileOptions& o) {
  const Machine machine = planning_machine(chip);
  const ResidencyMode asked = o.residency.value_or(chip.spec.conventions.residency);
  if (Status fits = planner::check_every_home_fits(graph, machine, asked); !fits) return fits;
  if (!plans_stack_homes(chip, o)) return Done{};
  Status fits = planner::check_every_home_fits(graph, machine, ResidencyMode::weights_kv);
  if (!fits) return stack_does_not_fit(fits.error());
  return Done{};
}

// The stack's homes (plans_stack_homes), or why the model does not fit them.
Result<planner::ResidencyChoice> vendor_homes(const planner::PlannerInput& input,
                                              const planner::PlannerOptions& planning,
                                              const PlanningConventions& conventions) {
  auto homes = choose_residency(input, ResidencyMode::weights_kv, planning, conventions);
  if (!homes) return stack_does_not_fit(homes.error());
  return homes;
}

}  // namespace

std::optional<EnergyBreakdown> reported_energy(const EnergyRates& rates, const EnergyCounts& counts,
                                               const OpenChip& chip) {
  auto energy = energy_of(rates, counts);
  if (energy) return *energy;
  // The latency stands without it: the energy is left out of the reports, saying why once.
  spdlog::warn("chip '{}': {}", chip.models.machine.chip, energy.error().message);
  return std::nullopt;
}

std::string class_key(const OpenChip& chip, const ir::Graph& graph, int op,
                      PlanObjective objective) {
  const ChipModels& models = chip.models;
  // The op's signature: shapes, dtypes, storage, indexing — all the partitioner reads of it.
  std::string key = ir::op_signature(graph, graph.ops()[static_cast<size_t>(op)]);
  machine_fields(models.machine, [&](const char* name, const auto& field, MachineFieldUse use) {
    if (use != MachineFieldUse::off_chip_memory) key += fmt::format("|{}={}", name, field);
  });
  key += fmt::format("|plugin_partitioner={}|memory_endpoint_efficiency={}",
                     models.partitioner.has_value(), models.memory_endpoint_efficiency);
  // The cost model times the tiles, the topology's routes price their transfers; a plugin
  // Partitioner may read any section but the memory's.
  for (const auto& [section, spec] : chip.spec.sections) {
    if (section == Interface::memory_model) continue;
    if (section != Interface::cost_model && section != Interface::topology && !models.partitioner)
      continue;
    key += "|" + std::string(to_string(section)) + ":" + spec.plugin + "{";
    for (const auto& [k, v] : spec.params.items) key += k + "=" + v + ";";
    key += "}";
  }
  const PlanningConventions& conventions = chip.spec.conventions;
  key += fmt::format("|orientation={}|transfers={}|combine={}|pruning={}",
                     to_string(conventions.orientation), to_string(conventions.transfers),
                     to_string(conventions.combine), to_string(conventions.pruning));
  // Mapped tiles: the core's hierarchy and the objective its mappings minimise.
  if (models.core_cost == CoreCost::tcm && models.core)
    key += fmt::format("|core={}:{}:{}", models.core->reference(), models.core->arch().name,
                       to_string(objective));
  return key;
}

Result<LoadedModel> load(const ModelRequest& request) {
  auto graph = load_model(request);
  if (!graph) return graph.error();
  return LoadedModel{request, std::make_shared<const ir::Graph>(std::move(*graph))};
}

namespace {

// `program` on the chip (lowered, or hand-written and given its plan's traffic and dispatch).
Result<SimulatedDesign> run_program(codegen::Program program, OpenChip& chip,
                                    const ir::Graph& graph, const sim::SimOptions& options) {
  auto result = sim::simulate_program(program, chip.models, options);
  if (!result) return result.error();
  sim::SimSummary summary = sim::summarize(*result, program, chip.models.machine);
  SimulatedDesign simulated{std::move(program), std::move(*result), summary, std::nullopt, {}};
  if (chip.models.energy) {
    auto counts = sim::simulated_counts(simulated.result, simulated.program, graph);
    if (!counts) return counts.error();
    simulated.energy = reported_energy(*chip.models.energy, *counts, chip);
  }
  return simulated;
}

// The plan simulated, or, when an earlier design's program runs alike, that design's simulation:
// the simulator is deterministic, so a second run would give the same bytes (Static, Elk-Dyn and
// Elk-Full often choose the same plan).
Result<SimulatedDesign> simulate_once(const planner::Plan& plan, OpenChip& chip,
                                      const ir::Graph& graph, const sim::SimOptions& options,
                                      const std::vector<CompiledDesign>& earlier) {
  auto program = codegen::lower_plan(plan, graph);
  if (!program) return program.error();
  for (const CompiledDesign& e : earlier) {
    if (!e.simulated || !codegen::same_run(e.simulated->program, *program)) continue;
    SimulatedDesign copy = *e.simulated;
    copy.program = std::move(*program);
    copy.same_as = e.plan.result.design;
    return copy;
  }
  return run_program(std::move(*program), chip, graph, options);
}

// Each collective after the last op of its op's name or of that op's slices (split.hpp).
Result<std::vector<planner::CollectiveOp>> placed_collectives(
    const ir::Graph& graph, std::vector<planner::CollectiveOp> collectives) {
  for (planner::CollectiveOp& c : collectives) {
    c.after_op = -1;
    for (size_t i = 0; i < graph.ops().size(); ++i) {
      const std::string& name = graph.ops()[i].name;
      if (name == c.after || planner::sliced_op(name) == c.after) c.after_op = static_cast<int>(i);
    }
    if (c.after_op < 0)
      return Error{ErrorKind::internal, StatusCode::internal,
                   "the collective '" + c.where + "' follows op '" + c.after + "', which " +
                       graph.name() + " has not"};
  }
  return collectives;
}

}  // namespace

Result<Compilation> compile(OpenChip& chip, const LoadedModel& model, const CompileOptions& o) {
  if (Status stored = check_weight_dtype(model, chip); !stored) return stored.error();
  auto tiled = tile_attention(model.graph, chip.models.machine);
  if (!tiled) return tiled.error();
  if (Status fits = check_off_chip(model, chip, tiled->graph.get()); !fits) return fits.error();
  if (Status homes = check_homes(chip, *tiled->graph, o); !homes) return homes.error();
  auto prepared = prepare(chip, LoadedModel{model.request, tiled->graph}, o);
  if (!prepared) return prepared.error();
  // The plans' splits: the attention's chains on the model's graph, then the ops split on theirs.
  std::vector<planner::OpSplit> splits = tiled->tiles;
  splits.insert(splits.end(), prepared->splits.begin(), prepared->splits.end());
  const ir::Graph& graph = *prepared->graph;
  planner::PlannerInput input;
  input.graph = &graph;
  input.classes = ir::identical_ops(graph);
  input.layers = ir::repeated_layers(graph, input.classes, ir::edges(graph));
  input.machine = planning_machine(chip);
  input.class_plans = std::move(prepared->class_plans);
  input.pricer = prepared->pricer.get();
  auto collectives = placed_collectives(graph, o.collectives);
  if (!collectives) return collectives.error();
  input.collectives = std::move(*collectives);
  if (!prepared->splits.empty()) input.unit_of = units_of(graph, prepared->splits);

  planner::PlannerOptions planning;
  planning.threads = o.threads;
  planning.max_displacement = o.max_displacement;
  planning.max_preload_ops = o.max_preload_ops;
  auto cost = objective_cost(o.objective, graph, chip, prepared->pricer.get());
  if (!cost) return cost.error();
  planning.cost = std::move(*cost);
  Compilation out{prepared->graph,
                  std::move(prepared->decisions),
                  input.classes.first_op.size(),
                  {},
                  tiled->tiles,
                  o.simulate,
                  first_token_read(chip.spec, model)};
  const planner::PlanSource source = plan_source(model, chip, graph);
  const PlanningConventions& conventions = chip.spec.conventions;
  planning.static_baseline = conventions.static_baseline;
  input.dispatch =
      planner::dispatch_costs(o.dispatch.value_or(conventions.dispatch), chip.models.fixed_costs);
  planning.vendor = conventions.vendor;
  // A zoo model's prefill step runs the stack's prefill ops, which read at the stack's own rate.
  if (model.request.shape.mode == zoo::Mode::prefill)
    planning.vendor_stream_bytes_per_s =
        conventions.vendor_prefill_bytes_per_s * chip.models.machine.chips;
  auto residency =
      choose_residency(input, o.residency.value_or(conventions.residency), planning, conventions);
  if (!residency) return residency.error();
  // The input with the homes taken out, or the model's own when nothing is resident.
  std::optional<planner::PlannerInput> with_homes;
  if (std::find(residency->chosen.begin(), residency->chosen.end(), true) !=
      residency->chosen.end())
    with_homes = planner::with_residency(input, residency->candidates, residency->chosen);
  const planner::PlannerInput& resident = with_homes ? *with_homes : input;
  std::optional<planner::ResidencyChoice> stack_homes;
  std::optional<planner::PlannerInput> stack_input;
  if (plans_stack_homes(chip, o)) {
    auto homes = vendor_homes(input, planning, conventions);
    if (!homes) return homes.error();
    stack_homes = std::move(*homes);
    stack_input = planner::with_residency(input, stack_homes->candidates, stack_homes->chosen);
  }
  for (planner::Design design : o.designs) {
    planning.progress = progress_of(o, fmt::format("{} (preload orders)", to_string(design)));
    planning.preload_network_shares = for_design(conventions.preload_network_share, design);
    planning.execution_contentions = for_design(conventions.execution_contention, design);
    const bool stack = design == planner::Design::vendor && stack_input;
    auto result = planner::plan_design(stack ? *stack_input : resident, design, planning);
    if (!result) return result.error();
    planner::record_residency(*result, stack ? *stack_homes : *residency);
    if (Status estimated = estimate_energy(*result, graph, chip, prepared->pricer.get());
        !estimated)
      return estimated.error();
    if (Status mapped = record_core_mappings(*result, chip, o.objective); !mapped)
      return mapped.error();
    CompiledDesign compiled{planner::Plan{source, input.machine, splits, std::move(*result)}, {}};
    if (o.simulate && design != planner::Design::ideal) {
      auto simulated = simulate_once(compiled.plan, chip, graph, o.sim, out.designs);
      if (!simulated) return simulated.error();
      compiled.simulated = std::move(*simulated);
    }
    out.designs.push_back(std::move(compiled));
  }
  return out;
}

std::vector<double> power_w(const SimulatedDesign& s) {
  return s.energy ? sim::power_over_time(s.result, s.program, *s.energy) : std::vector<double>{};
}

Result<SimulatedDesign> simulate(const planner::Plan& plan, OpenChip& chip, const ir::Graph& graph,
                                 const sim::SimOptions& options,
                                 std::optional<codegen::Program> program) {
  if (!program) {
    auto lowered = codegen::lower_plan(plan, graph);
    if (!lowered) return lowered.error();
    program = std::move(*lowered);
  } else if (auto status = codegen::attach_traffic(*program, plan, graph); !status) {
    return status.error();
  } else {
    program->dispatch = plan.result.dispatch;  // program.txt carries neither
    program->stream_bytes_per_s = plan.result.stream_bytes_per_s;
  }
  return run_program(std::move(*program), chip, graph, options);
}

}  // namespace tessera::driver
