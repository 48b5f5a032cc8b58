// plan_design (planner.hpp): each design's decisions, timed by evaluate_timeline. Elk-Full's order
// search runs on oneTBB; results are reduced in order index so any thread count gives the same
// plan.
#include "framework/planner/planner.hpp"

#include <fmt/format.h>
#include <tbb/info.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <limits>
#include <map>
#include <mutex>
#include <optional>

#include "framework/planner/baselines.hpp"
#include "framework/planner/handoff_choice.hpp"
#include "framework/planner/handoff_times.hpp"
#include "framework/planner/inductive.hpp"
#include "framework/planner/preload_orders.hpp"

namespace tessera::planner {

namespace {

constexpr double kNever = std::numeric_limits<double>::infinity();

int default_k(const PlannerInput& input) {
  if (input.layers && input.layers->ops_per_layer > 0) return input.layers->ops_per_layer;
  return 8;
}

// The op's name in messages ("#3" without a graph).
std::string op_name(const PlannerInput& input, int op) {
  return input.graph && op >= 0 ? input.graph->ops()[op].name : fmt::format("#{}", op);
}

// An induction that placed nothing for some op, as an input error naming the op.
Error cannot_place(const PlannerInput& input, Design design, const InductiveResult& r) {
  return input_error(fmt::format("{}: op '{}' fits no schedule in {} bytes of SRAM per core: {}",
                                 to_string(design), op_name(input, r.failed_op),
                                 input.machine.sram_bytes_per_core, r.reason));
}

// Every design needs each op to have a plan that fits alone (the partitioner guarantees it for
// the plans it makes; plans from elsewhere are checked here).
Status check_plans_fit(const PlannerInput& input, const CostContext& costs) {
  for (int op = 0; op < costs.ops(); ++op) {
    const auto& exec = costs.plans(op).exec;
    std::string name = op_name(input, op);
    if (exec.empty()) return input_error(fmt::format("op '{}' has no execution plan", name));
    if (exec.front().exec_bytes_per_core > costs.sram_bytes())
      return input_error(fmt::format(
          "op '{}' needs at least {:.0f} bytes of SRAM per core under any plan; the chip has {}",
          name, exec.front().exec_bytes_per_core, input.machine.sram_bytes_per_core));
  }
  return ok_status();
}

// The schedule's cost under options.cost (latency without one).
Result<double> cost_of(const DesignResult& r, const PlannerOptions& options) {
  if (!options.cost) return r.latency_s;
  return options.cost(r);
}

// Whether the machine hands activations between chips (otherwise every hand-off costs nothing
// and with_handoffs_weighed keeps every decision).
bool hands_off(const CostContext& costs) {
  return costs.handoffs() != nullptr && !costs.handoffs()->consumers().empty();
}

bool same_plans(const Decisions& a, const Decisions& b) {
  return a.exec_plan == b.exec_plan && a.preload_plan == b.preload_plan;
}

// The schedule of `decisions`, or of the same decisions with each op's execution plan re-chosen
// with the hand-offs in view (handoff_choice.hpp) when that costs less by options.cost (ties: the
// design's own): the pass weighs each op alone, the timeline judges the whole step.
Result<DesignResult> timed(const PlannerInput& input, const CostContext& costs,
                           const Decisions& decisions, TimelineMode mode,
                           const PlannerOptions& options) {
  DesignResult own = evaluate_timeline(input.graph, costs, decisions, mode);
  Decisions weighed = with_handoffs_weighed(costs, decisions);
  if (same_plans(weighed, decisions)) return own;
  DesignResult other = evaluate_timeline(input.graph, costs, weighed, mode);
  auto own_cost = cost_of(own, options);
  if (!own_cost) return own_cost.error();
  auto other_cost = cost_of(other, options);
  if (!other_cost) return other_cost.error();
  return *other_cost < *own_cost ? std::move(other) : std::move(own);
}

Result<DesignResult> elk_dynamic(const PlannerInput& input, const CostContext& costs, int k,
                                 const PlannerOptions& options) {
  InductiveResult r = schedule_inductively(costs, program_order(costs), k);
  if (!r.feasible) return cannot_place(input, Design::elk_dyn, r);
  return timed(input, costs, r.decisions, TimelineMode::shared, options);
}

// Orders are ranked on a slice of the model — the ops before the repeated layers and the first
// kScreenLayers layers, which every order treats alike — and the kFinalists best (of each
// ranking: Screened), with program order, are then scheduled on the whole model. Identical layers
// make the slice's ranking the whole model's up to the edge effects of the last layers.
constexpr int kScreenLayers = 3;
constexpr size_t kFinalists = 8;
// Screening schedules the slice once per order: orders x the slice's ops is its work, about 5 us
// each on one core. The displacement narrows until the work fits this budget, a few seconds:
// LLM layers (a few thousand orders over a slice of ~100 ops) keep d = 4, while maxvit_t's
// layer (11,854 orders at d = 2 over 506 ops: a minute) searches d = 1.
constexpr double kScreenedOpBudget = 1 << 20;

struct OrderSearch {
  std::vector<std::vector<int>> permutations;
  std::vector<LoadUnit> units;
};

int screening_ops(const ir::RepeatedLayers& layers) {
  return layers.first_op + std::min(layers.count, kScreenLayers) * layers.ops_per_layer;
}

OrderSearch order_space(const PlannerInput& input, const CostContext& costs,
                        const PlannerOptions& options) {
  OrderSearch search;
  if (!input.layers || input.layers->count < 1) return search;
  const ir::RepeatedLayers& layers = *input.layers;
  search.units = large_load_units(costs, layers, input.unit_of);
  // Units whose ops are of the same classes, in the same order, are the same kind of preload.
  std::map<std::vector<int>, int> kind_of;
  std::vector<int> kinds;
  for (const LoadUnit& u : search.units) {
    std::vector<int> classes;
    for (int i = 0; i < u.ops; ++i)
      classes.push_back(costs.class_of(layers.first_op + u.offset + i));
    kinds.push_back(kind_of.emplace(classes, static_cast<int>(kind_of.size())).first->second);
  }
  auto max_orders = static_cast<size_t>(kScreenedOpBudget / std::max(1, screening_ops(layers)));
  search.permutations =
      widest_bounded_orders(kinds, options.max_displacement, max_orders,
                            [&](const std::vector<int>& prefix) {
                              return prefix_fits(costs, layers, search.units, prefix);
                            })
          .orders;
  return search;
}

// The inductive schedule of permutation `index` (0: program order) on the model `costs`
// describes, whose repeated layers are `layers`; nullopt when it cannot place the order.
std::optional<Decisions> order_decisions(const CostContext& costs, const ir::RepeatedLayers* layers,
                                         const OrderSearch& s, size_t index, int k) {
  Decisions order = index == 0 ? program_order(costs)
                               : permuted_order(costs, *layers, s.units, s.permutations[index]);
  InductiveResult r = schedule_inductively(costs, std::move(order), k);
  if (!r.feasible) return std::nullopt;
  return std::move(r.decisions);
}

struct Slice {
  std::vector<int> class_of;
  ir::RepeatedLayers layers;
};

Slice screening_slice(const PlannerInput& input) {
  Slice slice;
  slice.layers = *input.layers;
  slice.layers.count = std::min(slice.layers.count, kScreenLayers);
  int ops = screening_ops(slice.layers);
  slice.class_of.assign(input.classes.class_of.begin(), input.classes.class_of.begin() + ops);
  return slice;
}

// Each order's screening latency (+inf: it cannot be placed) twice: with its plans re-chosen with
// the hand-offs in view and each hand-off timed (aware_s), and as scheduled, the hand-offs
// untimed (blind_s; empty on a machine that hands nothing off, where the two coincide). Either
// ranking alone can drop the order the complete timeline finds best: the blind one misses what
// hand-offs cost, the aware one what the re-choice gives up beyond the slice.
struct Screened {
  std::vector<double> aware_s, blind_s;
};

// Computed in parallel; deterministic (each slot written once).
Screened screen_orders(const PlannerInput& input, const OrderSearch& search, int k,
                       const CostContext& whole, const PlannerOptions& options) {
  Slice slice = screening_slice(input);
  CostContext aware(slice.class_of, input.class_plans, input.machine, whole.preload_network_share(),
                    whole.contention(), whole.dispatch());
  aware.set_handoffs(whole.handoffs());  // the slice's ops are the whole graph's first ones
  if (!whole.collective_after_s().empty())
    aware.set_collective_after_s(
        {whole.collective_after_s().begin(), whole.collective_after_s().begin() + aware.ops()});
  CostContext blind = aware;
  blind.set_handoffs(nullptr);
  size_t count = search.permutations.size();
  Screened screened{std::vector<double>(count, kNever), {}};
  if (hands_off(aware)) screened.blind_s.assign(count, kNever);
  std::atomic<size_t> finished{0};
  std::mutex progress_mutex;
  size_t reported = 0;  // under progress_mutex: counts reach the callback only in order
  unsigned threads = options.threads > 0 ? options.threads
                                         : static_cast<unsigned>(tbb::info::default_concurrency());
  tbb::task_arena arena(static_cast<int>(threads));
  arena.execute([&] {
    tbb::parallel_for(size_t{0}, count, [&](size_t i) {
      if (auto d = order_decisions(aware, &slice.layers, search, i, k)) {
        if (!screened.blind_s.empty())
          screened.blind_s[i] = timeline_latency_s(blind, *d, TimelineMode::shared);
        screened.aware_s[i] = timeline_latency_s(aware, with_handoffs_weighed(aware, std::move(*d)),
                                                 TimelineMode::shared);
      }
      size_t done = ++finished;
      if (options.progress && (done % 64 == 0 || done == count)) {
        std::lock_guard lock(progress_mutex);
        if (done <= reported) return;  // a later count was reported first
        reported = done;
        options.progress(static_cast<double>(done), static_cast<double>(count));
      }
    });
  });
  return screened;
}

// Program order first, then the best screened orders (ties: lower index).
std::vector<size_t> finalists(const std::vector<double>& screened) {
  std::vector<size_t> ranked;
  for (size_t i = 1; i < screened.size(); ++i)
    if (screened[i] < kNever) ranked.push_back(i);
  std::stable_sort(ranked.begin(), ranked.end(),
                   [&](size_t a, size_t b) { return screened[a] < screened[b]; });
  ranked.resize(std::min(ranked.size(), kFinalists));
  ranked.insert(ranked.begin(), 0);
  return ranked;
}

// An order Elk-Full schedules on the whole model, and how: with its plans re-chosen when it is an
// aware finalist, as scheduled when a blind one (timed() re-chooses too, keeping the cheaper), so
// the pick is no worse than either ranking's alone.
struct Finalist {
  size_t index;
  bool aware, blind;
};

// The aware finalists, then the blind ones not among them.
std::vector<Finalist> union_of_finalists(const Screened& screened) {
  std::vector<Finalist> out;
  for (size_t index : finalists(screened.aware_s)) out.push_back({index, true, false});
  if (screened.blind_s.empty()) return out;
  for (size_t index : finalists(screened.blind_s)) {
    auto same =
        std::find_if(out.begin(), out.end(), [&](const Finalist& f) { return f.index == index; });
    if (same != out.end())
      same->blind = true;
    else
      out.push_back({index, false, true});
  }
  return out;
}

Result<DesignResult> elk_full(const PlannerInput& input, const CostContext& costs, int k,
                              const PlannerOptions& options) {
  OrderSearch search = order_space(input, costs, options);
  std::vector<Finalist> candidates{{0, true, hands_off(costs)}};
  if (search.permutations.size() > 1)
    candidates = union_of_finalists(screen_orders(input, search, k, costs, options));
  const ir::RepeatedLayers* layers = input.layers ? &*input.layers : nullptr;
  std::optional<DesignResult> best;
  double best_cost = kNever;
  size_t best_index = 0;
  for (const Finalist& f : candidates) {
    std::optional<Decisions> raw = order_decisions(costs, layers, search, f.index, k);
    if (!raw) continue;
    std::vector<Decisions> ways;
    if (f.aware) ways.push_back(with_handoffs_weighed(costs, *raw));
    if (f.blind && (!f.aware || !same_plans(ways.front(), *raw))) ways.push_back(std::move(*raw));
    for (const Decisions& decisions : ways) {
      auto r = timed(input, costs, decisions, TimelineMode::shared, options);
      if (!r) return r.error();
      auto cost = cost_of(*r, options);
      if (!cost) return cost.error();
      if (*cost < best_cost || (*cost == best_cost && f.index < best_index))  // ties: lower index
        best_cost = *cost, best_index = f.index, best = std::move(*r);
    }
  }
  if (!best) {
    InductiveResult r = schedule_inductively(costs, program_order(costs), k);
    return cannot_place(input, Design::elk_full, r);
  }
  best->orders_tried = std::max<size_t>(1, search.permutations.size());
  return std::move(*best);
}

Result<DesignResult> static_split(const PlannerInput& input, const CostContext& costs, int k,
                                  const PlannerOptions& options) {
  const StaticBaseline coding = options.static_baseline;
  if (options.cost) {  // every split's whole schedule, for its cost
    std::optional<DesignResult> best;
    double best_cost = kNever;
    for (const StaticSplit& split : static_splits(costs, coding)) {
      auto r = timed(input, costs, static_decisions(costs, split, coding, k), TimelineMode::shared,
                     options);
      if (!r) return r.error();
      auto cost = options.cost(*r);
      if (!cost) return cost.error();
      if (*cost < best_cost) best_cost = *cost, best = std::move(*r);
    }
    return std::move(*best);
  }
  Decisions best;
  double best_s = kNever;
  for (const StaticSplit& split : static_splits(costs, coding)) {
    Decisions d = static_decisions(costs, split, coding, k);
    double latency_s = timeline_latency_s(costs, d, TimelineMode::shared);
    if (latency_s < best_s) best_s = latency_s, best = std::move(d);
  }
  return timed(input, costs, best, TimelineMode::shared, options);
}

// Elk-Dyn's and Elk-Full's decisions generalise Static's and Basic's (one timeline times them all),
// so a search that ends slower than those schedules by its own estimate takes theirs: the orders
// it tries start from program order, and Static's fixed split can beat the first dynamic
// allocation the inductive scheduler settles on.
Status keep_simpler_if_faster(const PlannerInput& input, const CostContext& costs, int k,
                              const PlannerOptions& options, DesignResult& result) {
  const uint64_t orders = result.orders_tried;
  auto result_cost = cost_of(result, options);
  if (!result_cost) return result_cost.error();
  auto split = static_split(input, costs, k, options);
  if (!split) return split.error();
  auto basic = timed(input, costs, basic_decisions(costs), TimelineMode::shared, options);
  if (!basic) return basic.error();
  for (DesignResult simpler : {std::move(*split), std::move(*basic)}) {
    auto cost = cost_of(simpler, options);
    if (!cost) return cost.error();
    if (*cost < *result_cost) result_cost = *cost, result = std::move(simpler);
  }
  result.orders_tried = orders;
  return ok_status();
}

}  // namespace

namespace {

Result<DesignResult> vendor_design(const PlannerInput& input, const CostContext& costs,
                                   const PlannerOptions& options) {
  if (options.vendor == VendorStack::none)
    return input_error(
        "vendor: the chip file names no vendor stack (planner: vendor: streamed or resident); "
        "plan one of Elk's designs instead");
  // resident: the driver gives an input whose weights and KV caches have homes, so the ops run
  // back to back on what the homes and the activations leave them (Basic, with nothing to load).
  if (options.vendor == VendorStack::resident)
    return timed(input, costs, basic_decisions(costs), TimelineMode::shared, options);
  auto result = timed(input, costs, vendor_decisions(costs), TimelineMode::streamed, options);
  if (result && costs.machine().hbm_bytes_per_s < input.machine.hbm_bytes_per_s)
    result->stream_bytes_per_s = costs.machine().hbm_bytes_per_s;
  return result;
}

// Per op, the planned seconds of the collectives that follow it (empty: none).
Result<std::vector<double>> collective_after_s(const PlannerInput& input) {
  if (input.collectives.empty()) return std::vector<double>{};
  std::vector<double> seconds(input.classes.class_of.size(), 0);
  for (const CollectiveOp& c : input.collectives) {
    if (c.after_op < 0 || c.after_op >= static_cast<int>(seconds.size()))
      return Error{ErrorKind::internal, StatusCode::internal,
                   "the collective '" + c.where + "' follows op " + std::to_string(c.after_op) +
                       " of a graph of " + std::to_string(seconds.size()) + " ops"};
    seconds[c.after_op] += c.planned_s;
  }
  return seconds;
}

// The machine a design's loads are timed on: the vendor design's streamed ops read off-chip
// memory at the stack's rate where it is below the memory's own.
Machine stack_machine(const PlannerInput& input, Design design, const PlannerOptions& options) {
  Machine machine = input.machine;
  if (design == Design::vendor && options.vendor == VendorStack::streamed &&
      options.vendor_stream_bytes_per_s > 0)
    machine.hbm_bytes_per_s = std::min(machine.hbm_bytes_per_s, options.vendor_stream_bytes_per_s);
  return machine;
}

Result<DesignResult> plan_variant(const PlannerInput& input, Design design,
                                  const PlannerOptions& options, double share,
                                  ExecutionContention contention) {
  CostContext costs(input.classes.class_of, input.class_plans,
                    stack_machine(input, design, options), share, contention, input.dispatch);
  std::optional<HandOffTimes> handoffs;
  if (input.graph != nullptr)
    costs.set_handoffs(&handoffs.emplace(*input.graph, input.machine, input.pricer));
  auto collectives_s = collective_after_s(input);
  if (!collectives_s) return collectives_s.error();
  costs.set_collective_after_s(std::move(*collectives_s));
  if (Status fit = check_plans_fit(input, costs); !fit.ok()) return fit.error();
  int k = options.max_preload_ops > 0 ? options.max_preload_ops : default_k(input);
  Result<DesignResult> result = DesignResult{};
  switch (design) {
    case Design::basic:
      result = timed(input, costs, basic_decisions(costs), TimelineMode::shared, options);
      break;
    case Design::static_split:
      result = static_split(input, costs, k, options);
      break;
    case Design::elk_dyn:
      result = elk_dynamic(input, costs, k, options);
      break;
    case Design::elk_full:
      result = elk_full(input, costs, k, options);
      break;
    case Design::ideal:
      result = timed(input, costs, ideal_decisions(costs), TimelineMode::separate, options);
      break;
    case Design::vendor:
      result = vendor_design(input, costs, options);
      break;
  }
  if (!result.ok()) return result;
  if (design == Design::elk_dyn || design == Design::elk_full)
    if (Status kept = keep_simpler_if_faster(input, costs, k, options, *result); !kept)
      return kept.error();
  for (const CollectiveOp& c : input.collectives)
    result->ops[static_cast<size_t>(c.after_op)].collectives.push_back(c);
  return result;
}

}  // namespace

Result<DesignResult> plan_design(const PlannerInput& input, Design design,
                                 const PlannerOptions& options) {
  auto started = std::chrono::steady_clock::now();
  std::optional<DesignResult> best;
  double best_cost = kNever;
  const std::vector<double> one{1.0};
  const std::vector<ExecutionContention> charged{ExecutionContention::charged};
  const auto& shares =
      options.preload_network_shares.empty() ? one : options.preload_network_shares;
  const auto& contentions =
      options.execution_contentions.empty() ? charged : options.execution_contentions;
  for (ExecutionContention contention : contentions)  // ties: the first listed
    for (double share : shares) {
      auto result = plan_variant(input, design, options, share, contention);
      if (!result) return result.error();
      auto cost = cost_of(*result, options);
      if (!cost) return cost.error();
      if (!best || *cost < best_cost) best_cost = *cost, best = std::move(*result);
    }
  best->design = design;
  best->search_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return std::move(*best);
}

}  // namespace tessera::planner
