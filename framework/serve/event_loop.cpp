#include "framework/serve/event_loop.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <deque>
#include <optional>

namespace tessera::serve {

namespace {

Sequence sequence_of(const Request& r) {
  Sequence seq;
  seq.request = r;
  seq.prompt_tokens = r.prompt_tokens;
  return seq;
}

// What each request accumulates over the steps it runs in, by request id.
struct PerRequest {
  std::vector<double> joules;
  std::vector<int64_t> longest_prefill_tokens;
};

// What the step made, at its end `t`; its energy shared by the tokens each item processed.
void apply(ServerState& s, const StepWork& work, double t, double joules, PerRequest& of) {
  int64_t tokens = 0;
  for (const auto& item : work.items) tokens += std::max<int64_t>(item.prefill_tokens, 1);
  for (const auto& item : work.items) {
    Sequence& seq = s.running[item.seq];
    const auto id = static_cast<size_t>(seq.request.id);
    of.joules[id] += joules * static_cast<double>(std::max<int64_t>(item.prefill_tokens, 1)) /
                     static_cast<double>(tokens);
    of.longest_prefill_tokens[id] = std::max(of.longest_prefill_tokens[id], item.prefill_tokens);
    if (item.prefill_tokens > 0) {
      seq.prefilled += item.prefill_tokens;
      seq.cached += item.prefill_tokens;
      if (seq.prefilling()) continue;
    } else {
      ++seq.cached;
    }
    ++seq.generated;
    if (seq.first_token_s < 0) seq.first_token_s = t;
  }
}

// Finished sequences leave (a static batch only once all of it is done), their blocks freed; how
// many left.
int64_t retire(ServerState& s, Policy policy, double t, ServerRun& run, const PerRequest& of) {
  auto finished = [&](const Sequence& seq) {
    return policy == Policy::static_batch ? std::all_of(s.running.begin(), s.running.end(),
                                                        [](const Sequence& q) { return q.done(); })
                                          : seq.done();
  };
  std::vector<Sequence> kept;
  for (Sequence& seq : s.running) {
    if (!finished(seq)) {
      kept.push_back(std::move(seq));
      continue;
    }
    s.kv.give_back(seq.blocks);
    auto id = static_cast<size_t>(seq.request.id);
    run.records[id] =
        RequestRecord{seq.request,     seq.first_token_s, t,
                      seq.preemptions, of.joules[id],     of.longest_prefill_tokens[id]};
  }
  const auto left = static_cast<int64_t>(s.running.size() - kept.size());
  s.running = std::move(kept);
  return left;
}

// One independent server: its group's scheduler and step costs, its state, the step under way.
struct Replica {
  const ServerGroup* group;
  Role role;
  ServerState state;
  std::optional<double> step_ends_s;  // empty: idle
  StepWork work;
  StepCost cost;
  bool has_work() const { return !state.waiting.empty() || !state.running.empty(); }
};

int64_t outstanding_tokens(const ServerState& s) {
  int64_t tokens = 0;
  auto add = [&tokens](const Sequence& q) {
    tokens += (q.prompt_tokens - q.prefilled) + (q.request.output_tokens - q.generated);
  };
  for (const Sequence& q : s.waiting) add(q);
  for (const Sequence& q : s.running) add(q);
  return tokens;
}

// Of replicas [first, first + count), the one `router` sends the `index`-th request to.
size_t route(const std::vector<Replica>& replicas, size_t first, size_t count, Router router,
             size_t index) {
  if (router == Router::round_robin) return first + index % count;
  size_t best = first;
  int64_t best_tokens = outstanding_tokens(replicas[first].state);
  for (size_t r = first + 1; r < first + count; ++r)
    if (int64_t tokens = outstanding_tokens(replicas[r].state); tokens < best_tokens) {
      best = r;
      best_tokens = tokens;
    }
  return best;
}

// A sequence's KV on the link, landing at the decode group.
struct InFlight {
  double lands_s;
  Sequence seq;
};

// The run as it goes: the replicas (the entry group's first: arrivals are routed among them; then
// the decode group's, when disaggregated), the link, and what they have made.
struct Loop {
  const std::vector<Request>& requests;
  const RunProgressFn& progress;
  std::vector<Replica> replicas = {};
  size_t entry = 0;                     // replicas [0, entry) take arrivals
  const KvHandoff* handoff = nullptr;   // disaggregated: the link to replicas [entry, end)
  std::deque<InFlight> in_flight = {};  // first come, first served: landing in order
  double link_free_s = 0;
  size_t landed = 0;
  ServerRun run = {};
  PerRequest of = {};
  int64_t finished = 0;

