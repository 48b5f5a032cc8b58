#include "framework/sim/collective_sim.hpp"

#include <algorithm>
#include <optional>
#include <string>
#include <utility>

#include "framework/sim/event_queue.hpp"
#include "framework/sim/flow_network.hpp"

namespace tessera::sim {
namespace {

using collective::ChipGraph;
using collective::Collective;
using collective::CollectiveAlgorithm;
using collective::Message;

// Every collective's messages in one list: `after` indices shifted to it, the owner recorded.
struct Workload {
  std::vector<Message> messages;
  std::vector<uint32_t> owner;  // per message: its collective
  std::vector<CollectiveAlgorithm> algorithms;
};

Result<CollectiveAlgorithm> concrete_algorithm(const ChipGraph& graph, const Collective& c) {
  if (c.algorithm != CollectiveAlgorithm::automatic) return c.algorithm;
  auto chosen = price_collective(graph, c);
  if (!chosen) return chosen.error();
  return chosen->algorithm;
}

Status append(Workload& work, const ChipGraph& graph, const Collective& c, uint32_t index) {
  auto algorithm = concrete_algorithm(graph, c);
  if (!algorithm) return algorithm.error();
  auto messages = collective::schedule(graph, c, *algorithm);
  if (!messages) return messages.error();
  auto offset = static_cast<uint32_t>(work.messages.size());
  for (Message& m : *messages) {
    for (uint32_t& a : m.after) a += offset;
    work.messages.push_back(std::move(m));
    work.owner.push_back(index);
  }
  work.algorithms.push_back(*algorithm);
  return ok_status();
}

Result<Workload> workload(const ChipGraph& graph, std::span<const Collective> concurrent) {
  Workload work;
  for (uint32_t i = 0; i < concurrent.size(); ++i) {
    auto added = append(work, graph, concurrent[i], i);
    if (!added) {
      Error error = added.error();
      error.message = "collective " + std::to_string(i) + ": " + error.message;
      return error;
    }
  }
  return work;
}

// The event loop: joins (a message's first byte through its route's latency) come off the event
// queue, arrivals out of the flow network.
class Runner {
 public:
  Runner(const ChipGraph& graph, const Workload& work, std::vector<std::vector<uint32_t>> routes)
      : graph_(graph),
        work_(work),
        routes_(std::move(routes)),
        waiting_(work.messages.size()),
        next_(work.messages.size()),
        chip_free_s_(graph.chips, 0),
        seconds_(work.algorithms.size(), 0) {
    for (const collective::ChipLink& link : graph.links)
      network_.add_link(link.bytes_per_s, LinkClass::chip_to_chip);
    for (const std::vector<uint32_t>& route : routes_)
      route_ids_.push_back(network_.add_route(route));
    for (uint32_t m = 0; m < work.messages.size(); ++m) {
      waiting_[m] = static_cast<uint32_t>(work.messages[m].after.size());
      for (uint32_t a : work.messages[m].after) next_[a].push_back(m);
    }
  }

  std::vector<double> run() {
    for (uint32_t m = 0; m < waiting_.size(); ++m)
      if (waiting_[m] == 0) ready(m);
    while (!events_.empty() || network_.active() > 0) {
      double finish_s = now_s_ + network_.next_finish_s();
      if (!events_.empty() && events_.top().time_s <= finish_s) {
        advance_to(events_.top().time_s);
        join_due();
      } else {
        advance_to(finish_s);
      }
      network_.recompute();
    }
    return seconds_;
  }

 private:
  // The chip issues the message when it is free; its flow joins after the overhead and latency.
  void ready(uint32_t m) {
    uint32_t src = work_.messages[m].src_chip;
    double issue_s = std::max(now_s_, chip_free_s_[src]);
    chip_free_s_[src] = issue_s + graph_.message_overhead_s;
    events_.schedule(chip_free_s_[src] + collective::route_latency_s(graph_, routes_[m]), 0, m);
  }
  void join_due() {
    while (!events_.empty() && events_.top().time_s <= now_s_) {
      uint32_t m = events_.pop().payload;
      network_.add_flow(route_ids_[m], work_.messages[m].bytes, m, FlowKind::shift);
    }
  }
  void advance_to(double time_s) {
    finished_.clear();
    ids_.clear();
    network_.advance(time_s - now_s_, finished_, ids_);
    now_s_ = time_s;
    for (uint32_t m : finished_) arrive(m);
  }
  void arrive(uint32_t m) {
    double& seconds = seconds_[work_.owner[m]];
    seconds = std::max(seconds, now_s_);
    for (uint32_t n : next_[m])
      if (--waiting_[n] == 0) ready(n);
  }

