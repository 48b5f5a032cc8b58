// The backward induction of inductive.hpp.
#include "framework/planner/inductive.hpp"

#include <algorithm>
#include <limits>

#include "framework/planner/allocation.hpp"

namespace tessera::planner {

namespace {

constexpr double kNever = std::numeric_limits<double>::infinity();

struct Candidate {
  int window = -1;
  Allocation allocation;
  std::vector<int> residents;  // ops of allocation.chosen[1..]
  double start_s = 0;
  double score_s = kNever;
};

class Induction {
 public:
  Induction(const CostContext& costs, Decisions order, int max_k)
      : c_(costs),
        d_(std::move(order)),
        max_k_(max_k),
        done_(needed_positions(d_)),
        load_start_s_(d_.order.size(), 0),
        load_end_s_(d_.order.size(), 0),
        exec_start_s_(costs.ops(), 0),
        lowest_timed_(static_cast<int>(d_.order.size())) {
    int n = costs.ops();
    d_.window.assign(n, -1);
    d_.exec_plan.assign(n, -1);
    d_.preload_plan.assign(n, -1);
    find_forced_residents();
  }

  InductiveResult run();

 private:
  void find_forced_residents();
  void time_loads_above(int position);
  // Fills `cand` (its storage reused: the search tries millions of windows).
  void try_window(int op, int window, Candidate& cand);
  void commit(int op, const Candidate& best);

  const CostContext& c_;
  Decisions d_;
  int max_k_;
  std::vector<int> done_;
  std::vector<std::vector<int>> forced_;  // per op: later ops whose preload it needs issued first
  std::vector<double> load_start_s_, load_end_s_, exec_start_s_;
  int lowest_timed_;
  double penalty_s_ = 0;                 // distribution time added by shrinking preload plans
  std::vector<AllocationItem> items_;    // scratch reused by every allocation
  std::vector<LoadInterval> in_flight_;  // scratch of try_window
  Candidate best_, cand_;                // scratch of run: the best window so far, the one tried
};

// A permuted order can need a later op's preload before an earlier op runs; that preload then
// sits beside the earlier op whatever k is.
void Induction::find_forced_residents() {
  forced_.resize(c_.ops());
  std::vector<int> pending;
  int issued = 0;
  for (int op = 0; op < c_.ops(); ++op) {
    for (; issued <= done_[op]; ++issued) pending.push_back(d_.order[issued]);
    std::erase(pending, op);
    forced_[op] = pending;
  }
}

void Induction::time_loads_above(int position) {
  for (int m = lowest_timed_ - 1; m > position; --m) {
    int op = d_.order[m];
    double end_s = exec_start_s_[op];
    if (m + 1 < static_cast<int>(d_.order.size())) end_s = std::min(end_s, load_start_s_[m + 1]);
    const PreloadPlan& plan = c_.plans(op).preload[d_.exec_plan[op]][d_.preload_plan[op]];
    load_end_s_[m] = end_s;
    load_start_s_[m] = end_s - c_.load_s(op, plan);
  }
  lowest_timed_ = std::min(lowest_timed_, position + 1);
}

void Induction::try_window(int op, int window, Candidate& cand) {
  cand.window = window;
  cand.residents.clear();
  cand.start_s = 0;
  cand.score_s = kNever;
  std::vector<LoadInterval>& in_flight = in_flight_;
  in_flight.clear();
  double noc_s = 0, load_s = 0;
  for (int m = done_[op] + 1; m <= window; ++m) {
    int j = d_.order[m];
    const auto& cost = c_.preload_costs(j, d_.exec_plan[j])[d_.preload_plan[j]];
    in_flight.push_back({load_start_s_[m], load_end_s_[m], cost.noc_s, cost.sram_port_s});
    noc_s += cost.noc_s;
    load_s += load_end_s_[m] - load_start_s_[m];
  }
  double network_busy = load_s > 0 ? std::min(1.0, noc_s / load_s) : 0;
  const auto& fastest = c_.exec_costs(op).back();
  double comm_share = fastest.base_s > 0 ? fastest.comm.alone_s / fastest.base_s : 0;
  std::vector<AllocationItem>& items = items_;
  size_t used = 1;
  if (items.empty()) items.resize(1);
  fill_exec_item(items[0], c_, op, network_busy);
  auto add_resident = [&](int j, bool flying) {
    cand.residents.push_back(j);
    if (items.size() <= used) items.resize(used + 1);
    fill_preload_item(items[used++], c_, j, d_.exec_plan[j], d_.preload_plan[j], flying,
                      comm_share);
  };
  for (int j : forced_[op]) add_resident(j, false);
  for (int m = done_[op] + 1; m <= window; ++m) add_resident(d_.order[m], true);
  allocate(items, used, c_.sram_bytes(), cand.allocation);
  if (!cand.allocation.feasible) return;
  double shrink_s = 0;
  for (size_t r = 1; r < used; ++r)
    shrink_s += items[r].options[cand.allocation.chosen[r]].time_s -
                items[r].options[items[r].start].time_s;
  double end_s = 0;
  if (op + 1 < c_.ops()) end_s = exec_start_s_[op + 1];
  if (window + 1 < static_cast<int>(d_.order.size()))
    end_s = std::min(end_s, load_start_s_[window + 1]);
  const auto& chosen = c_.exec_costs(op)[cand.allocation.chosen[0]];
  double base_s = chosen.base_s;
  cand.start_s = end_s - base_s - contention_s(end_s - base_s, base_s, chosen.comm, in_flight);
  cand.score_s = -cand.start_s + penalty_s_ + shrink_s;
}

void Induction::commit(int op, const Candidate& best) {
  d_.window[op] = best.window;
  d_.exec_plan[op] = best.allocation.chosen[0];
  if (c_.has_load(op)) d_.preload_plan[op] = c_.fastest_preload(op, d_.exec_plan[op]);
  for (size_t r = 0; r < best.residents.size(); ++r)
    d_.preload_plan[best.residents[r]] = best.allocation.chosen[r + 1];
  exec_start_s_[op] = best.start_s;
  penalty_s_ = best.score_s + best.start_s;
}

InductiveResult Induction::run() {
  InductiveResult result;
  for (int op = c_.ops() - 1; op >= 0; --op) {
    time_loads_above(done_[op]);
    int widest = op + 1 < c_.ops() ? d_.window[op + 1] : done_[op];
    widest = std::min(widest, done_[op] + max_k_);
    Candidate& best = best_;
    Candidate& cand = cand_;
    best.score_s = kNever;
    for (int window = done_[op]; window <= widest; ++window) {
      try_window(op, window, cand);
      // A wider window only adds residents, so nothing wider fits either.
      if (!cand.allocation.feasible) {
        if (window == done_[op]) {
          result.failed_op = op;
          result.reason = cand.allocation.reason();
        }
        break;
      }
      if (cand.score_s <= best.score_s) std::swap(best, cand);
    }
    if (best.score_s == kNever) return result;
    commit(op, best);
  }
  result.feasible = true;
  result.estimate_s = penalty_s_ - (c_.ops() > 0 ? exec_start_s_[0] : 0);
  result.decisions = std::move(d_);
  return result;
}

}  // namespace

InductiveResult schedule_inductively(const CostContext& costs, Decisions order, int max_k) {
  return Induction(costs, std::move(order), max_k).run();
}

}  // namespace tessera::planner
