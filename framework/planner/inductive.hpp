// Inductive preload scheduling (Elk §4.2) for one preload order: from the last op backwards,
// for each op and each preload count k <= K (preloads overlapping it beyond those it needs), run
// the cost-aware allocation (allocation.hpp) over the op and its resident preloads, estimate the
// time from this op's start to the end, and keep the best k (ties: the larger, which leaves the
// earlier ops more freedom, since windows never decrease). O(N·K)
// allocations per order.
//
// Times run backwards from the end of the last op (t = 0). An op ends when the next op starts or
// when the first preload its window excludes must start, whichever is earlier (that preload lands
// in the space the op frees). A preload ends when its op starts or when the next preload starts;
// it takes max(HBM time, network time) with the plan chosen so far. Preload plans start at their
// fastest and only shrink when an earlier op's allocation needs the space; the time a shrink adds
// to the op's later distribution is carried in the estimate. The figures are estimates that
// guide the choice; evaluate_timeline (schedule.hpp) gives the plan's real times.
#pragma once

#include <string>

#include "framework/planner/schedule.hpp"

namespace tessera::planner {

struct InductiveResult {
  bool feasible = false;
  int failed_op = -1;     // when infeasible: the op no preload count could place
  std::string reason;     // and why (the bytes it lacked)
  Decisions decisions;    // windows and plans filled in
  double estimate_s = 0;  // the induction's own estimate of the latency
};

// `order` holds the preload order and positions (program_order() or a permutation); `max_k` >= 0.
InductiveResult schedule_inductively(const CostContext& costs, Decisions order, int max_k);

}  // namespace tessera::planner
