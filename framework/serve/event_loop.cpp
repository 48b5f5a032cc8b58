#include "framework/serve/event_loop.hpp"

#include <fmt/format.h>

#include <algorithm>
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

// One independent server: its scheduler's state and the step it has under way.
struct Replica {
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

size_t route(const std::vector<Replica>& replicas, Router router, size_t arrival) {
  if (router == Router::round_robin) return arrival % replicas.size();
  size_t best = 0;
  int64_t best_tokens = outstanding_tokens(replicas[0].state);
  for (size_t r = 1; r < replicas.size(); ++r)
    if (int64_t tokens = outstanding_tokens(replicas[r].state); tokens < best_tokens) {
      best = r;
      best_tokens = tokens;
    }
  return best;
}

// The run as it goes: the replicas and what they have made.
struct Loop {
  const std::vector<Request>& requests;
  const SchedulerOptions& options;
  const StepCostFn& step_cost;
  const RunProgressFn& progress;
  std::vector<Replica> replicas;
  ServerRun run;
  PerRequest of;
  int64_t finished = 0;

  // Replica r's next step from `t`. Internal error when it can run nothing.
  Status start(size_t r, double t) {
    Replica& x = replicas[r];
    x.work = next_step(x.state, options);
    if (x.work.items.empty())
      return Error{ErrorKind::internal, StatusCode::internal,
                   fmt::format("serve: no step can run at {} s with {} waiting and {} running; a "
                               "request larger than the KV cache was let through",
                               t, x.state.waiting.size(), x.state.running.size())};
    x.cost = step_cost(x.work.shape);
    run.largest.decode_seqs = std::max(run.largest.decode_seqs, x.work.shape.decode_seqs);
    run.largest.decode_context_tokens =
        std::max(run.largest.decode_context_tokens, x.work.shape.decode_context_tokens);
    const double held = static_cast<double>(x.state.kv.used()) * x.cost.seconds;
    ReplicaRun& rr = run.replicas[r];
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

  // Replica r's step ends at `t`: what it made applied, the finished retired, a sample taken.
  void finish(size_t r, double t) {
    Replica& x = replicas[r];
    apply(x.state, x.work, t, x.cost.joules, of);
    finished += retire(x.state, options.policy, t, run, of);
    x.step_ends_s.reset();
    ReplicaRun& rr = run.replicas[r];
    rr.kv_blocks_peak = std::max(rr.kv_blocks_peak, x.state.kv.used());
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
    const size_t r = route(replicas, options.router, i);
    replicas[r].state.waiting.push_back(sequence_of(requests[i]));
    ++run.replicas[r].requests;
    if (i + 1 < requests.size()) return;
    for (const Replica& y : replicas)
      run.waiting_at_last_arrival += static_cast<int64_t>(y.state.waiting.size());
  }

  // The next instant anything happens after `t`: an arrival or a step's end; nullopt: none.
  std::optional<double> next_event(size_t next) const {
    std::optional<double> at;
    if (next < requests.size()) at = requests[next].arrival_s;
    for (const Replica& x : replicas)
      if (x.step_ends_s && (!at || *x.step_ends_s < *at)) at = x.step_ends_s;
    return at;
  }
};

}  // namespace

Result<ServerRun> run_server(const std::vector<Request>& requests, const SchedulerOptions& options,
                             KvBlocks pool, const StepCostFn& step_cost,
                             const RunProgressFn& progress) {
  const auto count = static_cast<size_t>(std::max<int64_t>(1, options.replicas));
  Loop loop{requests,
            options,
            step_cost,
            progress,
            std::vector<Replica>(count, Replica{ServerState{{}, {}, pool, 0}, {}, {}, {}}),
            {},
            {std::vector<double>(requests.size(), 0), std::vector<int64_t>(requests.size(), 0)}};
  ServerRun& run = loop.run;
  run.records.resize(requests.size());
  run.replicas.assign(count, ReplicaRun{});
  for (ReplicaRun& rr : run.replicas) rr.kv_blocks = pool.total();
  run.kv_blocks = pool.total() * static_cast<int64_t>(count);
  size_t next = 0;
  for (std::optional<double> t = 0.0; t; t = loop.next_event(next)) {
    for (size_t r = 0; r < count; ++r)
      if (loop.replicas[r].step_ends_s && *loop.replicas[r].step_ends_s <= *t) loop.finish(r, *t);
    for (; next < requests.size() && requests[next].arrival_s <= *t; ++next) loop.arrive(next);
    for (size_t r = 0; r < count; ++r)
      if (!loop.replicas[r].step_ends_s && loop.replicas[r].has_work())
        if (Status ok = loop.start(r, *t); !ok) return ok.error();
    run.end_s = *t;
  }
  for (size_t r = 0; r < count; ++r) {
    run.replicas[r].preemptions = loop.replicas[r].state.preemptions;
    run.preemptions += loop.replicas[r].state.preemptions;
  }
  return std::move(run);
}

}  // namespace tessera::serve
