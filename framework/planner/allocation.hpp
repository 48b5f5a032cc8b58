// Cost-aware on-chip memory allocation (Elk §4.3): one executing op and the preloads resident
// beside it share a core's SRAM. Each involved op offers a Pareto list of (space, time) options;
// starting from every op's starting (fastest) option, while the total space exceeds the SRAM, the
// op whose next-smaller option frees the most bytes per second of time added takes it.
#pragma once

#include <string>
#include <vector>

#include "framework/planner/schedule.hpp"

namespace tessera::planner {

struct AllocationOption {
  double bytes_per_core = 0;
  double time_s = 0;  // what this option costs the step (execution, distribution, contention)
};

struct AllocationItem {
  int op = -1;
  std::vector<AllocationOption> options;  // bytes ascending
  int start = 0;                          // the option the search starts from (the fastest)
};

struct Allocation {
  bool feasible = false;
  std::vector<int> chosen;  // per item: index into its options
  double bytes_per_core = 0;
  double time_s = 0;  // sum of the chosen options' times
  int steps = 0;      // options given up
  double capacity_bytes = 0;
  // When infeasible: how many bytes were needed and missing. Written only when asked: the search
  // meets an infeasible allocation at the end of almost every window loop and needs no text.
  std::string reason() const;
};

// Greedy over `items`: each step moves the item whose next option down has the largest
// Δbytes/Δtime (an option no slower counts as infinitely good; ties: the item listed first).
// Infeasible when every item is at its smallest option and the total still exceeds
// `capacity_bytes`.
Allocation allocate(const std::vector<AllocationItem>& items, double capacity_bytes);
// The same over the first `count` items only (callers that reuse a scratch vector).
Allocation allocate(const std::vector<AllocationItem>& items, size_t count, double capacity_bytes);
// The same into `out`, reusing its storage.
void allocate(const std::vector<AllocationItem>& items, size_t count, double capacity_bytes,
              Allocation& out);

// The options of an executing op: each exec plan's time plus its fastest distribution, its own
// traffic slowed by preloads that keep the network `network_busy` (0..1) busy (Comm::extra_s).
// Fills `item` in place (the search calls this millions of times; the storage is reused): every
// option's bytes, and the times of options `from` and up (below: NaN). allocate reads an item's
// times only from its start down to one below the option it ends at, so a caller whose allocation
// leaves the op at its start needs only the top two (the order search: nearly every window).
void fill_exec_item(AllocationItem& item, const CostContext& costs, int op, double network_busy,
                    int from = 0);
// The options of a resident preload of `op` (its exec plan already chosen), capped at `cap`: its
// distribution time when it later executes and its network time beyond the HBM time; while
// `in_flight` beside an execution whose time is `exec_comm_share` network traffic, also the
// network time it takes from that execution and the SRAM-port time its bytes steal.
void fill_preload_item(AllocationItem& item, const CostContext& costs, int op, int exec_plan,
                       int cap, bool in_flight, double exec_comm_share);

}  // namespace tessera::planner
