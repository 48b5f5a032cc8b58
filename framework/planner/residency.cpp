// The candidates, the resident input and the search of residency.hpp.
#include "framework/planner/residency.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <numeric>
#include <set>
#include <utility>

#include "framework/common/units.hpp"
#include "framework/planner/schedule.hpp"

namespace tessera::planner {

namespace {

constexpr double kNever = std::numeric_limits<double>::infinity();

// Union-find over ops.
class Groups {
 public:
  explicit Groups(size_t n) : parent_(n) { std::iota(parent_.begin(), parent_.end(), 0); }
  size_t root(size_t x) {
    while (parent_[x] != x) x = parent_[x] = parent_[parent_[x]];
    return x;
  }
  void join(size_t a, size_t b) {
    a = root(a);
    b = root(b);
    if (a != b) parent_[std::max(a, b)] = std::min(a, b);
  }

 private:
  std::vector<size_t> parent_;
};

// The off-chip storage tensors op `op` reads or writes, and whether it may be resident.
struct Touched {
  std::vector<size_t> tensors;
  bool eligible = true;
};

Touched touched_by(const ir::Graph& graph, const ir::Op& op, bool with_kv) {
  Touched t;
  const ir::Tensor* first = graph.tensors().data();
  auto touch = [&](const std::string& name) {
    const ir::Tensor& base = graph.storage_tensor(name);
    if (ir::storage_of(base.role) != ir::Storage::hbm) return;
    bool allowed = base.role == ir::TensorRole::weight || base.role == ir::TensorRole::constant ||
                   (with_kv && base.role == ir::TensorRole::kv_cache);
    t.eligible = t.eligible && allowed;
    t.tensors.push_back(static_cast<size_t>(&base - first));
  };
  for (const auto& in : op.einsum.inputs) touch(in.tensor);
  touch(op.einsum.output.tensor);
  std::sort(t.tensors.begin(), t.tensors.end());
  t.tensors.erase(std::unique(t.tensors.begin(), t.tensors.end()), t.tensors.end());
  return t;
}

// Per op, the preload time it pays per step when streamed (ResidencyCandidate::saves_s).
std::vector<double> streamed_seconds(const PlannerInput& input) {
  CostContext costs(input.classes.class_of, input.class_plans, input.machine);
  std::vector<double> seconds(costs.ops(), 0);
  const Machine& m = input.machine;
  for (int op = 0; op < costs.ops(); ++op) {
    const OpPlans& plans = costs.plans(op);
    if (m.hbm_bytes_per_s > 0) seconds[op] = plans.hbm_write_bytes / m.hbm_bytes_per_s;
    if (!costs.has_load(op)) continue;
    double fastest_s = kNever;
    for (int e = 0; e < static_cast<int>(plans.exec.size()); ++e)
      fastest_s =
          std::min(fastest_s, costs.load_s(op, plans.preload[e][costs.fastest_preload(op, e)]));
    seconds[op] += fastest_s;
  }
  return seconds;
}

std::string label_of(const PlannerInput& input, const std::vector<int>& ops) {
  std::string label = input.graph->ops()[ops.front()].name;
  if (!input.layers) return label;
  std::set<int> layers;
  for (int op : ops)
    if (int layer = input.layers->layer_of(op); layer >= 0) layers.insert(layer);
  if (layers.size() > 1) label += fmt::format(" (x{} layers)", layers.size());
  return label;
}

// The class plans of a resident op: nothing preloaded, each exec plan's home_* set and its home
// share taken out of its execution state, the exec plans again a Pareto front (bytes ascending,
// time descending).
OpPlans resident_plans(const OpPlans& plans, int op, double home_bytes_per_core) {
  OpPlans r;
  r.representative_op = op;
  r.flops = plans.flops;
  r.resident = true;
  std::vector<ExecPlan> exec;
  for (size_t e = 0; e < plans.exec.size(); ++e) {
    ExecPlan x = plans.exec[e];
    if (e < plans.preload.size() && !plans.preload[e].empty()) {
      const PreloadPlan& least = plans.preload[e].front();
      x.home_distribute_bytes = least.distribute_bytes;
      x.home_distribute_s = least.distribute_s;
    }
    x.home_bytes_per_core = std::min(home_bytes_per_core, x.hbm_operand_bytes_per_core);
    x.exec_bytes_per_core -= x.home_bytes_per_core;
    exec.push_back(std::move(x));
  }
  std::stable_sort(exec.begin(), exec.end(), [](const ExecPlan& a, const ExecPlan& b) {
    return a.exec_bytes_per_core < b.exec_bytes_per_core;
  });
  for (ExecPlan& x : exec)
    if (r.exec.empty() || x.time_s() < r.exec.back().time_s()) {
      if (!r.exec.empty() && x.exec_bytes_per_core <= r.exec.back().exec_bytes_per_core)
        r.exec.pop_back();  // as small and faster
      r.exec.push_back(std::move(x));
    }
  r.preload.assign(r.exec.size(), {});
  return r;
}

}  // namespace

std::vector<ResidencyCandidate> residency_candidates(const PlannerInput& input, bool with_kv) {
  const ir::Graph& graph = *input.graph;
  const size_t n = graph.ops().size();
  std::vector<Touched> touched;
  for (const ir::Op& op : graph.ops()) touched.push_back(touched_by(graph, op, with_kv));
  Groups groups(n);
  std::map<size_t, size_t> first_op_of;  // tensor -> the first eligible op touching it
  for (size_t op = 0; op < n; ++op) {
    if (!touched[op].eligible || touched[op].tensors.empty()) continue;
    for (size_t t : touched[op].tensors)
      groups.join(op, first_op_of.try_emplace(t, op).first->second);
    if (!input.layers) continue;
    int layer = input.layers->layer_of(static_cast<int>(op));
    if (layer <= 0) continue;
    size_t same = op - static_cast<size_t>(layer) * input.layers->ops_per_layer;
    if (touched[same].eligible && !touched[same].tensors.empty()) groups.join(op, same);
  }
  std::vector<double> seconds = streamed_seconds(input);
  std::map<size_t, ResidencyCandidate> by_root;
  for (size_t op = 0; op < n; ++op) {
    if (!touched[op].eligible || touched[op].tensors.empty()) continue;
    ResidencyCandidate& c = by_root[groups.root(op)];
    c.ops.push_back(static_cast<int>(op));
    c.tensors.insert(c.tensors.end(), touched[op].tensors.begin(), touched[op].tensors.end());
    c.saves_s += seconds[op];
  }
  std::vector<ResidencyCandidate> out;
  for (auto& [root, c] : by_root) {
    std::sort(c.tensors.begin(), c.tensors.end());
    c.tensors.erase(std::unique(c.tensors.begin(), c.tensors.end()), c.tensors.end());
    for (size_t t : c.tensors) {
      c.bytes += graph.tensors()[t].bytes();
      c.kv = c.kv || graph.tensors()[t].role == ir::TensorRole::kv_cache;
    }
    c.label = label_of(input, c.ops);
    out.push_back(std::move(c));
  }
  return out;  // by_root is keyed by each group's smallest op: graph order
}

double home_bytes_per_core(const std::vector<ResidencyCandidate>& candidates,
                           const std::vector<bool>& chosen, const Machine& machine) {
  double bytes = 0;
  for (size_t i = 0; i < candidates.size(); ++i)
    if (chosen[i]) bytes += candidates[i].bytes;
  return machine.cores > 0 ? bytes / static_cast<double>(machine.cores) : 0;
}

PlannerInput with_residency(const PlannerInput& input,
                            const std::vector<ResidencyCandidate>& candidates,
                            const std::vector<bool>& chosen) {
  PlannerInput out = input;
  const ir::Graph& graph = *input.graph;
  const auto cores = static_cast<double>(std::max<int64_t>(1, input.machine.cores));
  std::map<std::pair<int, double>, int> clone_of;  // (class, home bytes per core) -> class
  for (size_t i = 0; i < candidates.size(); ++i) {
    if (!chosen[i]) continue;
    for (int op : candidates[i].ops) {
      double home = 0;
      for (size_t t : touched_by(graph, graph.ops()[op], true).tensors)
        home += graph.tensors()[t].bytes() / cores;
      int old_class = input.classes.class_of[op];
      auto [it, fresh] = clone_of.try_emplace({old_class, home}, 0);
      if (fresh) {
        it->second = static_cast<int>(out.class_plans.size());
        out.class_plans.push_back(resident_plans(input.class_plans[old_class], op, home));
        out.classes.first_op.push_back(op);
        out.classes.count.push_back(0);
      }
      out.classes.class_of[op] = it->second;
      --out.classes.count[old_class];
      ++out.classes.count[it->second];
    }
  }
  double left = static_cast<double>(input.machine.sram_bytes_per_core) -
                home_bytes_per_core(candidates, chosen, input.machine);
  out.machine.sram_bytes_per_core = static_cast<int64_t>(std::max(0.0, std::floor(left)));
  return out;
}

double residency_cost(const PlannerInput& input, const std::vector<ResidencyCandidate>& candidates,
                      const std::vector<bool>& chosen, const PlannerOptions& options) {
  if (home_bytes_per_core(candidates, chosen, input.machine) >=
      static_cast<double>(input.machine.sram_bytes_per_core))
    return kNever;
  PlannerOptions quiet = options;
  quiet.progress = nullptr;
  auto planned = plan_design(with_residency(input, candidates, chosen), Design::elk_dyn, quiet);
  if (!planned) return kNever;
  if (!options.cost) return planned->latency_s;
  auto cost = options.cost(*planned);
  return cost ? *cost : kNever;
}

namespace {

// The automatic choice: prefixes of the ranking, then single toggles.
class Search {
 public:
  Search(const PlannerInput& input, const std::vector<ResidencyCandidate>& candidates,
         const PlannerOptions& options)
      : input_(input), candidates_(candidates), options_(options), rank_(candidates.size()) {
    std::iota(rank_.begin(), rank_.end(), 0);
    auto value = [&](size_t i) {
      return candidates[i].saves_s / std::max(1.0, candidates[i].bytes);
    };
    std::stable_sort(rank_.begin(), rank_.end(),
                     [&](size_t a, size_t b) { return value(a) > value(b); });
  }

