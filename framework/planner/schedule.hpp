// What every design decides, and the costs the deciding reads. A design (planner.cpp,
// baselines.cpp, inductive.cpp) fills Decisions; evaluate_timeline (timeline.cpp) turns them into
// times, the breakdown and utilisations, so all five designs are measured by the same arithmetic.
//
// The execution model (Elk §2.2, §4.5): ops execute one after another in graph order;
// preloads run one after another in the preload order; an op's preload ends before it executes.
// window[i] is the last preload position that may be issued before op i ends: the preloads at
// positions in (done(i), window[i]] (done(i): the last position an op <= i needs) overlap op i and
// hold their preload space beside its execution space; the next one waits until op i ends. Windows
// never decrease along the graph (a preload issued during op i stays resident during op i + 1).
//
// Fixed costs (DispatchCosts, plan.hpp; none by default, which leaves every time as above): an op
// cannot start before its command arrives, whatever is preloaded. Under `host` the host prepares
// op i's command, taking command_s, once op i - 1 has ended (op 0's from the step's start), so the
// commands' time adds to the ops'; under `traced` and `host-async` the commands are issued in
// program order from the step's start, each taking command_s, so op i's arrives at
// (i + 1) × command_s. Op i starts at max(its usual start, that arrival) and then pays launch_s
// before distribute_data, serially: the launch extends the op and hides under no preload.
// Preloads wait for no command: in Elk's model a preload is issued by the device's own program
// (codegen's per-op preload streams, started as the previous op's window allows), so no host
// command gates it; the vendor design (TimelineMode::streamed) reads an op's weights inside the
// op, after its command and launch. A `host-async` host faster than the step runs ahead (its
// commands wait in the queue) and costs only the launches; a slower one paces the ops; a `host`
// host always adds its commands. Breakdown::dispatch_s is the wait beyond each op's data plus its
// launch.
#pragma once

#include <vector>

#include "framework/chip/machine.hpp"
#include "framework/chip_spec/conventions.hpp"
#include "framework/ir/repeats.hpp"
#include "framework/planner/op_plans.hpp"
#include "framework/planner/plan.hpp"

namespace tessera::planner {

// Traffic of an execution that runs at one time: alone, and beside a preload in flight at
// pricing.hpp's kPreloadBusy points (all 0: not priced on the chip's routes).
struct CommPhase {
  double alone_s = 0;
  BesideSeconds beside_s{};
  bool priced() const { return beside_s != BesideSeconds{}; }
  // Seconds the traffic takes beyond alone_s while preloads keep their network links `busy`
  // (0..1) of the time: from the links the traffic shares with them when priced on the routes;
  // else `busy` of alone_s (the network as one shared resource).
  double extra_s(double busy) const { return extra_s(busy_point(busy)); }
  double extra_s(const BusyPoint& at) const;
};

// An execution's own network traffic, where the simulator runs it (sim/engine.cpp: distribute,
// compute, then the shifts and the combine tree, then the sync): distribute_data as the op starts
// (head), the shifts ending `tail_end_s` (the sync) before the op ends (tail). A preload in flight
// slows each only while it overlaps it.
struct Comm {
  CommPhase head, tail;
  double tail_end_s = 0;
  double alone_s() const { return head.alone_s + tail.alone_s; }
  double extra_s(double busy) const { return extra_s(busy_point(busy)); }
  double extra_s(const BusyPoint& at) const { return head.extra_s(at) + tail.extra_s(at); }
};
Comm comm_of(const ExecPlan& exec, const PreloadPlan& preload);

// Network and SRAM-port contention of one execution against the preloads in flight beside it,
// over [start_s, start_s + base_s]: its own traffic `comm` and the preloads' network seconds
// falling inside must both cross the network in that window; on the links they share, each phase
// of its traffic runs slower while a preload is in flight beside it, by how busy that preload
// keeps the network (CommPhase::extra_s) and never below 1 - busy of its own pace, going on
// beside the next preload if it outlasts one (the larger of the two charges is taken, both
// describing the same sharing); every preload byte landing on a core steals its SRAM port.
// `loads` run one after another: in order, none overlapping the next.
struct LoadInterval {
  double start_s = 0, end_s = 0;
  double noc_s = 0;        // network seconds of the whole preload
  double sram_port_s = 0;  // SRAM-port seconds per core of the whole preload
};
double contention_s(double start_s, double base_s, const Comm& comm,
                    const std::vector<LoadInterval>& loads);

class HandOffTimes;  // handoff_times.hpp

// Per-op views of the planner's input, and the cost formulas shared by the search and the
// timeline. Borrows the OpPlans; the caller keeps them alive.
class CostContext {
 public:
  // `preload_network_share` in (0, 1]: the part of the network a preload may use; its network
  // time is divided by it (PlannerOptions::preload_network_shares). `contention`: whether the
  // preloads in flight slow an execution (PlannerOptions::execution_contentions).
  // `dispatch`: each op's fixed costs (the file comment's "Fixed costs").
  CostContext(const std::vector<int>& class_of, const std::vector<OpPlans>& class_plans,
              const Machine& machine, double preload_network_share = 1,
              ExecutionContention contention = ExecutionContention::charged,
              DispatchCosts dispatch = {});

