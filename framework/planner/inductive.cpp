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
  Allocation allocation;  // chosen[0]: the op's plan; then forced_[op], then the window's preloads
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
  // Windows of `op` are tried narrowest first, each one preload wider than the last: open_op
  // lists the residents every window has, try_window adds the window's last preload to them.
  void open_op(int op);
  // Fills `cand` (its storage reused: the search tries millions of windows).
  void try_window(int op, int window, Candidate& cand);
  void add_resident(int j, bool in_flight);
  // items_[0] at `busy` with times from option `from` up (fill_exec_item), unless it has them.
  void fill_exec(int op, double busy, int from);
  // The allocation of the op's execution and the window's residents: with the op's top two
  // options only, and again with all of them when the greedy moved the op below its start.
  void allocate_window(int op, double busy, Candidate& cand);
  void commit(int op, const Candidate& best);

  const CostContext& c_;
  Decisions d_;
  int max_k_;
  std::vector<int> done_;
  std::vector<std::vector<int>> forced_;  // per op: later ops whose preload it needs issued first
  std::vector<double> load_start_s_, load_end_s_, exec_start_s_;
  int lowest_timed_;
  double penalty_s_ = 0;  // distribution time added by shrinking preload plans
  // Of the op being scheduled: the allocation's items (0: the op's own, then its residents), the
  // preloads in flight beside it, their network and load seconds, its traffic's share of its time.
  std::vector<AllocationItem> items_;
  size_t used_items_ = 0;
  std::vector<LoadInterval> in_flight_;
  double noc_s_ = 0, load_s_ = 0, comm_share_ = 0;
  // items_[0] holds the op's options at this network-busy fraction (NaN: none yet for this op),
  // with times from option exec_item_from_ up; a window that leaves the fraction unchanged (none
  // in flight, or the network saturated) reuses them.
  double exec_item_busy_ = std::numeric_limits<double>::quiet_NaN();
  int exec_item_from_ = 0;
  Candidate best_, cand_;  // scratch of run: the best window so far, the one tried
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

void Induction::open_op(int op) {
  in_flight_.clear();
  noc_s_ = load_s_ = 0;
  const auto& fastest = c_.exec_costs(op).back();
  comm_share_ = fastest.base_s > 0 ? fastest.comm.alone_s() / fastest.base_s : 0;
  used_items_ = 1;
  if (items_.empty()) items_.resize(1);
  exec_item_busy_ = std::numeric_limits<double>::quiet_NaN();
  for (int j : forced_[op]) add_resident(j, false);
}

void Induction::add_resident(int j, bool in_flight) {
  if (items_.size() <= used_items_) items_.resize(used_items_ + 1);
  fill_preload_item(items_[used_items_++], c_, j, d_.exec_plan[j], d_.preload_plan[j], in_flight,
                    comm_share_);
}

void Induction::fill_exec(int op, double busy, int from) {
  if (busy == exec_item_busy_ && from >= exec_item_from_) return;
  fill_exec_item(items_[0], c_, op, busy, from);
  exec_item_busy_ = busy;
  exec_item_from_ = from;
}

void Induction::allocate_window(int op, double busy, Candidate& cand) {
  const int top = static_cast<int>(c_.exec_costs(op).size()) - 1;
  fill_exec(op, busy, std::max(0, top - 1));
  allocate(items_, used_items_, c_.sram_bytes(), cand.allocation);
  if (cand.allocation.chosen[0] >= top) return;
  fill_exec(op, busy, 0);
  allocate(items_, used_items_, c_.sram_bytes(), cand.allocation);
}

void Induction::try_window(int op, int window, Candidate& cand) {
  cand.window = window;
  cand.start_s = 0;
  cand.score_s = kNever;
  if (window > done_[op]) {
    int j = d_.order[window];
    const auto& cost = c_.preload_costs(j, d_.exec_plan[j])[d_.preload_plan[j]];
    in_flight_.push_back(
        {load_start_s_[window], load_end_s_[window], cost.noc_s, cost.sram_port_s});
    noc_s_ += cost.noc_s;
    load_s_ += load_end_s_[window] - load_start_s_[window];
    add_resident(j, true);
  }
  double network_busy = load_s_ > 0 ? std::min(1.0, noc_s_ / load_s_) : 0;
  std::vector<AllocationItem>& items = items_;
  const size_t used = used_items_;
  allocate_window(op, network_busy, cand);
  if (!cand.allocation.feasible) return;
  double shrink_s = 0;  // without steps every term is t - t = 0
  for (size_t r = 1; cand.allocation.steps > 0 && r < used; ++r)
    shrink_s += items[r].options[cand.allocation.chosen[r]].time_s -
                items[r].options[items[r].start].time_s;
  double end_s = 0;
  if (op + 1 < c_.ops()) end_s = exec_start_s_[op + 1];
  if (window + 1 < static_cast<int>(d_.order.size()))
    end_s = std::min(end_s, load_start_s_[window + 1]);
  const auto& chosen = c_.exec_costs(op)[cand.allocation.chosen[0]];
  double base_s = chosen.base_s;
  cand.start_s =
      end_s - base_s - c_.execution_contention_s(end_s - base_s, base_s, chosen.comm, in_flight_);
  cand.score_s = -cand.start_s + penalty_s_ + shrink_s;
}

void Induction::commit(int op, const Candidate& best) {
  d_.window[op] = best.window;
  d_.exec_plan[op] = best.allocation.chosen[0];
  if (c_.has_load(op)) d_.preload_plan[op] = c_.fastest_preload(op, d_.exec_plan[op]);
  size_t r = 1;
  for (int j : forced_[op]) d_.preload_plan[j] = best.allocation.chosen[r++];
  for (int m = done_[op] + 1; m <= best.window; ++m)
    d_.preload_plan[d_.order[m]] = best.allocation.chosen[r++];
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
    open_op(op);
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