  std::vector<bool> run() {
    size_t fitting = 0;  // the longest prefix whose homes leave SRAM
    double bytes = 0;
    for (size_t i : rank_) {
      bytes += candidates_[i].bytes;
      if (bytes / static_cast<double>(input_.machine.cores) >=
          static_cast<double>(input_.machine.sram_bytes_per_core))
        break;
      ++fitting;
    }
    if (candidates_.size() <= kEveryset) return every_set();
    std::vector<bool> set = prefix(best_prefix(fitting));
    if (candidates_.size() <= kLocalSearch) improve(set);
    return set;
  }

  int tried() const { return static_cast<int>(costs_.size()); }
  double cost(const std::vector<bool>& set) {
    auto [it, fresh] = costs_.try_emplace(set, 0);
    if (fresh) it->second = residency_cost(input_, candidates_, set, options_);
    return it->second;
  }

 private:
  static constexpr size_t kEveryset = 6;      // up to this many candidates: every set planned
  static constexpr size_t kGrid = 8;          // coarse prefixes
  static constexpr size_t kLocalSearch = 16;  // candidates searched around the prefix up to this
  static constexpr int kLocalPlans = 256;     // resident sets the local search may plan

  // The cheapest of every set (ties: the first in mask order, fewer residents first).
  std::vector<bool> every_set() {
    std::vector<bool> best(candidates_.size(), false);
    for (uint32_t mask = 1; mask < (1u << candidates_.size()); ++mask) {
      std::vector<bool> set(candidates_.size());
      for (size_t i = 0; i < set.size(); ++i) set[i] = ((mask >> i) & 1u) != 0;
      if (cost(set) < cost(best)) best = std::move(set);
    }
    return best;
  }