  // Replica r's next step from `t`. Internal error when it can run nothing.
  Status start(size_t r, double t) {
    Replica& x = replicas[r];
    x.work = next_step(x.state, x.group->options);
    if (x.work.items.empty())
      return Error{ErrorKind::internal, StatusCode::internal,
                   fmt::format("serve: no step can run at {} s with {} waiting and {} running; a "
                               "request larger than the KV cache was let through",
                               t, x.state.waiting.size(), x.state.running.size())};
    x.cost = x.group->step_cost(x.work.shape);
    run.largest.decode_seqs = std::max(run.largest.decode_seqs, x.work.shape.decode_seqs);
    run.largest.decode_context_tokens =
        std::max(run.largest.decode_context_tokens, x.work.shape.decode_context_tokens);
    const double held = static_cast<double>(x.state.kv.used()) * x.cost.seconds;
    ReplicaRun& rr = run.replicas[r];
    rr.kv_blocks_peak = std::max(rr.kv_blocks_peak, x.state.kv.used());
    run.kv_block_seconds += held;
    rr.kv_block_seconds += held;
    run.busy_s += x.cost.seconds;
    rr.busy_s += x.cost.seconds;
    run.joules += x.cost.joules;
    ++run.steps;
    ++rr.steps;
    x.step_ends_s = t + x.cost.seconds;
    return ok_status();
  }

  // A prefill replica's sequences whose prompts are cached leave it at `t`: their blocks freed,
  // their KV onto the link as soon as it is free.
  void hand_off(Replica& x, double t) {
    KvTransfers& link = *run.transfers;
    std::vector<Sequence> kept;
    for (Sequence& seq : x.state.running) {
      if (seq.prefilling()) {
        kept.push_back(std::move(seq));
        continue;
      }
      x.state.kv.give_back(seq.blocks);
      seq.blocks = 0;
      seq.transferred = true;
      const double bytes = static_cast<double>(seq.cached) * handoff->bytes_per_token;
      const double start_s = std::max(t, link_free_s);
      link_free_s = start_s + bytes / handoff->link.bytes_per_s;
      const double lands_s = start_s + handoff->link.transfer_s(bytes);
      const double joules = bytes * handoff->link.j_per_byte.value_or(0);
      ++link.transfers;
      link.bytes += bytes;
      link.busy_s += link_free_s - start_s;
      link.joules += joules;
      link.seconds.push_back(lands_s - t);
      run.joules += joules;
      of.joules[static_cast<size_t>(seq.request.id)] += joules;
      in_flight.push_back({lands_s, std::move(seq)});
    }
    x.state.running = std::move(kept);
  }

  // Replica r's step ends at `t`: what it made applied, the finished retired (a prefill replica's
  // others handed off), a sample taken.
  void finish(size_t r, double t) {
    Replica& x = replicas[r];
    apply(x.state, x.work, t, x.cost.joules, of);
    finished += retire(x.state, x.group->options.policy, t, run, of);
    if (x.role == Role::prefill) hand_off(x, t);
    x.step_ends_s.reset();
    const auto& chunks = x.work.shape.prefill_chunks;
    Sample sample{t, static_cast<int64_t>(r),
                  0, 0,
                  0, chunks.empty() ? 0 : *std::max_element(chunks.begin(), chunks.end())};
    for (const Replica& y : replicas) {
      sample.waiting += static_cast<int64_t>(y.state.waiting.size());
      sample.running += static_cast<int64_t>(y.state.running.size());
      sample.kv_blocks_used += y.state.kv.used();
    }
    run.samples.push_back(sample);
    if (progress) progress({t, finished, static_cast<int64_t>(requests.size())});
  }

  void arrive(size_t i) {
    const size_t r = route(replicas, 0, entry, replicas[0].group->options.router, i);
    replicas[r].state.waiting.push_back(sequence_of(requests[i]));
    ++run.replicas[r].requests;
    if (i + 1 < requests.size()) return;
    for (const Replica& y : replicas)
      run.waiting_at_last_arrival += static_cast<int64_t>(y.state.waiting.size());
  }

