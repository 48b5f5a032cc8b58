#include "framework/planner/handoff_times.hpp"

namespace tessera::planner {

HandOffTimes::HandOffTimes(const ir::Graph& graph, const Machine& machine,
                           const NetworkPricer* pricer)
    : graph_(graph), machine_(machine), pricer_(pricer) {
  if (!hands_off(machine)) return;
  sources_ = activation_sources(graph);
  consumers_.resize(sources_.size());
  for (size_t op = 0; op < sources_.size(); ++op)
    for (const Source& s : sources_[op])
      if (consumers_[s.producer].empty() || consumers_[s.producer].back() != static_cast<int>(op))
        consumers_[s.producer].push_back(static_cast<int>(op));
  for (const ir::Op& op : graph.ops()) {
    auto shape = partition::describe_op(graph, op);  // planned ops: described before, never fails
    shapes_.push_back(shape ? std::optional(std::move(*shape)) : std::nullopt);
  }
}

size_t HandOffTimes::KeyHash::operator()(const std::vector<int>& key) const {
  uint64_t h = 1469598103934665603ull;  // FNV-1a over the words
  for (int word : key) h = (h ^ static_cast<uint32_t>(word)) * 1099511628211ull;
  return static_cast<size_t>(h);
}

const OpTraffic* HandOffTimes::traffic(const CostContext& costs, const Decisions& d, int op) const {
  const int exec = d.exec_plan[op], preload = d.preload_plan[op];
  auto [it, fresh] = traffic_.try_emplace({costs.class_of(op), exec, preload});
  if (fresh && shapes_[op]) {
    const OpPlans& plans = costs.plans(op);
    double distribute_bytes = preload >= 0 ? plans.preload[exec][preload].distribute_bytes : 0;
    auto t = op_traffic(*shapes_[op], plans.exec[exec], distribute_bytes, machine_.chips);
    if (t && *t) it->second = std::move(**t);
  }
  return it->second ? &*it->second : nullptr;
}

HandOffTimes::Timed HandOffTimes::timed(HandOff handoff, uint32_t cores) const {
  const double bytes = handoff.bytes();
  if (!(bytes > 0)) return {};
  auto shared = std::make_shared<const HandOff>(std::move(handoff));
  if (pricer_ != nullptr)
    if (auto price = pricer_->handoff(*shared, cores)) return {shared, price->seconds(bytes)};
  return {shared, bytes / (machine_.chips * machine_.chip_link_bytes_per_s)};
}

PlacedOp HandOffTimes::placed_op(const CostContext& costs, const Decisions& d, int op) const {
  if (!shapes_[op]) return {};
  return {&*shapes_[op], &costs.plans(op).exec[d.exec_plan[op]], traffic(costs, d, op)};
}

HandOffTimes::Timed HandOffTimes::op_timed(const CostContext& costs, const Decisions& d, int op,
                                           std::vector<PlacedOp>& placed) const {
  if (sources_[op].empty()) return {};
  thread_local std::vector<int> key;  // each thread's own: a key is copied only when new
  key.assign({costs.class_of(op), d.exec_plan[op], d.preload_plan[op]});
  for (const Source& s : sources_[op])
    key.insert(key.end(), {s.operand, costs.class_of(s.producer), d.exec_plan[s.producer],
                           d.preload_plan[s.producer]});
  {
    std::shared_lock read(mutex_);
    if (auto it = timed_.find(key); it != timed_.end()) return it->second;
  }
  // A miss: timed once, by whichever thread asks first (traffic_ is filled under this lock too).
  std::lock_guard write(mutex_);
  if (auto it = timed_.find(key); it != timed_.end()) return it->second;
  placed[op] = placed_op(costs, d, op);
  std::vector<HandOff> parts;
  for (const Source& s : sources_[op]) {
    placed[s.producer] = placed_op(costs, d, s.producer);
    parts.push_back(input_handoff(graph_, op, s, placed, machine_.chips));
  }
  Timed t = timed(merged(parts), placed[op].exec ? placed[op].exec->cores_used : 0);
  timed_.emplace(key, t);
  return t;
}

std::vector<HandOffTimes::Timed> HandOffTimes::of(const CostContext& costs,
                                                  const Decisions& d) const {
  if (!hands_off(machine_)) return {};
  std::vector<PlacedOp> placed(costs.ops());
  std::vector<Timed> out(costs.ops());
  for (int op = 0; op < costs.ops(); ++op) out[op] = op_timed(costs, d, op, placed);
  return out;
}

double HandOffTimes::seconds(const CostContext& costs, const Decisions& d, int op) const {
  if (!hands_off(machine_)) return 0;
  thread_local std::vector<PlacedOp> placed;  // filled only on a miss, for op and its producers
  placed.resize(costs.ops());
  return op_timed(costs, d, op, placed).seconds;
}

}  // namespace tessera::planner
