#include "framework/sim/engine.hpp"

#include <algorithm>
#include <array>
#include <deque>
#include <map>
#include <optional>
#include <span>
#include <tuple>
#include <utility>

#include "framework/sim/event_queue.hpp"
#include "framework/sim/transfer_sets.hpp"

namespace tessera::sim {

namespace {

// kFloorDone: a set drained before its floor (transfer_sets.hpp) ends at the floor.
enum EventKind : uint32_t { kJoin, kDelayDone, kFloorDone };
enum Owner : uint32_t { kExecute, kPreload };
// The stages of one execute, in order.
enum class Stage {
  command,  // waiting for the op's command (planner/schedule.hpp, "Fixed costs")
  launch,   // the cores starting its kernels
  handoff,  // the activations it takes from other chips (planner/handoff.hpp)
  distribute,
  distribute_sync,
  compute,
  shift,
  combine,
  reduce,
  writeback,
  sync,
  collective,  // the chip-to-chip collectives after its work (planner/collective_op.hpp)
  done
};
constexpr size_t kMaxBuckets = 4096;

struct PendingFlow {
  const SetPlan* set = nullptr;
  double start_s = 0;  // when its instruction stage issued it
  double bytes = 0, payload_bytes = 0;
  Owner owner = kExecute;
  FlowKind kind = FlowKind::compute;
  int op = -1;
};

class Engine {
 public:
  Engine(SimNetwork& net, const codegen::Program& program, const EngineConfig& config)
      : net_(net),
        flows_(net.network()),
        program_(program),
        config_(config),
        sets_(net, config.hbm_latency_s) {
    result_.ops.resize(program.ops.size());
    result_.cores = static_cast<uint32_t>(net.cores().size());
    result_.controllers = static_cast<uint32_t>(net.controllers().size());
    result_.links = static_cast<uint32_t>(flows_.links());
    result_.bucket_s = config.bucket_s > 0               ? config.bucket_s
                       : program.estimated_latency_s > 0 ? program.estimated_latency_s / 200
                                                         : 1e-6;
    tag_.assign(program.ops.size(), false);
    launched_.assign(program.ops.size(), false);
    if (config.record_trace)
      result_.tracks = {{TrackKind::program, "execute"},
                        {TrackKind::preload_engine, "preload_async"},
                        {TrackKind::stages, "execute stages"}};
  }

  Result<SimResult> run();

 private:
  void issue();
  void start_execute(int op);
  void run_stage();
  double stage_delay_s(const codegen::ProgramOp& op);
  const SetPlan* stage_set(Stage stage, int level, const codegen::ProgramOp& op, double& bytes);
  const SetPlan* traffic(const TrafficKey& key);
  void advance_stage();
  uint32_t cores_of(const codegen::ProgramOp& op) const;
  // True when the op's plan puts its cores on the chip itself (OpTraffic::physical), so every
  // set of it, preload and compute too, is laid out from its description.
  bool placed(const codegen::ProgramOp& op) const {
    return op.traffic != nullptr && !op.traffic->physical.empty() &&
           op.traffic->cores == cores_of(op);
  }
  void try_start_preload();
  uint32_t pending_slot();
  void schedule(const SetPlan* set, double bytes, Owner owner, FlowKind kind, int op);
  void on_flows_finished(const std::vector<uint32_t>& owners, const std::vector<uint32_t>& ids);
  void complete(std::span<const PendingFlow> flows);
  void on_stage_done();
  void on_preload_done();
  void advance_to(double time_s);
  void add_bucket_bytes(double t0, double t1);
  double isolated_s(const codegen::ProgramOp& op);
  void handle_event(const Event& e);
  void finish();
  void fail(Error e) {
    if (!error_) error_ = std::move(e);
  }

  SimNetwork& net_;
  FlowNetwork& flows_;
  const codegen::Program& program_;
  const EngineConfig& config_;
  SimResult result_;
  EventQueue queue_;
  double now_ = 0;
  bool dirty_ = false;
  std::optional<Error> error_;