  // The first sequence on the link lands at `t` on a decode replica: its first token reaches the
  // user only now (TTFT includes the transfer).
  void land(double t) {
    Sequence seq = std::move(in_flight.front().seq);
    in_flight.pop_front();
    const size_t count = replicas.size() - entry;
    const size_t r = route(replicas, entry, count, replicas[entry].group->options.router, landed++);
    seq.first_token_s = t;
    ++run.replicas[r].requests;
    replicas[r].state.waiting.push_back(std::move(seq));
  }

  // The next instant anything happens: an arrival, a step's end, a transfer landing; nullopt:
  // none.
  std::optional<double> next_event(size_t next) const {
    std::optional<double> at;
    auto earliest = [&at](double t) {
      if (!at || t < *at) at = t;
    };
    if (next < requests.size()) earliest(requests[next].arrival_s);
    for (const Replica& x : replicas)
      if (x.step_ends_s) earliest(*x.step_ends_s);
    if (!in_flight.empty()) earliest(in_flight.front().lands_s);
    return at;
  }

  // Everything that happens at `t`, in order: steps end, transfers land, requests arrive, idle
  // replicas with work start a step.
  Status at(double t, size_t& next) {
    for (size_t r = 0; r < replicas.size(); ++r)
      if (replicas[r].step_ends_s && *replicas[r].step_ends_s <= t) finish(r, t);
    while (!in_flight.empty() && in_flight.front().lands_s <= t) land(t);
    for (; next < requests.size() && requests[next].arrival_s <= t; ++next) arrive(next);
    for (size_t r = 0; r < replicas.size(); ++r)
      if (!replicas[r].step_ends_s && replicas[r].has_work())
        if (Status ok = start(r, t); !ok) return ok;
    run.end_s = t;
    return ok_status();
  }
};

// Each group's replicas, each with its group's pool.
Loop loop_of(const std::vector<Request>& requests, const std::vector<const ServerGroup*>& groups,
             const std::vector<Role>& roles, const RunProgressFn& progress) {
  Loop loop{requests, progress};
  loop.of = {std::vector<double>(requests.size(), 0), std::vector<int64_t>(requests.size(), 0)};
  loop.run.records.resize(requests.size());
  for (size_t g = 0; g < groups.size(); ++g) {
    const auto count = static_cast<size_t>(std::max<int64_t>(1, groups[g]->options.replicas));
    for (size_t i = 0; i < count; ++i) {
      loop.replicas.push_back(
          Replica{groups[g], roles[g], ServerState{{}, {}, groups[g]->pool, 0}, {}, {}, {}});
      ReplicaRun rr;
      rr.role = roles[g];
      rr.kv_blocks = groups[g]->pool.total();
      loop.run.replicas.push_back(rr);
      loop.run.kv_blocks += rr.kv_blocks;
    }
    if (g == 0) loop.entry = count;
  }
  return loop;
}

Result<ServerRun> run_loop(Loop& loop) {
  size_t next = 0;
  for (std::optional<double> t = 0.0; t; t = loop.next_event(next))
    if (Status ok = loop.at(*t, next); !ok) return ok.error();
  for (size_t r = 0; r < loop.replicas.size(); ++r) {
    loop.run.replicas[r].preemptions = loop.replicas[r].state.preemptions;
    loop.run.preemptions += loop.replicas[r].state.preemptions;
  }
  return std::move(loop.run);
}

}  // namespace

Result<ServerRun> run_server(const std::vector<Request>& requests, const SchedulerOptions& options,
                             KvBlocks pool, const StepCostFn& step_cost,
                             const RunProgressFn& progress) {
  const ServerGroup group{options, pool, step_cost};
  Loop loop = loop_of(requests, {&group}, {Role::serve}, progress);
  return run_loop(loop);
}

Result<ServerRun> run_disaggregated(const std::vector<Request>& requests,
                                    const ServerGroup& prefill, const ServerGroup& decode,
                                    const KvHandoff& handoff, const RunProgressFn& progress) {
  Loop loop = loop_of(requests, {&prefill, &decode}, {Role::prefill, Role::decode}, progress);
  loop.handoff = &handoff;
  loop.run.transfers = KvTransfers{};
  return run_loop(loop);
}

}  // namespace tessera::serve
