#include "framework/serve/scheduler.hpp"

#include <algorithm>

namespace tessera::serve {

namespace {

// Frees the latest admitted sequence's blocks and puts it back at the queue's front: to prefill its
// prompt and the tokens it made again, or swapped out (its KV moved off, counted in the step).
void preempt_last(ServerState& s, Preemption how, StepWork& work) {
  Sequence seq = std::move(s.running.back());
  s.running.pop_back();
  s.kv.give_back(seq.blocks);
  seq.blocks = 0;
  if (how == Preemption::swap) {
    seq.swapped = true;
    work.shape.swap_tokens += seq.cached;
  } else {
    seq.prompt_tokens = seq.request.prompt_tokens + seq.generated;
    seq.prefilled = seq.cached = 0;
  }
  ++seq.preemptions;
  ++s.preemptions;
  s.waiting.push_front(std::move(seq));
}

bool decoding(const Sequence& seq) {
  return !seq.prefilling() && !seq.done();
}

// Each decoding sequence's block for its next position, preempting from the back when none is
// free; then one decode item per decoding sequence still running.
void add_decodes(ServerState& s, Preemption how, StepWork& work) {
  for (size_t i = 0; i < s.running.size(); ++i) {
    if (!decoding(s.running[i])) continue;
    int64_t need = s.kv.blocks_for(s.running[i].cached + 1) - s.running[i].blocks;
    while (!s.kv.take(need)) {
      bool itself = i + 1 == s.running.size();
      preempt_last(s, how, work);
      if (itself) break;
    }
    if (i < s.running.size()) s.running[i].blocks += need;
  }
  for (size_t i = 0; i < s.running.size(); ++i)
    if (decoding(s.running[i])) work.items.push_back({i, 0});
}

// Admits waiting sequences while a slot is free and `chunk(seq)` > 0 prompt tokens of each get
// blocks; each admitted gets a prefill item of that chunk. Returns the tokens admitted.
template <class Chunk>
int64_t admit(ServerState& s, const SchedulerOptions& o, StepWork& work, Chunk chunk) {
  int64_t tokens = 0;
  while (!s.waiting.empty() && static_cast<int64_t>(s.running.size()) < o.max_batch) {
    Sequence& seq = s.waiting.front();
    if (seq.swapped || seq.transferred) break;  // swap_in's
    int64_t n = chunk(seq);
    int64_t need = s.kv.blocks_for(n);
    if (n <= 0 || !s.kv.take(need)) break;
    seq.blocks = need;
    s.running.push_back(std::move(seq));
    s.waiting.pop_front();
    work.items.push_back({s.running.size() - 1, n});
    tokens += n;
  }
  return tokens;
}

// Swapped-out (or transferred) sequences at the queue's front come back first, while a slot and
// blocks for their positions and the next are free; a swapped one's KV read back in this step.
void swap_in(ServerState& s, const SchedulerOptions& o, StepWork& work) {
  while (!s.waiting.empty() && (s.waiting.front().swapped || s.waiting.front().transferred) &&
         static_cast<int64_t>(s.running.size()) < o.max_batch) {
    Sequence& seq = s.waiting.front();
    int64_t need = s.kv.blocks_for(seq.cached + 1);
    if (!s.kv.take(need)) break;
    seq.blocks = need;
    if (seq.swapped) work.shape.swap_tokens += seq.cached;
    seq.swapped = seq.transferred = false;
    s.running.push_back(std::move(seq));
    s.waiting.pop_front();
  }
}

StepWork static_step(ServerState& s, const SchedulerOptions& o) {
  StepWork work;
  if (s.running.empty()) {
    // The whole request's blocks up front: a static batch runs to its end without preemption.
    while (!s.waiting.empty() && static_cast<int64_t>(s.running.size()) < o.max_batch) {
      Sequence& seq = s.waiting.front();
      int64_t need = s.kv.blocks_for(seq.prompt_tokens + seq.request.output_tokens);
      if (!s.kv.take(need)) break;
      seq.blocks = need;
      s.running.push_back(std::move(seq));
      s.waiting.pop_front();
    }
  }
  for (size_t i = 0; i < s.running.size(); ++i)
    if (s.running[i].prefilling())
      work.items.push_back({i, s.running[i].prompt_tokens - s.running[i].prefilled});
  if (!work.items.empty()) return work;
  for (size_t i = 0; i < s.running.size(); ++i)
    if (!s.running[i].done()) work.items.push_back({i, 0});
  return work;
}

StepWork continuous_step(ServerState& s, const SchedulerOptions& o) {
  StepWork work;
  int64_t admitted = 0;
  auto whole_prompt = [&](const Sequence& q) -> int64_t {
    bool within = o.max_prefill_tokens == 0 || admitted + q.prompt_tokens <= o.max_prefill_tokens;
    if (admitted > 0 && !within) return 0;
    admitted += q.prompt_tokens;
    return q.prompt_tokens;
  };
  swap_in(s, o, work);
  if (admit(s, o, work, whole_prompt) > 0) return work;
  add_decodes(s, o.preemption, work);
  return work;
}

StepWork chunked_step(ServerState& s, const SchedulerOptions& o) {
  StepWork work;
  swap_in(s, o, work);
  add_decodes(s, o.preemption, work);
  int64_t budget = o.token_budget - static_cast<int64_t>(work.items.size());
  for (size_t i = 0; i < s.running.size() && budget > 0; ++i) {
    Sequence& seq = s.running[i];
    if (!seq.prefilling()) continue;
    int64_t n = std::min(budget, seq.prompt_tokens - seq.prefilled);
    int64_t need = s.kv.blocks_for(seq.prefilled + n) - seq.blocks;
    if (!s.kv.take(need)) break;
    seq.blocks += need;
    work.items.push_back({i, n});
    budget -= n;
  }
  admit(s, o, work, [&budget](const Sequence& q) {
    int64_t n = std::min(budget, q.prompt_tokens);
    budget -= std::max<int64_t>(n, 0);
    return n;
  });
  return work;
}

// The step's shape: static batching's decode steps compute every slot of the batch, finished
// sequences included (their positions padded); the other policies only the items.
StepShape shape_of(const ServerState& s, const StepWork& work, Policy policy) {
  StepShape shape;
  shape.swap_tokens = work.shape.swap_tokens;
  bool decode_step = false;
  for (const auto& item : work.items) {
    const Sequence& seq = s.running[item.seq];
    if (item.prefill_tokens > 0) {
      shape.prefill_chunks.push_back(item.prefill_tokens);
      continue;
    }
    decode_step = true;
    if (policy == Policy::static_batch) continue;
    ++shape.decode_seqs;
    shape.decode_context_tokens += seq.cached + 1;
  }
  if (policy == Policy::static_batch && decode_step)
    for (const Sequence& seq : s.running) {
      ++shape.decode_seqs;
      shape.decode_context_tokens += seq.cached + 1;
    }
  return shape;
}

}  // namespace

Result<Policy> parse_policy(const std::string& text) {
  if (text == "static") return Policy::static_batch;
  if (text == "continuous") return Policy::continuous;
  if (text == "chunked") return Policy::chunked;
  return usage_error("--scheduler " + text + ": expected static, continuous or chunked");
}

const char* to_string(Policy policy) {
  switch (policy) {
    case Policy::static_batch:
      return "static";
    case Policy::continuous:
      return "continuous";
    case Policy::chunked:
      return "chunked";
  }
  return "";
}

Result<Preemption> parse_preemption(const std::string& text) {
  if (text == "recompute") return Preemption::recompute;
  if (text == "swap") return Preemption::swap;
  return usage_error("--preemption " + text + ": expected recompute or swap");
}

Result<Router> parse_router(const std::string& text) {
  if (text == "round-robin") return Router::round_robin;
  if (text == "least-loaded") return Router::least_loaded;
  return usage_error("--router " + text + ": expected round-robin or least-loaded");
}

const char* to_string(Router router) {
  return router == Router::round_robin ? "round-robin" : "least-loaded";
}

StepWork next_step(ServerState& state, const SchedulerOptions& options) {
  StepWork work = options.policy == Policy::static_batch ? static_step(state, options)
                  : options.policy == Policy::continuous ? continuous_step(state, options)
                                                         : chunked_step(state, options);
  work.shape = shape_of(state, work, options.policy);
  return work;
}

}  // namespace tessera::serve
