#include "framework/serve/event_loop.hpp"

#include <fmt/format.h>

#include <algorithm>

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

}  // namespace

Result<ServerRun> run_server(const std::vector<Request>& requests, const SchedulerOptions& options,
                             KvBlocks pool, const StepCostFn& step_cost,
                             const RunProgressFn& progress) {
  ServerRun run;
  run.records.resize(requests.size());
  run.kv_blocks = pool.total();
  PerRequest of{std::vector<double>(requests.size(), 0), std::vector<int64_t>(requests.size(), 0)};
  ServerState s{{}, {}, pool, 0};
  size_t next = 0;
  double t = 0;
  int64_t finished = 0;
  while (next < requests.size() || !s.waiting.empty() || !s.running.empty()) {
    for (; next < requests.size() && requests[next].arrival_s <= t; ++next) {
      s.waiting.push_back(sequence_of(requests[next]));
      if (next + 1 == requests.size())
        run.waiting_at_last_arrival = static_cast<int64_t>(s.waiting.size());
    }
    if (s.waiting.empty() && s.running.empty()) {
      t = requests[next].arrival_s;
      continue;
    }
    StepWork work = next_step(s, options);
    if (work.items.empty())
      return Error{ErrorKind::internal, StatusCode::internal,
                   fmt::format("serve: no step can run at {} s with {} waiting and {} running; a "
                               "request larger than the KV cache was let through",
                               t, s.waiting.size(), s.running.size())};
    StepCost cost = step_cost(work.shape);
    run.largest.decode_seqs = std::max(run.largest.decode_seqs, work.shape.decode_seqs);
    run.largest.decode_context_tokens =
        std::max(run.largest.decode_context_tokens, work.shape.decode_context_tokens);
    run.kv_block_seconds += static_cast<double>(s.kv.used()) * cost.seconds;
    t += cost.seconds;
    run.busy_s += cost.seconds;
    run.joules += cost.joules;
    ++run.steps;
    apply(s, work, t, cost.joules, of);
    finished += retire(s, options.policy, t, run, of);
    if (progress) progress({t, finished, static_cast<int64_t>(requests.size())});
    const auto& chunks = work.shape.prefill_chunks;
    run.samples.push_back(
        Sample{t, static_cast<int64_t>(s.waiting.size()), static_cast<int64_t>(s.running.size()),
               s.kv.used(), chunks.empty() ? 0 : *std::max_element(chunks.begin(), chunks.end())});
  }
  run.end_s = t;
  run.preemptions = s.preemptions;
  return run;
}

}  // namespace tessera::serve
