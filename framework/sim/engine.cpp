#include "framework/sim/engine.hpp"

#include <algorithm>
#include <array>
#include <deque>
#include <map>
#include <optional>
#include <span>
#include <utility>

#include "framework/sim/event_queue.hpp"

namespace tessera::sim {

namespace {

enum EventKind : uint32_t { kJoin, kDelayDone };
enum Owner : uint32_t { kExecute, kPreload };
// The stages of one execute, in order.
enum class Stage { distribute, distribute_sync, compute, shift, reduce, writeback, sync, done };
constexpr size_t kMaxBuckets = 4096;
constexpr uint32_t kNoTrack = UINT32_MAX;

struct PendingFlow {
  std::span<const uint32_t> route;  // into the engine's traffic routes
  double bytes = 0;
  Owner owner = kExecute;
  FlowKind kind = FlowKind::compute;
  uint32_t track = kNoTrack;  // trace track of its span
  int op = -1;
};

struct FlowPlan {                   // a flow before it is scheduled: route, latency, bytes
  std::span<const uint32_t> route;  // into the engine's traffic routes
  double latency_s = 0, bytes = 0;
  uint32_t track = kNoTrack;
  uint32_t group = 0;  // the core group whose share of the bytes it carries
  uint32_t ways = 1;   // the flows that group's share is split over (controllers)
};

// The flows of one kind of traffic without their bytes. They depend only on the network, so each
// kind is made once, on first use (a route error still shows only when traffic needs the route),
// and every instruction after that only fills in bytes: no route is built or allocated per flow.
enum class Traffic : size_t { ring, reduce, writeback, preload, compute };
constexpr size_t kTraffics = 5;
struct TrafficFlows {
  bool made = false;
  std::vector<std::vector<uint32_t>> routes;  // routes[i] is plans[i].route
  std::vector<FlowPlan> plans;
};

class Engine {
 public:
  Engine(SimNetwork& net, const codegen::Program& program, const EngineConfig& config)
      : net_(net), flows_(net.network()), program_(program), config_(config) {
    result_.ops.resize(program.ops.size());
    result_.groups = static_cast<uint32_t>(net.groups().size());
    result_.cores = net.cores();
    result_.controllers = static_cast<uint32_t>(net.controllers().size());
    result_.bucket_s = config.bucket_s > 0               ? config.bucket_s
                       : program.estimated_latency_s > 0 ? program.estimated_latency_s / 200
                                                         : 1e-6;
    tag_.assign(program.ops.size(), false);
    if (config.record_trace) make_tracks();
  }

  Result<SimResult> run();

