// The Elk planner (Elk §4.2–§4.4, §6.1): for one design, choose per op the preload count, the
// execution and preload plans and the preload order that minimise one step's latency. Beside
// Elk's five designs, `vendor` plans the chip's own software stack as its chip file names it
// (PlannerOptions::vendor; baselines.hpp, vendor_decisions).
//
// Inputs are per-class plans (partition/) and the Machine; nothing here calls a plugin. Each
// design is a pure function of its inputs: identical inputs give identical plans on any thread
// count. An op with no plan that fits SRAM was already reported by the partitioner; a design that
// cannot place the model at all (e.g. Static with no split that fits every op) returns an input
// Error naming the op and the space it needs.
//
// Threads and lifetimes: plan_design runs on the calling thread, all but Elk-Full's screening of
// preload orders, which runs in a oneTBB arena of PlannerOptions::threads threads, the caller
// among them (planner.cpp, screen_orders). It only reads `input` and `options`, borrowed for the
// call (input.graph too), keeps no state between calls and returns a DesignResult that owns its
// data, so calls may run at once, on one input too (but calls sharing a callback may call it at
// once: each call has its own lock). parse_design and design_names are pure.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "framework/chip_spec/conventions.hpp"
#include "framework/common/status.hpp"
#include "framework/ir/graph.hpp"
#include "framework/ir/repeats.hpp"
#include "framework/planner/plan.hpp"
#include "framework/planner/pricing.hpp"

namespace tessera::planner {

struct PlannerInput {
  const ir::Graph* graph = nullptr;
  ir::OpClasses classes;                     // class_of per op
  std::vector<OpPlans> class_plans;          // per class
  std::optional<ir::RepeatedLayers> layers;  // preload orders are permuted within one layer
  Machine machine;
  // What each op pays outside the overlap (schedule.hpp, "Fixed costs"); none: nothing.
  DispatchCosts dispatch;
  // Per op, the first op of its unit: the slices of a split op move together in Elk-Full's
  // preload orders (preload_orders.hpp). Empty: every op is a unit of its own.
  std::vector<int> unit_of;
  // Prices the activations handed between chips on the chip's routes (handoff_times.hpp); null:
  // at the Machine's chip-link rate. Borrowed.
  const NetworkPricer* pricer = nullptr;
  // The chip-to-chip collectives that follow ops (a parallel strategy's stage; collective_op.hpp),
  // in execution order; planned as the op's wait (schedule.hpp), recorded in its OpSchedule.
  std::vector<CollectiveOp> collectives;
};

struct PlannerOptions {
  int max_preload_ops = 0;   // K; 0: the ops of one repeated layer (the artifact's #ops/#layers)
  int max_displacement = 4;  // Elk-Full: how far a preload may move from program order
  unsigned threads = 0;      // 0: all hardware threads
  // Called now and then on long searches with (done, total) units of work; may be empty. Only
  // Elk-Full's screening calls it (at every 64th order screened and the last), from its threads
  // (any of them, the caller included), one call at a time under a lock, `done` rising from call
  // to call (a count overtaken by a later one is dropped) up to the last, (total, total). An
  // exception it throws leaves plan_design as that exception (oneTBB rethrows it).
  std::function<void(double done, double total)> progress;
  // What the search minimises among the schedules it compares (Elk-Full's finalist orders,
  // Static's splits, and the simpler schedules Elk-Dyn and Elk-Full fall back to): a complete
  // schedule's cost, lower is better. Empty: its latency (Elk's objective). Screening ranks the
  // preload orders by latency either way (energy and EDP objectives: docs/energy.md).
  // Called on the calling thread only, one schedule at a time: it need not be thread-safe.
  std::function<Result<double>(const DesignResult&)> cost;
  // The shares of the network a preload may use (its network time over the share: the Elk
  // artifact's LOAD_NOC_THRESHOLD, chip_spec/conventions.hpp); several: the design is planned with
  // each and keeps the cheapest schedule (ties: the first). Empty: 1.
  std::vector<double> preload_network_shares;
  // Whether preloads in flight slow an execution (chip_spec/conventions.hpp); several: the design
  // is planned with each (and each share) and keeps the cheapest. Empty: charged.
  std::vector<ExecutionContention> execution_contentions;
  // How Static is coded (chip_spec/conventions.hpp).
  StaticBaseline static_baseline = StaticBaseline::tessera;
  // What the vendor design plans (chip_spec/conventions.hpp); none: Design::vendor is an input
  // error saying the chip names no stack.
  VendorStack vendor = VendorStack::none;
  // The rate, all chips together, at which a streamed vendor stack's ops read off-chip memory
  // (the driver gives a prefill step the chip file's vendor_prefill_bytes_per_s); 0: the memory's
  // own rate. The vendor design's loads are timed at the lower of the two, and its
  // DesignResult::stream_bytes_per_s records it for the simulator.
  double vendor_stream_bytes_per_s = 0;
};

Result<DesignResult> plan_design(const PlannerInput& input, Design design,
                                 const PlannerOptions& options);

// nullopt for an unknown name; design_names() lists the valid ones for error messages.
std::optional<Design> parse_design(const std::string& name);
std::string design_names();

}  // namespace tessera::planner
