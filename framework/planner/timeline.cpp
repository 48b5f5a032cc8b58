// Decisions → times (schedule.hpp): a forward pass in graph order that times each preload when
// an execution first needs it, then the breakdown and utilisations.
#include <algorithm>
#include <string>

#include "framework/planner/handoff_times.hpp"
#include "framework/planner/schedule.hpp"

namespace tessera::planner {

namespace {

struct TimedLoad {
  LoadInterval interval;
  double noc_only_s = 0;  // the preload's network time (Ideal moves it to its own network)
};

class Timeline {
 public:
  // `collectives`: whether the ops wait for their collectives (without: what they expose).
  Timeline(const ir::Graph* graph, const CostContext& costs, const Decisions& decisions,
           TimelineMode mode, bool collectives = true)
      : graph_(graph),
        costs_(costs),
        d_(decisions),
        mode_(mode),
        collectives_(collectives),
        done_(needed_positions(decisions)),
        loads_(decisions.order.size()),
        exec_end_s_(costs.ops(), 0) {}

  DesignResult run();
  double latency_s() {
    if (costs_.handoffs() != nullptr) handoff_ = costs_.handoffs()->of(costs_, d_);
    double end_s = 0;
    for (int op = 0; op < costs_.ops(); ++op) end_s = execute(op, nullptr);
    return end_s;
  }

 private:
  void time_loads_through(int last_position, int executing_op);
  // Times op `op` (and the preloads it waits for) and returns its end; fills `s` when given
  // (the order search needs only the latency, not a copy of every plan).
  double execute(int op, OpSchedule* s);
  void add_breakdown(DesignResult& result) const;