 private:
  void make_tracks();
  void issue();
  void start_execute(int op);
  void run_stage();
  std::span<const FlowPlan> stage_flows(Stage stage, const codegen::ProgramOp& op);
  TrafficFlows& traffic(Traffic kind);
  void make_traffic(Traffic kind, TrafficFlows& t);
  std::span<const FlowPlan> ring_flows(double bytes_total);
  std::span<const FlowPlan> reduce_flows(double bytes_total);
  std::span<const FlowPlan> split_flows(Traffic kind, double bytes_total);
  std::vector<const Controller*> feeders(const CoreGroup& g) const;
  void try_start_preload();
  void schedule_flows(std::span<const FlowPlan> plans, Owner owner, FlowKind kind, int op);
  void on_flows_finished(const std::vector<uint32_t>& owners, const std::vector<uint32_t>& ids);
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
  const Path& path(uint32_t src, uint32_t dst) {
    auto p = net_.path(src, dst);
    if (p) return **p;
    fail(p.error());
    return empty_path_;
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
  Path empty_path_;

  size_t pc_ = 0;
  int executing_ = -1, waiting_for_ = -1;
  Stage stage_ = Stage::done;
  double stage_start_s_ = 0;
  size_t pending_execute_ = 0;
  std::deque<int> preload_queue_;
  int preloading_ = -1;
  size_t pending_preload_ = 0;
  std::vector<bool> tag_;
  std::vector<PendingFlow> pending_;
  std::vector<uint32_t> free_pending_;
  std::vector<PendingFlow> active_info_;  // by FlowNetwork flow id
  std::vector<double> controller_end_s_;
  std::map<std::array<double, 7>, double> isolated_cache_;
  std::array<TrafficFlows, kTraffics> traffic_;
};

void Engine::make_tracks() {
  auto& t = result_.tracks;
  t.push_back({TrackKind::program, "execute"});
  t.push_back({TrackKind::preload_engine, "preload_async"});
  for (size_t g = 0; g < net_.groups().size(); ++g) {
    const auto& grp = net_.groups()[g];
    t.push_back({TrackKind::core_group, "group " + std::to_string(g) + " (chip " +
                                            std::to_string(grp.chip) + ", cores " +
                                            std::to_string(grp.first_core) + "-" +
                                            std::to_string(grp.first_core + grp.cores - 1) + ")"});
  }
  for (size_t c = 0; c < net_.controllers().size(); ++c) {
    t.push_back({TrackKind::hbm_controller, "HBM controller " + std::to_string(c) + " (chip " +
                                                std::to_string(net_.controllers()[c].chip) + ")"});
  }
}

std::vector<const Controller*> Engine::feeders(const CoreGroup& g) const {
  std::vector<const Controller*> out;
  for (const auto& c : net_.controllers()) {
    if (c.chip == g.chip) out.push_back(&c);
  }
  if (out.empty()) {
    for (const auto& c : net_.controllers()) out.push_back(&c);
  }
  return out;
}

// Route = source port (the read), path, destination port (the write). Inside one group both are
// the group's port, which then carries the flow twice.
std::vector<uint32_t> port_to_port(const Path& p, uint32_t src_port, uint32_t dst_port) {
  std::vector<uint32_t> route{src_port};
  route.insert(route.end(), p.links.begin(), p.links.end());
  route.push_back(dst_port);
  return route;
}

uint32_t group_of_core(const std::vector<CoreGroup>& groups, uint32_t core) {
  auto it = std::upper_bound(groups.begin(), groups.end(), core,
                             [](uint32_t c, const CoreGroup& g) { return c < g.first_core; });
  return static_cast<uint32_t>(it - groups.begin()) - 1;
}

TrafficFlows& Engine::traffic(Traffic kind) {
  TrafficFlows& t = traffic_[static_cast<size_t>(kind)];
  if (!t.made) {
    make_traffic(kind, t);
    for (size_t i = 0; i < t.plans.size(); ++i) t.plans[i].route = t.routes[i];
    t.made = true;
  }
  return t;
}

void Engine::make_traffic(Traffic kind, TrafficFlows& t) {
  const auto& groups = net_.groups();
  const auto& ctrls = net_.controllers();
  auto add = [&t](std::vector<uint32_t> route, FlowPlan plan) {
    t.routes.push_back(std::move(route));
    t.plans.push_back(plan);
  };
  switch (kind) {
    case Traffic::ring:
      for (uint32_t g = 0; g < groups.size(); ++g) {
        uint32_t target = net_.ring_target(g);
        uint32_t dst = group_of_core(groups, target);
        const Path& p = path(groups[g].representative, target);
        add(port_to_port(p, groups[g].sram_port, groups[dst].sram_port),
            {{}, p.latency_s, 0, 2 + g, g, 1});
      }
      return;
    case Traffic::reduce: {
      std::vector<uint32_t> first(net_.chips(), static_cast<uint32_t>(groups.size()));
      for (uint32_t g = static_cast<uint32_t>(groups.size()); g-- > 0;) first[groups[g].chip] = g;
      for (uint32_t c = 0; c < net_.chips(); ++c) {
        uint32_t a = first[c], b = first[(c + 1) % net_.chips()];
        if (a == groups.size() || b == groups.size() || a == b) continue;
        const Path& p = path(groups[a].representative, groups[b].representative);
        add(port_to_port(p, groups[a].sram_port, groups[b].sram_port),
            {{}, p.latency_s, 0, 2 + a, a, 1});
      }
      return;
    }
    case Traffic::writeback:
      for (uint32_t g = 0; g < groups.size(); ++g) {
        auto feeding = feeders(groups[g]);
        for (const Controller* c : feeding) {
          const Path& p = path(groups[g].representative, c->endpoint);
          std::vector<uint32_t> route{groups[g].sram_port};
          route.insert(route.end(), p.links.begin(), p.links.end());
          route.push_back(c->hbm_link);
          add(std::move(route),
              {{}, p.latency_s, 0, kNoTrack, g, static_cast<uint32_t>(feeding.size())});
        }
      }
      return;
    case Traffic::preload:
      for (uint32_t g = 0; g < groups.size(); ++g) {
        auto feeding = feeders(groups[g]);
        for (const Controller* c : feeding) {
          const Path& p = path(c->endpoint, groups[g].representative);
          std::vector<uint32_t> route{c->hbm_link};
          route.insert(route.end(), p.links.begin(), p.links.end());
          route.push_back(groups[g].sram_port);
          add(std::move(route), {{},
                                 config_.hbm_latency_s + p.latency_s,
                                 0,
                                 static_cast<uint32_t>(2 + groups.size() + (c - ctrls.data())),
                                 g,
                                 static_cast<uint32_t>(feeding.size())});
        }
      }
      return;
    case Traffic::compute:
      for (uint32_t g = 0; g < groups.size(); ++g)
        add({groups[g].sram_port}, {{}, 0, 0, 2 + g, g, 1});
      return;
  }
}

std::span<const FlowPlan> Engine::ring_flows(double bytes_total) {
  auto& plans = traffic(Traffic::ring).plans;
  for (auto& f : plans) f.bytes = bytes_total * net_.groups()[f.group].cores / net_.cores();
  return plans;
}

std::span<const FlowPlan> Engine::reduce_flows(double bytes_total) {
  auto& plans = traffic(Traffic::reduce).plans;
  for (auto& f : plans) f.bytes = bytes_total / net_.chips();
  return plans;
}

// Writeback and preload: each group's share of the bytes split evenly over its controllers.
std::span<const FlowPlan> Engine::split_flows(Traffic kind, double bytes_total) {
  auto& plans = traffic(kind).plans;
  for (auto& f : plans)
    f.bytes = bytes_total * net_.groups()[f.group].cores / net_.cores() / f.ways;
  return plans;
}

std::span<const FlowPlan> Engine::stage_flows(Stage stage, const codegen::ProgramOp& op) {
  switch (stage) {
    case Stage::distribute:
      return op.distribute_bytes > 0 ? ring_flows(op.distribute_bytes) : std::span<FlowPlan>{};
    case Stage::shift:
      return op.shift_bytes > 0 ? ring_flows(op.shift_bytes) : std::span<FlowPlan>{};
    case Stage::reduce:
      return op.reduce_bytes > 0 ? reduce_flows(op.reduce_bytes) : std::span<FlowPlan>{};
    case Stage::writeback:
      return op.hbm_write_bytes > 0 ? split_flows(Traffic::writeback, op.hbm_write_bytes)
                                    : std::span<FlowPlan>{};
    case Stage::compute: {
      if (op.compute_s <= 0) return {};
      auto& plans = traffic(Traffic::compute).plans;
      for (auto& f : plans) f.bytes = op.compute_s * flows_.capacity(f.route[0]);
      return plans;
    }
    default:
      return {};
  }
}

FlowKind kind_of(Stage stage) {
  switch (stage) {
    case Stage::distribute:
      return FlowKind::distribute;
    case Stage::shift:
      return FlowKind::shift;
    case Stage::reduce:
      return FlowKind::reduce;
    case Stage::writeback:
      return FlowKind::writeback;
    default:
      return FlowKind::compute;
  }
}

void Engine::schedule_flows(std::span<const FlowPlan> plans, Owner owner, FlowKind kind, int op) {
  for (const auto& f : plans) {
    if (f.bytes <= 0) continue;
    uint32_t slot;
    if (free_pending_.empty()) {
      slot = static_cast<uint32_t>(pending_.size());
      pending_.emplace_back();
    } else {
      slot = free_pending_.back();
      free_pending_.pop_back();
    }
    pending_[slot] = {f.route, f.bytes, owner, kind, f.track, op};
    (owner == kExecute ? pending_execute_ : pending_preload_)++;
    queue_.schedule(now_ + f.latency_s, kJoin, slot);
  }
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
    if (program_.ops[in.op].has_preload() && !tag_[in.op]) {
      waiting_for_ = in.op;  // rule 3: only this execute waits for this tag
      return;
    }
    ++pc_;
    start_execute(in.op);
  }
}

void Engine::start_execute(int op) {
  executing_ = op;
  result_.ops[op].execute_start_s = now_;
  stage_ = Stage::distribute;
  run_stage();
}

void Engine::run_stage() {
  const auto& op = program_.ops[executing_];
  for (; stage_ != Stage::done; stage_ = static_cast<Stage>(static_cast<int>(stage_) + 1)) {
    stage_start_s_ = now_;
    double delay_s = stage_ == Stage::distribute_sync ? op.distribute_sync_s
                     : stage_ == Stage::sync          ? op.sync_s
                                                      : 0;
    if (delay_s > 0) {
      queue_.schedule(now_ + delay_s, kDelayDone, 0);
      return;
    }
    schedule_flows(stage_flows(stage_, op), kExecute, kind_of(stage_), executing_);
    if (pending_execute_ > 0) return;
  }
  on_stage_done();
}

void Engine::on_stage_done() {
  int op = executing_;
  result_.ops[op].execute_end_s = now_;
  result_.ops[op].isolated_s = isolated_s(program_.ops[op]);
  if (config_.record_trace)
    result_.spans.push_back({0, op, "execute", result_.ops[op].execute_start_s, now_});
  executing_ = -1;
  issue();
}

void Engine::try_start_preload() {
  if (preloading_ >= 0 || preload_queue_.empty()) return;
  preloading_ = preload_queue_.front();
  preload_queue_.pop_front();
  const auto& op = program_.ops[preloading_];
  auto rate = config_.hbm_bytes_per_s(op.preload_bytes);
  if (!rate) return fail(rate.error());
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
  controller_end_s_.assign(net_.controllers().size(), now_);
  schedule_flows(split_flows(Traffic::preload, op.preload_bytes), kPreload, FlowKind::preload,
                 preloading_);
  if (pending_preload_ == 0) on_preload_done();
}

void Engine::on_preload_done() {
  int op = std::exchange(preloading_, -1);
  tag_[op] = true;
  result_.ops[op].preload_end_s = now_;
  if (config_.record_trace) {
    result_.spans.push_back({1, op, "preload_async", result_.ops[op].preload_start_s, now_});
    for (size_t c = 0; c < controller_end_s_.size(); ++c) {
      result_.spans.push_back({static_cast<uint32_t>(2 + net_.groups().size() + c), op, "preload",
                               result_.ops[op].preload_start_s, controller_end_s_[c]});
    }
  }
  if (waiting_for_ == op) {
    waiting_for_ = -1;
    ++pc_;
    start_execute(op);
  }
  try_start_preload();
  if (executing_ < 0) issue();
}

void Engine::on_flows_finished(const std::vector<uint32_t>& owners,
                               const std::vector<uint32_t>& ids) {
  bool execute_done = false, preload_done = false;
  for (size_t i = 0; i < owners.size(); ++i) {
    const PendingFlow& info = active_info_[ids[i]];
    if (config_.record_trace && info.track != kNoTrack) {
      if (info.owner == kPreload) {
        size_t c = info.track - 2 - net_.groups().size();
        controller_end_s_[c] = std::max(controller_end_s_[c], now_);
      } else {
        result_.spans.push_back({info.track, info.op, to_string(info.kind), stage_start_s_, now_});
      }
    }
    if (owners[i] == kExecute)
      execute_done |= --pending_execute_ == 0;
    else
      preload_done |= --pending_preload_ == 0;
  }
  if (preload_done) on_preload_done();
  if (execute_done) {
    stage_ = static_cast<Stage>(static_cast<int>(stage_) + 1);
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
  for (size_t k = 0; k < kFlowKinds; ++k)
    result_.bytes_by_kind[k] += flows_.kind_rate(static_cast<FlowKind>(k)) * dt;
  for (size_t c = 0; c < kLinkClasses; ++c)
    result_.link_bytes_by_class[c] += flows_.class_rate(static_cast<LinkClass>(c)) * dt;
  add_bucket_bytes(now_, time_s);
}

double Engine::isolated_s(const codegen::ProgramOp& op) {
  std::array<double, 7> key{op.distribute_bytes, op.distribute_sync_s, op.compute_s, op.shift_bytes,
                            op.reduce_bytes,     op.hbm_write_bytes,   op.sync_s};
  auto [it, fresh] = isolated_cache_.try_emplace(key, op.distribute_sync_s + op.sync_s);
  if (!fresh) return it->second;
  std::vector<double> capacity(flows_.links());
  for (size_t l = 0; l < capacity.size(); ++l)
    capacity[l] = flows_.capacity(static_cast<uint32_t>(l));
  std::vector<double> rates;
  for (Stage s :
       {Stage::distribute, Stage::compute, Stage::shift, Stage::reduce, Stage::writeback}) {
    auto plans = stage_flows(s, op);
    std::vector<std::span<const uint32_t>> routes;
    for (const auto& f : plans) routes.push_back(f.route);
    max_min_rates(capacity, routes, rates);
    double stage_s = 0;
    for (size_t i = 0; i < plans.size(); ++i)
      stage_s = std::max(stage_s, plans[i].latency_s + plans[i].bytes / rates[i]);
    it->second += stage_s;
  }
  return it->second;
}

void Engine::handle_event(const Event& e) {
  ++result_.events;
  if (e.kind == kDelayDone) {
    stage_ = static_cast<Stage>(static_cast<int>(stage_) + 1);
    run_stage();
    return;
  }
  PendingFlow& p = pending_[e.payload];
  uint32_t id = flows_.add_flow(p.route, p.bytes, p.owner, p.kind);
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
    double d = t.execute_end_s - t.execute_start_s;
    result_.flops += program_.ops[i].flops;
    if (d <= 0) continue;
    executing_s += d;
    while (first < preloads.size() && preloads[first].second <= t.execute_start_s) ++first;
    double overlap = 0;
    for (size_t p = first; p < preloads.size() && preloads[p].first < t.execute_end_s; ++p)
      overlap += std::min(t.execute_end_s, preloads[p].second) -
                 std::max(t.execute_start_s, preloads[p].first);
    double isolated = std::min(t.isolated_s, d), f = std::clamp(overlap / d, 0.0, 1.0);
    b.overlapped_s += f * isolated;
    b.execution_only_s += (1 - f) * isolated;
    b.congestion_s += d - isolated;
  }
  b.preload_stall_s = std::max(0.0, result_.latency_s - executing_s);
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
