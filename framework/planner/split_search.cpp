// choose_splits: per class of ops that fit no plan, the rank and slice count whose slices, each
// preloaded while the previous one runs, finish soonest.
#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <optional>

#include "framework/common/units.hpp"
#include "framework/ir/repeats.hpp"
#include "framework/planner/split.hpp"

namespace tessera::planner {

namespace {

// Slices past this many cost more in barriers and per-op overheads than they save in SRAM; a split
// of one op into more is never worth a simulation of it.
constexpr int64_t kMaxSlices = 256;

// One slice's part in the pipeline estimate.
struct SliceCost {
  std::shared_ptr<const ClassOutcome> outcome;
  double preload_s = 0;  // its HBM data at the machine's sustained rate
};

// The slice's fastest plan whose exec state leaves `room_bytes` free for the next preload, with
// its distribute time; nullopt when none does.
std::optional<double> run_s(const OpPlans& plans, double room_bytes, const Machine& m) {
  std::optional<double> best;
  for (size_t e = 0; e < plans.exec.size(); ++e) {
    const ExecPlan& plan = plans.exec[e];
    if (plan.exec_bytes_per_core + room_bytes > static_cast<double>(m.sram_bytes_per_core))
      continue;
    double distribute = plans.preload[e].empty() ? 0 : plans.preload[e].front().distribute_s;
    double t = plan.time_s() + distribute;
    if (!best || t < *best) best = t;
  }
  return best;
}

// slices × max(exec, next preload) + first preload when each slice leaves room for the next
// slice's preload; else the slices and their preloads one after the other.
double pipeline_s(const std::vector<SliceCost>& slices, const Machine& m) {
  double overlapped = slices.front().preload_s, serial = 0;
  bool overlaps = true;
  for (size_t i = 0; i < slices.size(); ++i) {
    const OpPlans& plans = slices[i].outcome->plans;
    double next_preload_s = i + 1 < slices.size() ? slices[i + 1].preload_s : 0;
    double room =
        i + 1 < slices.size() ? slices[i + 1].outcome->plans.smallest_preload_bytes_per_core() : 0;
    auto with_room = run_s(plans, room, m);
    serial += *run_s(plans, 0, m) + slices[i].preload_s;
    if (!with_room) overlaps = false;
    if (overlaps) overlapped += std::max(*with_room, next_preload_s);
  }
  return overlaps ? std::min(overlapped, serial) : serial;
}

struct Candidate {
  OpSplit split;
  double estimated_s = std::numeric_limits<double>::infinity();
};

class Search {
 public:
  Search(const ir::Graph& graph, const ir::OpClasses& classes, const Machine& machine,
         const PlanClasses& plan_classes)
      : graph_(graph), classes_(classes), machine_(machine), plan_classes_(plan_classes) {}

  // The fastest candidate for class `c`; nullopt when no rank and slice count fits. Per rank,
  // slice counts double until two fit (more slices rarely win) or until doubling them no longer
  // shrinks the state a slice needs by a tenth (cutting that rank cannot make the op fit).
  Result<std::optional<Candidate>> best_for(int c, double unsplit_bytes) {
    const ir::Op& op = graph_.ops()[classes_.first_op[c]];
    std::optional<Candidate> best;
    for (const ir::Rank& rank : op.einsum.ranks) {
      int feasible_seen = 0;
      double needed = unsplit_bytes;
      for (int64_t slices = 2; slices <= std::min(rank.extent, kMaxSlices) && feasible_seen < 2;
           slices *= 2) {
        auto e = estimate({op.name, rank.name, slices, ""});
        if (!e) return e.error();
        if (!e->valid) continue;
        if (!e->fits) {
          if (e->needed_bytes > 0.9 * needed) break;
          needed = e->needed_bytes;
          continue;
        }
        ++feasible_seen;
        if (!best || e->seconds < best->estimated_s)
          best = Candidate{{op.name, rank.name, slices, ""}, e->seconds};
      }
    }
    return best;
  }

 private:
  struct Estimate {
    bool valid = false;       // the rank can be cut so
    bool fits = false;        // every slice has a plan
    double needed_bytes = 0;  // when not: the most SRAM per core a slice's smallest plan needs
    double seconds = 0;       // when it fits: the pipeline estimate
  };

  // The class's ops split alike, so its first op stands for them all: only it is split here.
  Result<Estimate> estimate(const OpSplit& first) {
    Estimate e;
    auto split_graph = apply_splits(graph_, {first});
    if (!split_graph) return e;  // e.g. too few positions for the slices
    e.valid = true;
    std::vector<int> slice_ops;
    for (int64_t i = 0; i < first.slices; ++i) {
      std::string name = slice_name(first.op, first.rank, i, first.slices);
      auto at = std::find_if(split_graph->ops().begin(), split_graph->ops().end(),
                             [&](const ir::Op& op) { return op.name == name; });
      slice_ops.push_back(static_cast<int>(at - split_graph->ops().begin()));
    }
    auto outcomes = plan_classes_(*split_graph, slice_ops);
    if (!outcomes) return outcomes.error();
    std::vector<SliceCost> slices;
    for (const auto& shared : *outcomes) {
      const ClassOutcome& o = *shared;
      if (!o.fits) e.needed_bytes = std::max(e.needed_bytes, o.smallest_bytes_per_core);
      double preload_s =
          machine_.hbm_bytes_per_s > 0 ? o.plans.hbm_read_bytes / machine_.hbm_bytes_per_s : 0;
      slices.push_back({shared, preload_s});
    }
    e.fits = e.needed_bytes == 0;
    if (e.fits) e.seconds = pipeline_s(slices, machine_);
    return e;
  }

  const ir::Graph& graph_;
  const ir::OpClasses& classes_;
  const Machine& machine_;
  const PlanClasses& plan_classes_;
};

}  // namespace

Result<std::vector<SplitDecision>> choose_splits(const ir::Graph& graph,
                                                 const ClassOutcomes& outcomes,
                                                 const Machine& machine,
                                                 const PlanClasses& plan_classes) {
  ir::OpClasses classes = ir::identical_ops(graph);
  Search search(graph, classes, machine, plan_classes);
  std::vector<SplitDecision> decisions;
  for (size_t c = 0; c < outcomes.size(); ++c) {
    const ClassOutcome& o = *outcomes[c];
    if (o.fits) continue;
    auto best = search.best_for(static_cast<int>(c), o.smallest_bytes_per_core);
    if (!best) return best.error();
    const std::string& name = graph.ops()[classes.first_op[c]].name;
    if (!*best)
      return input_error(fmt::format(
          "op '{}' needs at least {} of SRAM per core under any plan (smallest: '{}') and fits "
          "none even split into up to {} slices along any rank; the chip has {} per core — use a "
          "chip with more cores or SRAM, or a smaller batch",
          name, format_bytes(o.smallest_bytes_per_core), o.smallest_plan, kMaxSlices,
          format_bytes(static_cast<double>(machine.sram_bytes_per_core))));
    // The unsplit op on the same terms: its preload, then its fastest plan (were SRAM enough).
    double unsplit_preload_s =
        machine.hbm_bytes_per_s > 0 ? o.plans.hbm_read_bytes / machine.hbm_bytes_per_s : 0;
    decisions.push_back({(*best)->split, classes.count[c], (*best)->estimated_s,
                         o.smallest_bytes_per_core, o.smallest_plan,
                         unsplit_preload_s + o.fastest_s});
  }
  return decisions;
}

}  // namespace tessera::planner