  // Moves to a cheaper neighbour while there is one: one or two candidates added or dropped (an
  // exchange of one for another among them; two that pay only together, as when both keep a
  // preload from overlapping the other's op), in rank order.
  void improve(std::vector<bool>& set) {
    for (bool improved = true; improved && tried() < kLocalPlans;) {
      improved = false;
      for (size_t a = 0; a < rank_.size() && !improved; ++a) {
        for (size_t b = a; b < rank_.size() && !improved; ++b) {
          size_t i = rank_[a], j = rank_[b];
          std::vector<bool> other = set;
          other[i] = !other[i];
          if (i != j) other[j] = !other[j];
          if (cost(other) < cost(set)) {
            set = std::move(other);
            improved = true;
          }
        }
      }
    }
  }

  std::vector<bool> prefix(size_t k) const {
    std::vector<bool> set(candidates_.size(), false);
    for (size_t j = 0; j < k; ++j) set[rank_[j]] = true;
    return set;
  }

  // The cheapest prefix length in [0, fitting]: a grid, then every length between the best grid
  // point's neighbours (bisected when they are far apart). Ties: the shorter prefix.
  size_t best_prefix(size_t fitting) {
    std::vector<size_t> grid;
    for (size_t j = 0; j <= kGrid; ++j) grid.push_back(fitting * j / kGrid);
    grid.erase(std::unique(grid.begin(), grid.end()), grid.end());
    auto at = [&](size_t k) { return cost(prefix(k)); };
    size_t g = 0;
    for (size_t j = 1; j < grid.size(); ++j)
      if (at(grid[j]) < at(grid[g])) g = j;
    size_t lo = g > 0 ? grid[g - 1] : grid[g], hi = g + 1 < grid.size() ? grid[g + 1] : grid[g];
    size_t best = grid[g];
    while (hi - lo > 2 * kGrid) {  // bisect toward the cheaper side
      size_t a = (lo + best) / 2, b = (best + hi + 1) / 2;
      if (at(a) < at(best)) {
        hi = best;
        best = a;
      } else if (at(b) < at(best)) {
        lo = best;
        best = b;
      } else {
        lo = a;
        hi = b;
      }
    }
    for (size_t k = lo; k <= hi; ++k)
      if (at(k) < at(best) || (at(k) == at(best) && k < best)) best = k;
    return best;
  }