  int ops() const { return static_cast<int>(class_of_.size()); }
  const Machine& machine() const { return machine_; }
  double preload_network_share() const { return preload_network_share_; }
  ExecutionContention contention() const { return contention_; }
  const DispatchCosts& dispatch() const { return dispatch_; }
  // What evaluate_timeline times each op's hand-off with (null: none); borrowed.
  const HandOffTimes* handoffs() const { return handoffs_; }
  void set_handoffs(const HandOffTimes* handoffs) { handoffs_ = handoffs; }
  // Per op, the planned seconds of the collectives that follow its execution (collective_op.hpp):
  // the op ends when they do, the preloads go on meanwhile. Empty: none.
  const std::vector<double>& collective_after_s() const { return collective_after_s_; }
  void set_collective_after_s(std::vector<double> seconds) {
    collective_after_s_ = std::move(seconds);
  }
  double collective_after_s(int op) const {
    return collective_after_s_.empty() ? 0 : collective_after_s_[op];
  }
  double sram_bytes() const { return static_cast<double>(machine_.sram_bytes_per_core); }
  const OpPlans& plans(int op) const { return (*class_plans_)[class_of_[op]]; }
  int class_of(int op) const { return class_of_[op]; }
  // The op reads HBM data that a preload must bring on chip.
  bool has_load(int op) const;
  // HBM time of the op's reads at the sustained bandwidth.
  double hbm_s(int op) const;
  // Time the network needs to put a preload's bytes on the cores: its price on the chip's routes
  // when it has one, else at the Machine's preload rate per core; over the preload's share.
  double noc_s(const PreloadPlan& plan) const;
  // A preload's time: max(HBM time, network time) (Elk §4.2).
  double load_s(int op, const PreloadPlan& plan) const;
  // Seconds one core's SRAM port is busy taking in a preload's bytes (0: not modelled).
  double sram_port_s(const PreloadPlan& plan) const;
  // The preload plan of exec plan `exec` that adds the least time on its own (distribution plus
  // network time beyond the HBM time); ties: the larger plan. -1 for an op without a load.
  int fastest_preload(int op, int exec) const { return exec_costs(op)[exec].fastest_preload; }

  // Per exec plan, what the search reads many times, computed once per class.
  struct ExecCost {
    double bytes_per_core = 0;
    double base_s = 0;  // execution plus the fastest preload plan's distribution
    Comm comm;          // the part of base_s that crosses the network (shifts, distribution)
    int fastest_preload = -1;
  };
  const std::vector<ExecCost>& exec_costs(int op) const { return exec_costs_[class_of_[op]]; }

  // Per preload plan of one exec plan: its bytes, the time it adds when it is not in flight
  // beside an execution (distribution + network time beyond the HBM time), its network time and
  // its SRAM-port time.
  struct PreloadCost {
    double bytes_per_core = 0, resting_s = 0, noc_s = 0, sram_port_s = 0;
  };
  const std::vector<PreloadCost>& preload_costs(int op, int exec) const {
    return preload_costs_[class_of_[op]][exec];
  }

  // contention_s below, or 0 when contention() is ignored.
  double execution_contention_s(double start_s, double base_s, const Comm& comm,
                                const std::vector<LoadInterval>& loads) const;
  // Comm::extra_s, or 0 when contention() is ignored.
  double execution_extra_s(const Comm& comm, const BusyPoint& at) const;

 private:
  int find_fastest_preload(const OpPlans& plans, int exec) const;

  std::vector<int> class_of_;
  const std::vector<OpPlans>* class_plans_;
  Machine machine_;
  double preload_network_share_ = 1;
  ExecutionContention contention_ = ExecutionContention::charged;
  DispatchCosts dispatch_;
  const HandOffTimes* handoffs_ = nullptr;
  std::vector<double> collective_after_s_;
  std::vector<std::vector<ExecCost>> exec_costs_;                     // per class, per exec plan
  std::vector<std::vector<std::vector<PreloadCost>>> preload_costs_;  // per class, exec, preload
};

// One design's choices. Plan indices point into plans(op).exec and plans(op).preload[exec].
struct Decisions {
  std::vector<int> order;         // preload order: ops with a load
  std::vector<int> position;      // per op: index in `order`, -1 for ops without a load
  std::vector<int> window;        // per op: see the file comment
  std::vector<int> exec_plan;     // per op
  std::vector<int> preload_plan;  // per op, -1 for ops without a load
};

// Program order of the ops with loads, with positions; windows and plans left empty.
Decisions program_order(const CostContext& costs);
// done(i) per op: the largest preload position any op <= i needs (-1 before the first).
std::vector<int> needed_positions(const Decisions& decisions);

enum class TimelineMode {
  shared,    // preload and execution share the network and SRAM (Elk's designs but Ideal)
  separate,  // Ideal: own preload network, no SRAM limit on preloads, loads at HBM speed
  // The vendor design's streamed stack: windows are done(i) (nothing preloaded ahead); op i
  // starts when op i - 1 has ended (and its command has come, "Fixed costs"), its kernels read
  // its preload from their launch on (once the previous preload has ended) into its execution
  // space, and its distribution and compute end no earlier than the
  // preload's last byte lands; its shifts and sync follow. The preload in flight beside it
  // contends with it as in `shared`.
  streamed,
};

// The timed plan of `decisions` (op names from `graph`; without one, "op<i>"): DesignResult with
// ops, order, latency, breakdown and utilisations (design, orders_tried and search_s left for the
// caller). Each op's hand-off (costs.handoffs()) runs after its launch, before distribute_data;
// its collectives (costs.collective_after_s()) after its work, inside its execute interval;
// collective_exposed_s by timing the same decisions again without them.
DesignResult evaluate_timeline(const ir::Graph* graph, const CostContext& costs,
                               const Decisions& decisions, TimelineMode mode);
// evaluate_timeline's latency_s alone, without the per-op schedules (the order search).
double timeline_latency_s(const CostContext& costs, const Decisions& decisions, TimelineMode mode);

}  // namespace tessera::planner