  size_t pc_ = 0;
  int executing_ = -1, waiting_for_ = -1;
  int executes_started_ = 0;       // executes begun: the next one's place in program order
  double last_execute_end_s_ = 0;  // when the last execute ended (a `host` command follows it)
  double data_ready_s_ = 0;     // when the executing op's tag was seen and the one before it ended
  bool parked_ = false;         // the executing streamed op waits for its tag before its shifts
  std::vector<bool> launched_;  // per streamed op: its kernels launched, its preload may start
  Stage stage_ = Stage::done;
  int level_ = 0;  // of the combine tree, while stage_ is combine
  double stage_start_s_ = 0;
  size_t pending_execute_ = 0;
  std::deque<int> preload_queue_;
  int preloading_ = -1;
  size_t pending_preload_ = 0;
  std::vector<bool> tag_;
  std::vector<PendingFlow> pending_;
  std::vector<uint32_t> free_pending_;
  std::vector<PendingFlow> active_info_;  // by FlowNetwork flow id
  std::map<std::tuple<std::array<double, 8>, const planner::OpTraffic*, const planner::HandOff*>,
           double>
      isolated_cache_;
  TransferSets sets_;
  std::map<const SetPlan*, uint32_t> routes_;  // each set's route in the FlowNetwork, once
};

// The set of `key`; nullptr after a route error, which stops the simulation.
const SetPlan* Engine::traffic(const TrafficKey& key) {
  auto set = sets_.get(key);
  if (set) return *set;
  fail(set.error());
  return nullptr;
}

// How many cores an op runs on; 0 (a hand-written program that does not say) or more than the
// machine has: all.
uint32_t Engine::cores_of(const codegen::ProgramOp& op) const {
  auto cores = static_cast<uint32_t>(net_.cores().size());
  return op.cores_used == 0 ? cores : std::min(op.cores_used, cores);
}

// The set a stage runs and one transfer's bytes; nullptr when the stage moves nothing. An op whose
// plan says which cores exchange what runs its rotation rings, combine tree and distribute ring;
// its tree's partials that cross chips are its reduce_bytes, so it has no separate reduce ring.
const SetPlan* Engine::stage_set(Stage stage, int level, const codegen::ProgramOp& op,
                                 double& bytes) {
  const planner::OpTraffic* plan = op.traffic.get();
  auto scaled = [&](Traffic kind, double total, int step = 0) -> const SetPlan* {
    if (!(total > 0)) return nullptr;
    bool planned = kind == Traffic::rotation || kind == Traffic::gather ||
                   kind == Traffic::combine || placed(op);
    const SetPlan* set = traffic({kind, cores_of(op), planned ? plan : nullptr, step});
    if (set == nullptr || set->route.empty()) return nullptr;
    bytes = total * set->transfer_per_byte;
    return set;
  };
  const bool rings = plan != nullptr && plan->cores == cores_of(op);
  switch (stage) {
    case Stage::handoff: {
      if (op.handoff == nullptr) return nullptr;
      const SetPlan* set = traffic({Traffic::handoff, cores_of(op), nullptr, 0, op.handoff.get()});
      if (set == nullptr || set->route.empty()) return nullptr;
      bytes = op.handoff->bytes() * set->transfer_per_byte;
      return set;
    }
    case Stage::distribute:
      return rings && !plan->gather_next.empty() ? scaled(Traffic::gather, op.distribute_bytes)
                                                 : scaled(Traffic::ring, op.distribute_bytes);
    case Stage::shift:
      if (!rings) return scaled(Traffic::ring, op.shift_bytes);
      return plan->rotation_next.empty() ? scaled(Traffic::ring, plan->rotation_bytes)
                                         : scaled(Traffic::rotation, plan->rotation_bytes);
    case Stage::combine: {
      if (!rings || plan->combine_levels() == 0) return nullptr;
      return scaled(Traffic::combine, planner::combine_step_bytes(*plan, level), level);
    }
    case Stage::reduce:
      return rings && plan->combine_bytes > 0 ? nullptr : scaled(Traffic::reduce, op.reduce_bytes);
    case Stage::writeback:
      return scaled(Traffic::writeback, op.hbm_write_bytes);
    case Stage::compute: {
      const SetPlan* set = scaled(Traffic::compute, op.compute_s);
      if (set) bytes = op.compute_s * flows_.capacity(set->route[0]);
      return set;
    }
    default:
      return nullptr;
  }
}

FlowKind kind_of(Stage stage) {
  switch (stage) {
    case Stage::handoff:  // core to core before local_execute, as distribute_data
    case Stage::distribute:
      return FlowKind::distribute;
    case Stage::shift:
      return FlowKind::shift;
    case Stage::combine:
    case Stage::reduce:
      return FlowKind::reduce;
    case Stage::writeback:
      return FlowKind::writeback;
    default:
      return FlowKind::compute;
  }
}

// A slot of pending_ for a flow waiting on an event (its join, its floor), reused once freed.
uint32_t Engine::pending_slot() {
  if (free_pending_.empty()) {
    pending_.emplace_back();
    return static_cast<uint32_t>(pending_.size() - 1);
  }
  uint32_t slot = free_pending_.back();
  free_pending_.pop_back();
  return slot;
}

void Engine::schedule(const SetPlan* set, double bytes, Owner owner, FlowKind kind, int op) {
  if (set == nullptr || !(bytes > 0)) return;
  uint32_t slot = pending_slot();
  // The payload: the bytes the set's transfers carry (compute: the SRAM bytes its cores read).
  double payload = bytes / set->transfer_per_byte;
  pending_[slot] = {set, now_, bytes, payload, owner, kind, op};
  (owner == kExecute ? pending_execute_ : pending_preload_)++;
  ++result_.flows;
  queue_.schedule(now_ + set->join_latency_s, kJoin, slot);
}

void Engine::issue() {
  while (executing_ < 0 && waiting_for_ < 0 && pc_ < program_.instructions.size()) {
    const auto& in = program_.instructions[pc_];
    if (in.kind == codegen::InstructionKind::preload_async) {
      preload_queue_.push_back(in.op);
      ++pc_;
      try_start_preload();
      continue;
    }
    const auto& op = program_.ops[in.op];
    // Rule 3: only this execute waits for this tag; rule 4: a streamed one does not wait.
    if (op.has_preload() && !tag_[in.op] && !op.streamed) {
      waiting_for_ = in.op;
      return;
    }
    ++pc_;
    start_execute(in.op);
  }
}

void Engine::start_execute(int op) {
  executing_ = op;
  data_ready_s_ = now_;
  result_.ops[op].execute_start_s = now_;
  stage_ = Stage::command;
  level_ = 0;
  run_stage();
}

// The delay stages: the wait for the command (DispatchCosts::command_arrival_s), the launch, and
// the barriers.
double Engine::stage_delay_s(const codegen::ProgramOp& op) {
  const planner::DispatchCosts& d = program_.dispatch;
  switch (stage_) {
    case Stage::command:
      return std::max(0.0, d.command_arrival_s(executes_started_++, last_execute_end_s_) - now_);
    case Stage::launch:
      result_.ops[executing_].execute_start_s = now_;
      result_.ops[executing_].dispatch_s = now_ - data_ready_s_ + d.launch_s;
      return d.launch_s;
    case Stage::distribute_sync:
      return op.distribute_sync_s;
    case Stage::sync:
      return op.sync_s;
    case Stage::collective:
      if (config_.record_trace && op.collective_s > 0)
        result_.spans.push_back({0, executing_, "collective", now_, now_ + op.collective_s});
      return op.collective_s;
    default:
      return 0;
  }
}

// The next stage, or the combine tree's next level.
void Engine::advance_stage() {
  const auto* plan = program_.ops[executing_].traffic.get();
  if (stage_ == Stage::combine && plan != nullptr &&
      ++level_ < plan->combine_passes * plan->combine_levels())
    return;
  level_ = 0;
  stage_ = static_cast<Stage>(static_cast<int>(stage_) + 1);
}

void Engine::run_stage() {
  const auto& op = program_.ops[executing_];
  for (; stage_ != Stage::done; advance_stage()) {
    if (stage_ == Stage::handoff && op.streamed && !launched_[executing_]) {
      launched_[executing_] = true;  // rule 4: its preload may start now
      try_start_preload();
    }
    if (stage_ == Stage::shift && op.streamed && op.has_preload() && !tag_[executing_]) {
      parked_ = true;  // rule 4: on_preload_done resumes it
      return;
    }
    stage_start_s_ = now_;
    double delay_s = stage_delay_s(op);
    if (delay_s > 0) {
      queue_.schedule(now_ + delay_s, kDelayDone, 0);
      return;
    }
    double bytes = 0;
    const SetPlan* set = stage_set(stage_, level_, op, bytes);
    schedule(set, bytes, kExecute, kind_of(stage_), executing_);
    if (pending_execute_ > 0) return;
  }
  on_stage_done();
}

void Engine::on_stage_done() {
  int op = executing_;
  result_.ops[op].execute_end_s = now_;
  last_execute_end_s_ = now_;
  result_.ops[op].isolated_s = isolated_s(program_.ops[op]) + program_.ops[op].collective_s;
  if (config_.record_trace)
    result_.spans.push_back({0, op, "execute", result_.ops[op].execute_start_s, now_});
  executing_ = -1;
  issue();
}

void Engine::try_start_preload() {
  if (preloading_ >= 0 || preload_queue_.empty()) return;
  // Rule 4: a streamed op's kernels read its preload, so it starts once they have launched.
  if (program_.ops[preload_queue_.front()].streamed && !launched_[preload_queue_.front()]) return;
  preloading_ = preload_queue_.front();
  preload_queue_.pop_front();
  const auto& op = program_.ops[preloading_];
  auto rate = config_.hbm_bytes_per_s(op.preload_bytes);
  if (!rate) return fail(rate.error());
  // A streamed stack's ops read at its own rate where that is lower (Program::stream_bytes_per_s).
  if (op.streamed && program_.stream_bytes_per_s > 0)
    *rate = std::min(*rate, program_.stream_bytes_per_s / net_.controllers().size());
  // A byte read once feeds all its copies, which fan out inside the network: the flows carry
  // copies, so the controllers and their links into the network carry them `replication` times
  // faster than the memory reads.
  double replication =
      op.hbm_read_bytes > 0 ? std::max(1.0, op.preload_bytes / op.hbm_read_bytes) : 1.0;
  for (const auto& c : net_.controllers()) flows_.set_capacity(c.hbm_link, *rate * replication);
  for (const auto& [link, bytes_per_s] : net_.memory_links())
    flows_.set_capacity(link, bytes_per_s * replication);
  result_.hbm_read_bytes += op.hbm_read_bytes > 0 ? op.hbm_read_bytes : op.preload_bytes;
  dirty_ = true;
  result_.ops[preloading_].preload_start_s = now_;
  const SetPlan* set =
      traffic({Traffic::preload, cores_of(op), placed(op) ? op.traffic.get() : nullptr, 0});
  if (set == nullptr) return;  // a route error: the simulation stops with it
  schedule(set->route.empty() ? nullptr : set, op.preload_bytes * set->transfer_per_byte, kPreload,
           FlowKind::preload, preloading_);
  if (pending_preload_ == 0) on_preload_done();
}

void Engine::on_preload_done() {
  int op = std::exchange(preloading_, -1);
  tag_[op] = true;
  result_.ops[op].preload_end_s = now_;
  if (config_.record_trace)
    result_.spans.push_back({1, op, "preload_async", result_.ops[op].preload_start_s, now_});
  if (waiting_for_ == op) {
    waiting_for_ = -1;
    ++pc_;
    start_execute(op);
  }
  if (parked_ && executing_ == op) {
    parked_ = false;
    run_stage();
  }
  try_start_preload();
  if (executing_ < 0) issue();
}

void Engine::on_flows_finished(const std::vector<uint32_t>& owners,
                               const std::vector<uint32_t>& ids) {
  std::vector<PendingFlow> done;
  for (size_t i = 0; i < owners.size(); ++i) {
    const PendingFlow& info = active_info_[ids[i]];
    double floor_s =
        info.start_s + info.set->floor_latency_s + info.bytes * info.set->floor_s_per_byte;
    if (floor_s - now_ <= 1e-12 * floor_s) {
      done.push_back(info);
      continue;
    }
    // Drained before its floor: the last transfer is still on its way.
    uint32_t slot = pending_slot();
    pending_[slot] = info;
    queue_.schedule(floor_s, kFloorDone, slot);
  }
  complete(done);
}

void Engine::complete(std::span<const PendingFlow> flows) {
  bool execute_done = false, preload_done = false;
  for (const PendingFlow& info : flows) {
    if (config_.record_trace && info.owner == kExecute)
      result_.spans.push_back({2, info.op, to_string(info.kind), stage_start_s_, now_});
    if (info.owner == kExecute)
      execute_done |= --pending_execute_ == 0;
    else
      preload_done |= --pending_preload_ == 0;
  }
  if (preload_done) on_preload_done();
  if (execute_done) {
    advance_stage();
    run_stage();
  }
}

void Engine::add_bucket_bytes(double t0, double t1) {
  auto& buckets = result_.class_bytes_per_bucket;
  while (t0 < t1) {
    size_t b = static_cast<size_t>(t0 / result_.bucket_s);
    double end = std::min(t1, (b + 1) * result_.bucket_s);
    if (end <= t0) {  // t0 is the bucket's end, rounded down: it belongs to the next one
      ++b;
      end = std::min(t1, (b + 1) * result_.bucket_s);
    }
    if (b >= kMaxBuckets) {  // halve the resolution rather than grow without bound
      for (size_t i = 0; i < buckets.size(); ++i) {
        for (size_t c = 0; c < kLinkClasses; ++c)
          buckets[i / 2][c] = (i % 2 ? buckets[i / 2][c] : 0) + buckets[i][c];
      }
      buckets.resize((buckets.size() + 1) / 2);
      result_.bucket_s *= 2;
      continue;
    }
    if (buckets.size() <= b) buckets.resize(b + 1);
    for (size_t c = 0; c < kLinkClasses; ++c)
      buckets[b][c] += flows_.class_rate(static_cast<LinkClass>(c)) * (end - t0);
    t0 = end;
  }
}

void Engine::advance_to(double time_s) {
  double dt = time_s - now_;
  if (dt <= 0) return;
  for (uint32_t id : flows_.active_ids()) {
    const PendingFlow& info = active_info_[id];
    auto& bytes = result_.ops[info.op].link_bytes_by_class;
    for (size_t c = 0; c < kLinkClasses; ++c)
      bytes[c] += flows_.rate(id) * dt * info.set->class_weight[c];
  }
  for (size_t k = 0; k < kFlowKinds; ++k)
    result_.bytes_by_kind[k] += flows_.kind_rate(static_cast<FlowKind>(k)) * dt;
  for (size_t c = 0; c < kLinkClasses; ++c)
    result_.link_bytes_by_class[c] += flows_.class_rate(static_cast<LinkClass>(c)) * dt;
  add_bucket_bytes(now_, time_s);
}

double Engine::isolated_s(const codegen::ProgramOp& op) {
  std::tuple<std::array<double, 8>, const planner::OpTraffic*, const planner::HandOff*> key{
      {op.distribute_bytes, op.distribute_sync_s, op.compute_s, op.shift_bytes, op.reduce_bytes,
       op.hbm_write_bytes, op.sync_s, static_cast<double>(cores_of(op))},
      op.traffic.get(),
      op.handoff.get()};
  auto [it, fresh] = isolated_cache_.try_emplace(key, op.distribute_sync_s + op.sync_s);
  if (!fresh) return it->second;
  const auto* plan = op.traffic.get();
  const int levels = plan != nullptr ? plan->combine_passes * plan->combine_levels() : 0;
  for (Stage s : {Stage::handoff, Stage::distribute, Stage::compute, Stage::shift, Stage::combine,
                  Stage::reduce, Stage::writeback}) {
    for (int level = 0; level < (s == Stage::combine ? levels : 1); ++level) {
      double bytes = 0;
      const SetPlan* set = stage_set(s, level, op, bytes);
      if (set != nullptr) it->second += set->alone_s(flows_, bytes / set->transfer_per_byte);
    }
  }
  return it->second;
}

void Engine::handle_event(const Event& e) {
  ++result_.events;
  if (e.kind == kDelayDone) {
    advance_stage();
    run_stage();
    return;
  }
  if (e.kind == kFloorDone) {
    PendingFlow info = pending_[e.payload];
    free_pending_.push_back(e.payload);
    complete({&info, 1});
    return;
  }
  PendingFlow& p = pending_[e.payload];
  auto [route, fresh] = routes_.try_emplace(p.set, 0);
  if (fresh) route->second = flows_.add_route(p.set->route, p.set->weights);
  uint32_t id = flows_.add_set(route->second, p.bytes, p.payload_bytes, p.owner, p.kind);
  if (active_info_.size() <= id) active_info_.resize(id + 1);
  active_info_[id] = p;
  free_pending_.push_back(e.payload);
  dirty_ = true;
}

Result<SimResult> Engine::run() {
  issue();
  std::vector<uint32_t> owners, ids;
  while (!error_) {
    // Every event of this instant first, so flows joining together cost one solve.
    if (!queue_.empty() && queue_.top().time_s <= now_) {
      handle_event(queue_.pop());
      continue;
    }
    if (dirty_) {
      flows_.recompute();
      dirty_ = false;
    }
    double dt_flow = flows_.next_finish_s(), t_flow = now_ + dt_flow;
    double t_event = queue_.empty() ? FlowNetwork::kNever : queue_.top().time_s;
    if (t_flow == FlowNetwork::kNever && t_event == FlowNetwork::kNever) break;
    owners.clear();
    ids.clear();
    if (t_flow <= t_event) {
      advance_to(t_flow);
      // By dt_flow itself: now_ + dt_flow - now_ may round down, and the flow would never finish.
      flows_.advance(dt_flow, owners, ids);
      now_ = t_flow;
      result_.events += owners.size();
      dirty_ = true;
      on_flows_finished(owners, ids);
      continue;
    }
    advance_to(t_event);
    flows_.advance(t_event - now_, owners, ids);
    now_ = t_event;
    if (!owners.empty()) {  // finished within rounding of the event's time
      result_.events += owners.size();
      dirty_ = true;
      on_flows_finished(owners, ids);
    }
    handle_event(queue_.pop());
  }
  if (error_) return *error_;
  if (pc_ < program_.instructions.size() || executing_ >= 0) {
    const auto& in = program_.instructions[std::min(pc_, program_.instructions.size() - 1)];
    return input_error("program line " + std::to_string(in.line) + ": execute(" +
                       std::to_string(in.op) + ") waits for done_preload_op_" +
                       std::to_string(in.op) + " but preload_async(" + std::to_string(in.op) +
                       ") is not issued before it (rules 1 and 3)");
  }
  finish();
  return std::move(result_);
}

// Elk's breakdown from the intervals: execute time split by whether a preload was in flight,
// minus what congestion added (simulated − isolated); the rest of the step is preload stall.
void Engine::finish() {
  result_.latency_s = now_;
  std::vector<std::pair<double, double>> preloads;
  for (const auto& t : result_.ops) {
    if (t.preload_start_s >= 0) preloads.emplace_back(t.preload_start_s, t.preload_end_s);
  }
  std::sort(preloads.begin(), preloads.end());
  auto& b = result_.breakdown;
  double executing_s = 0;
  size_t first = 0;
  for (size_t i = 0; i < result_.ops.size(); ++i) {
    const auto& t = result_.ops[i];
    b.dispatch_s += t.dispatch_s;
    // The op's work, after its command and launch (the dispatch part, counted apart).
    double work_start_s = t.execute_start_s + program_.dispatch.launch_s;
    double d = t.execute_end_s - work_start_s;
    result_.flops += program_.ops[i].flops;
    if (d <= 0) continue;
    executing_s += d;
    while (first < preloads.size() && preloads[first].second <= work_start_s) ++first;
    double overlap = 0;
    for (size_t p = first; p < preloads.size() && preloads[p].first < t.execute_end_s; ++p)
      overlap +=
          std::min(t.execute_end_s, preloads[p].second) - std::max(work_start_s, preloads[p].first);
    double isolated = std::min(t.isolated_s, d), f = std::clamp(overlap / d, 0.0, 1.0);
    b.overlapped_s += f * isolated;
    b.execution_only_s += (1 - f) * isolated;
    // A streamed op's time beyond its work is its wait for its own stream: a preload stall.
    if (program_.ops[i].streamed)
      executing_s -= d - isolated;
    else
      b.congestion_s += d - isolated;
  }
  b.preload_stall_s = std::max(0.0, result_.latency_s - executing_s - b.dispatch_s);
  for (size_t c = 0; c < kLinkClasses; ++c)
    result_.class_capacity[c] = flows_.class_capacity(static_cast<LinkClass>(c));
}

}  // namespace

Result<SimResult> run_program(SimNetwork& network, const codegen::Program& program,
                              const EngineConfig& config) {
  for (const auto& in : program.instructions) {
    if (in.op < 0 || static_cast<size_t>(in.op) >= program.ops.size())
      return input_error("program line " + std::to_string(in.line) + ": op " +
                         std::to_string(in.op) + " does not exist");
  }
  Engine engine(network, program, config);
  return engine.run();
}

}  // namespace tessera::sim