  const PlannerInput& input_;
  const std::vector<ResidencyCandidate>& candidates_;
  const PlannerOptions& options_;
  std::vector<size_t> rank_;
  std::map<std::vector<bool>, double> costs_;
};

// What a plan records of the choice, each candidate with why it is where it is.
ResidencyRecord record_of(const PlannerInput& input, ResidencyMode mode,
                          const std::vector<ResidencyCandidate>& candidates,
                          const std::vector<bool>& chosen, int tried) {
  ResidencyRecord r;
  r.mode = to_string(mode);
  r.bytes_per_core = home_bytes_per_core(candidates, chosen, input.machine);
  r.choices_tried = tried;
  const double sram = static_cast<double>(input.machine.sram_bytes_per_core);
  for (size_t i = 0; i < candidates.size(); ++i) {
    const ResidencyCandidate& c = candidates[i];
    ResidentUnit u{c.label, c.kv ? "kv_cache" : "weights", c.bytes, c.saves_s, chosen[i], ""};
    double per_core = c.bytes / static_cast<double>(input.machine.cores);
    if (mode != ResidencyMode::automatic)
      u.why = fmt::format("--residency {}", to_string(mode));
    else if (chosen[i])
      u.why = fmt::format("saves {} per step for {} per core", format_seconds(c.saves_s),
                          format_bytes(per_core));
    else if (r.bytes_per_core + per_core >= sram)
      u.why = fmt::format("does not fit beside the resident homes ({} per core of {})",
                          format_bytes(r.bytes_per_core + per_core), format_bytes(sram));
    else
      u.why = "the step was no faster with it resident (its SRAM cost the other ops more)";
    r.units.push_back(std::move(u));
  }
  return r;
}

std::string homes_take(ResidencyMode mode, double home_bytes_per_core, const Machine& machine) {
  return fmt::format("--residency {}: the homes take {} of each core's {} of SRAM", to_string(mode),
                     format_bytes(home_bytes_per_core),
                     format_bytes(static_cast<double>(machine.sram_bytes_per_core)));
}

}  // namespace

Status check_every_home_fits(const ir::Graph& graph, const Machine& machine, ResidencyMode mode) {
  if (mode == ResidencyMode::off || mode == ResidencyMode::automatic) return Done{};
  std::set<size_t> homes;  // every tensor an eligible op touches, once
  for (const ir::Op& op : graph.ops())
    if (Touched t = touched_by(graph, op, mode == ResidencyMode::weights_kv); t.eligible)
      homes.insert(t.tensors.begin(), t.tensors.end());
  double bytes = 0;
  for (size_t t : homes) bytes += graph.tensors()[t].bytes();
  const double per_core = bytes / static_cast<double>(std::max<int64_t>(1, machine.cores));
  if (per_core < static_cast<double>(machine.sram_bytes_per_core)) return Done{};
  return input_error(homes_take(mode, per_core, machine) +
                     "; --residency auto keeps the ones that fit and pay");
}

Result<ResidencyChoice> choose_residency(const PlannerInput& input, ResidencyMode mode,
                                         const PlannerOptions& options) {
  ResidencyChoice choice;
  choice.record.mode = to_string(mode);
  if (mode == ResidencyMode::off) return choice;
  choice.candidates = residency_candidates(input, mode != ResidencyMode::weights);
  int tried = 0;
  if (mode == ResidencyMode::automatic) {
    Search search(input, choice.candidates, options);
    choice.chosen = search.run();
    tried = search.tried();
  } else {
    choice.chosen.assign(choice.candidates.size(), true);
    if (Status fits = check_every_home_fits(*input.graph, input.machine, mode); !fits)
      return fits.error();
    std::string what = homes_take(
        mode, home_bytes_per_core(choice.candidates, choice.chosen, input.machine), input.machine);
    PlannerOptions quiet = options;
    quiet.progress = nullptr;
    auto planned = plan_design(with_residency(input, choice.candidates, choice.chosen),
                               Design::elk_dyn, quiet);
    if (!planned)
      return input_error(what + ", and the rest does not hold the model: " +
                         planned.error().message + "; --residency auto keeps the ones that pay");
    tried = 1;
  }
  choice.record = record_of(input, mode, choice.candidates, choice.chosen, tried);
  return choice;
}

void record_residency(DesignResult& result, const ResidencyChoice& choice) {
  result.residency = choice.record;
  for (OpSchedule& op : result.ops) op.sram_bytes_per_core += choice.record.bytes_per_core;
}

}  // namespace tessera::planner