  const ir::Graph* graph_;
  const CostContext& costs_;
  const Decisions& d_;
  TimelineMode mode_;
  bool collectives_;
  std::vector<int> done_;
  std::vector<TimedLoad> loads_;
  std::vector<double> exec_end_s_;
  int loads_timed_ = 0;
  int blocker_ = -1;  // last op whose window is below the next position to time
  double resident_bytes_ = 0;
  int admitted_ = 0;  // positions whose preload space is counted in resident_bytes_
  std::vector<LoadInterval> in_flight_;       // the executing op's, reused
  std::vector<HandOffTimes::Timed> handoff_;  // per op; empty: none
};

// A preload starts when the previous one ended and, sharing SRAM, when the last op whose window
// excludes it has ended (that op's space is what it lands in).
void Timeline::time_loads_through(int last_position, int executing_op) {
  for (; loads_timed_ <= last_position; ++loads_timed_) {
    int m = loads_timed_;
    int op = d_.order[m];
    const PreloadPlan& plan = costs_.plans(op).preload[d_.exec_plan[op]][d_.preload_plan[op]];
    double start_s = m > 0 ? loads_[m - 1].interval.end_s : 0;
    double length_s = costs_.hbm_s(op);
    if (mode_ == TimelineMode::streamed) {  // the op's kernels read it: after its launch
      double before_s = op > 0 ? exec_end_s_[op - 1] : 0;
      const DispatchCosts& dispatch = costs_.dispatch();
      start_s = std::max(start_s, std::max(before_s, dispatch.command_arrival_s(op, before_s)) +
                                      dispatch.launch_s);
      length_s = costs_.load_s(op, plan);
    }
    if (mode_ == TimelineMode::shared) {
      while (blocker_ + 1 < executing_op && d_.window[blocker_ + 1] < m) ++blocker_;
      if (blocker_ >= 0) start_s = std::max(start_s, exec_end_s_[blocker_]);
      length_s = costs_.load_s(op, plan);
    }
    loads_[m].interval = {start_s, start_s + length_s, costs_.noc_s(plan),
                          costs_.sram_port_s(plan)};
  }
}

double Timeline::execute(int op, OpSchedule* s) {
  static const PreloadPlan kNothing;  // an op that reads nothing from HBM
  const OpPlans& plans = costs_.plans(op);
  const ExecPlan& exec = plans.exec[d_.exec_plan[op]];
  const int position = d_.position[op];
  const PreloadPlan& preload =
      position >= 0 ? plans.preload[d_.exec_plan[op]][d_.preload_plan[op]] : kNothing;
  int last = mode_ == TimelineMode::shared ? std::max(done_[op], d_.window[op]) : done_[op];
  time_loads_through(last, op);
  const bool streamed = mode_ == TimelineMode::streamed && position >= 0;
  const double previous_end_s = op > 0 ? exec_end_s_[op - 1] : 0;
  double data_ready_s = previous_end_s;
  // A streamed op's data lands while it runs: only the op before it gates its start.
  if (position >= 0 && !streamed)
    data_ready_s = std::max(data_ready_s, loads_[position].interval.end_s);
  // schedule.hpp, "Fixed costs": the command gates the start, the launch extends the op.
  double ready_s = std::max(data_ready_s, costs_.dispatch().command_arrival_s(op, previous_end_s));
  double work_start_s = ready_s + costs_.dispatch().launch_s;
  const HandOffTimes::Timed handoff = handoff_.empty() ? HandOffTimes::Timed{} : handoff_[op];
  double base_s = handoff.seconds + preload.distribute_s + exec.time_s();
  double penalty_s = 0;
  in_flight_.clear();
  if (streamed) {
    const LoadInterval& load = loads_[position].interval;
    in_flight_.push_back(load);
    penalty_s =
        costs_.execution_contention_s(work_start_s, base_s, comm_of(exec, preload), in_flight_);
    double tail_s = exec.shift_s + exec.sync_s;
    exec_end_s_[op] = std::max(work_start_s + base_s + penalty_s - tail_s, load.end_s) + tail_s;
  }
  if (mode_ == TimelineMode::shared) {
    for (int m = done_[op] + 1; m <= d_.window[op]; ++m) in_flight_.push_back(loads_[m].interval);
    penalty_s =
        costs_.execution_contention_s(work_start_s, base_s, comm_of(exec, preload), in_flight_);
    for (; admitted_ <= last; ++admitted_) {
      int j = d_.order[admitted_];
      resident_bytes_ +=
          costs_.plans(j).preload[d_.exec_plan[j]][d_.preload_plan[j]].preload_bytes_per_core;
    }
    if (position >= 0) resident_bytes_ -= preload.preload_bytes_per_core;
  }
  if (!streamed) exec_end_s_[op] = work_start_s + base_s + penalty_s;
  // Its collectives: its consumers wait for them, the preloads timed above do not.
  const double collective_s = collectives_ ? costs_.collective_after_s(op) : 0;
  exec_end_s_[op] += collective_s;
  if (s != nullptr) {
    s->op = op;
    s->name = graph_ ? graph_->ops()[op].name : "op" + std::to_string(op);
    s->op_class = costs_.class_of(op);
    s->exec = exec;
    s->preload = preload;
    s->hbm_read_bytes = plans.hbm_read_bytes;
    s->hbm_write_bytes = plans.hbm_write_bytes;
    s->flops = plans.flops;
    s->preload_position = position;
    s->resident = plans.resident;
    s->streamed = mode_ == TimelineMode::streamed && position >= 0;
    if (position >= 0) {
      s->preload_start_s = loads_[position].interval.start_s;
      s->preload_end_s = loads_[position].interval.end_s;
    }
    s->preloads_during = static_cast<int>(in_flight_.size());
    s->sram_bytes_per_core = exec.exec_bytes_per_core + resident_bytes_;
    s->execute_start_s = ready_s;
    s->dispatch_s = work_start_s - data_ready_s;
    s->handoff = handoff.handoff;
    s->handoff_s = handoff.seconds;
    s->collective_s = collective_s;
    s->distribute_end_s = work_start_s + handoff.seconds + preload.distribute_s;
    s->execute_end_s = exec_end_s_[op];
  }
  return exec_end_s_[op];
}

// Loads are serialised, so their intervals are disjoint and sorted; one sweep splits each
// execution into the time some preload was in flight and the time none was.
void Timeline::add_breakdown(DesignResult& result) const {
  Breakdown& b = result.breakdown;
  size_t first = 0;
  double busy_s = 0;
  double launch_s = costs_.dispatch().launch_s;
  for (const OpSchedule& s : result.ops) {
    // The op's work, after its command and launch (the dispatch part, counted apart).
    double work_start_s = s.execute_start_s + launch_s;
    double span_s = s.execute_end_s - work_start_s;
    double base_s = s.handoff_s + s.preload.distribute_s + s.exec.time_s() + s.collective_s;
    double covered_s = 0;
    while (first < loads_.size() && loads_[first].interval.end_s <= work_start_s) ++first;
    for (size_t m = first; m < loads_.size() && loads_[m].interval.start_s < s.execute_end_s; ++m)
      covered_s += std::min(s.execute_end_s, loads_[m].interval.end_s) -
                   std::max(work_start_s, loads_[m].interval.start_s);
    double share = span_s > 0 ? std::clamp(covered_s / span_s, 0.0, 1.0) : 0;
    b.overlapped_s += base_s * share;
    b.execution_only_s += base_s * (1 - share);
    double beyond_s = std::max(0.0, span_s - base_s);  // rounding can leave -1e-16
    // A streamed op's time beyond its work is its wait for its own stream: a preload stall.
    if (s.streamed)
      span_s -= beyond_s;
    else
      b.congestion_s += beyond_s;
    b.dispatch_s += s.dispatch_s;
    busy_s += span_s;
  }
  b.preload_stall_s = std::max(0.0, result.latency_s - busy_s - b.dispatch_s);
}

DesignResult Timeline::run() {
  DesignResult result;
  result.preload_order = d_.order;
  result.dispatch = costs_.dispatch();
  if (costs_.handoffs() != nullptr) handoff_ = costs_.handoffs()->of(costs_, d_);
  double hbm_bytes = 0, network_bytes = 0, flops = 0;
  for (int op = 0; op < costs_.ops(); ++op) {
    execute(op, &result.ops.emplace_back());
    const OpSchedule& s = result.ops.back();
    hbm_bytes += s.hbm_read_bytes + s.hbm_write_bytes;
    network_bytes += s.preload.hbm_to_core_bytes + s.preload.distribute_bytes + s.exec.shift_bytes;
    flops += s.flops;
  }
  result.latency_s = result.ops.empty() ? 0 : result.ops.back().execute_end_s;
  add_breakdown(result);
  const Machine& m = costs_.machine();
  double hbm_peak = m.hbm_peak_bytes_per_s > 0 ? m.hbm_peak_bytes_per_s : m.hbm_bytes_per_s;
  if (result.latency_s > 0) {
    if (hbm_peak > 0) result.hbm_utilisation = hbm_bytes / (result.latency_s * hbm_peak);
    if (m.interconnect_bytes_per_s > 0)
      result.interconnect_utilisation =
          network_bytes / (result.latency_s * m.interconnect_bytes_per_s);
    result.achieved_flops_per_s = flops / result.latency_s;
  }
  return result;
}

}  // namespace

DesignResult evaluate_timeline(const ir::Graph* graph, const CostContext& costs,
                               const Decisions& decisions, TimelineMode mode) {
  DesignResult result = Timeline(graph, costs, decisions, mode).run();
  if (!costs.collective_after_s().empty())
    result.collective_exposed_s =
        result.latency_s - Timeline(graph, costs, decisions, mode, false).latency_s();
  return result;
}

double timeline_latency_s(const CostContext& costs, const Decisions& decisions, TimelineMode mode) {
  return Timeline(nullptr, costs, decisions, mode).latency_s();
}

}  // namespace tessera::planner