  const ChipGraph& graph_;
  const Workload& work_;
  std::vector<std::vector<uint32_t>> routes_;
  std::vector<uint32_t> route_ids_;          // routes_ in network_
  std::vector<uint32_t> waiting_;            // per message: arrivals it still waits for
  std::vector<std::vector<uint32_t>> next_;  // per message: the messages waiting for it
  std::vector<double> chip_free_s_;          // per chip: when it may issue its next message
  std::vector<double> seconds_;              // per collective: its latest arrival so far
  FlowNetwork network_;
  EventQueue events_;
  double now_s_ = 0;
  std::vector<uint32_t> finished_, ids_;
};

// Per ChipLink of the graph: the bytes the messages put on it.
std::vector<double> bytes_per_link(const ChipGraph& graph, std::span<const Message> messages,
                                   const std::vector<std::vector<uint32_t>>& routes) {
  std::vector<double> bytes(graph.links.size(), 0);
  for (size_t m = 0; m < messages.size(); ++m)
    for (uint32_t l : routes[m]) bytes[l] += messages[m].bytes;
  return bytes;
}

// The collective under `algorithm`, alone on the graph.
Result<collective::CollectivePrice> run_alone(const ChipGraph& graph, const Collective& c,
                                              CollectiveAlgorithm algorithm) {
  auto messages = collective::schedule(graph, c, algorithm);
  if (!messages) return messages.error();
  Workload work{std::move(*messages), {}, {algorithm}};
  work.owner.assign(work.messages.size(), 0);
  auto routes = collective::message_routes(graph, work.messages);
  if (!routes) return routes.error();
  collective::CollectivePrice price{algorithm, 0, 0, 0};
  for (double bytes : bytes_per_link(graph, work.messages, *routes)) {
    price.link_bytes += bytes;
    price.links_used += bytes > 0 ? 1 : 0;
  }
  price.seconds = Runner(graph, work, std::move(*routes)).run().front();
  return price;
}

}  // namespace

Result<collective::CollectivePrice> price_collective(const ChipGraph& graph, const Collective& c) {
  if (c.algorithm != CollectiveAlgorithm::automatic) return run_alone(graph, c, c.algorithm);
  if (auto checked = collective::check_collective(graph, c); !checked) return checked.error();
  std::optional<collective::CollectivePrice> fastest;
  for (CollectiveAlgorithm algorithm : collective::algorithms_of(c.kind)) {
    auto run = run_alone(graph, c, algorithm);
    if (!run && run.error().code == StatusCode::failed_precondition) continue;
    if (!run) return run.error();
    if (!fastest || run->seconds < fastest->seconds) fastest = *run;
  }
  // Every kind has an algorithm every valid group can run (direct), so there is a fastest.
  return *fastest;
}

Result<collective::CollectivePrice> CollectivePricer::alone(const Collective& c) {
  Key key{{c.kind, c.algorithm, c.bytes, c.group}};
  if (auto it = known_.find(key); it != known_.end()) return it->second;
  auto priced = price_collective(graph_, c);
  if (!priced) return priced.error();
  return known_.emplace(std::move(key), *priced).first->second;
}

Result<collective::CollectivePrice> CollectivePricer::price(std::span<const Collective> copies) {
  auto first = alone(copies.front());
  if (!first || copies.size() == 1) return first;
  std::vector<Collective> fixed(copies.begin(), copies.end());
  Key key;
  for (Collective& c : fixed) {
    c.algorithm = first->algorithm;
    key.emplace_back(c.kind, c.algorithm, c.bytes, c.group);
  }
  if (auto it = known_.find(key); it != known_.end()) return it->second;
  auto run = simulate_collectives(graph_, fixed);
  if (!run) return run.error();
  collective::CollectivePrice together = *first;
  together.seconds = run->makespan_s;
  return known_.emplace(std::move(key), together).first->second;
}

Result<CollectiveRun> simulate_collectives(const ChipGraph& graph,
                                           std::span<const Collective> concurrent) {
  auto work = workload(graph, concurrent);
  if (!work) return work.error();
  auto routes = collective::message_routes(graph, work->messages);
  if (!routes) return routes.error();
  CollectiveRun run;
  run.algorithms = work->algorithms;
  run.link_bytes = bytes_per_link(graph, work->messages, *routes);
  for (double bytes : run.link_bytes) run.total_link_bytes += bytes;
  run.seconds = Runner(graph, *work, std::move(*routes)).run();
  for (double seconds : run.seconds) run.makespan_s = std::max(run.makespan_s, seconds);
  return run;
}

}  // namespace tessera::sim
