// Who runs in the next step. Each policy picks from the waiting queue (first come, first served)
// and the running sequences, takes KV blocks for what the step writes, and returns the step:
//
//   static      a batch of up to max_batch waiting requests is admitted only when the server is
//               empty, with blocks for its whole prompt and output; one prefill step of all its
//               prompts, then decode steps of the whole batch (padded: a finished sequence keeps
//               its slot) until its longest output is done
//   continuous  iteration-level (Orca, Yu et al., OSDI 2022; vLLM): whenever a waiting request
//               fits (a slot under max_batch, blocks for its prompt), a prefill-only step of those
//               admitted, up to max_prefill_tokens; otherwise a decode step of every running
//               sequence, each taking a block when its context crosses one. Out of blocks, the
//               latest admitted sequence is preempted: its blocks freed, it goes back to the
//               queue's front, and either its prompt and the tokens it made are prefilled again
//               (recompute) or its KV is swapped out and read back in when blocks allow, before
//               any new admission (swap): vLLM's two PreemptionMode values, RECOMPUTE and SWAP, in
//               vllm/core/scheduler.py of its 0.5 and 0.6 releases
//   chunked     Sarathi-Serve (Agrawal et al., OSDI 2024): each step holds every running decode
//               and fills the rest of a `token_budget` with prompt chunks, the oldest partial
//               prefill first, then new admissions; preemption as continuous
#pragma once

#include <cstdint>
#include <deque>
#include <string>
#include <vector>

#include "framework/common/status.hpp"
#include "framework/serve/kv_cache.hpp"
#include "framework/serve/requests.hpp"
#include "framework/serve/step_cost.hpp"

namespace tessera::serve {

enum class Policy { static_batch, continuous, chunked };
// Usage error for anything but static, continuous or chunked.
Result<Policy> parse_policy(const std::string& text);
const char* to_string(Policy policy);

enum class Preemption { recompute, swap };
// Usage error for anything but recompute or swap.
Result<Preemption> parse_preemption(const std::string& text);

// Which replica an arriving request goes to (event_loop.hpp), when the machine runs several:
//   round_robin   the i-th request to arrive to replica i mod replicas
//   least_loaded  the replica with the fewest outstanding tokens (prompt tokens still to prefill
//                 plus output tokens still to make, over its waiting and running requests), the
//                 lowest-numbered on a tie
enum class Router { round_robin, least_loaded };
// Usage error for anything but round-robin or least-loaded.
Result<Router> parse_router(const std::string& text);
const char* to_string(Router router);

struct SchedulerOptions {
  Policy policy = Policy::continuous;
  int64_t max_batch = 64;      // sequences running at once
  int64_t token_budget = 512;  // chunked: tokens per step (decodes and prompt chunks)
  // continuous: prompt tokens one prefill step admits (at least one prompt), as vLLM's
  // max_num_batched_tokens; 0: no bound. serve() sets the step-cost grid's longest prefill.
  int64_t max_prefill_tokens = 0;
  Preemption preemption = Preemption::recompute;
  // Independent servers, each with its own KV pool and this scheduler (max_batch is each one's);
  // serve() sets the strategy's dp.
  int64_t replicas = 1;
  Router router = Router::least_loaded;
};

// A request being served.
struct Sequence {
  Request request;
  int64_t prompt_tokens = 0;  // to prefill: the prompt, plus the tokens made before a preemption
  int64_t prefilled = 0;      // prompt tokens in the cache
  int64_t generated = 0;      // output tokens made
  int64_t cached = 0;         // positions in the KV cache
  int64_t blocks = 0;
  int64_t preemptions = 0;
  double first_token_s = -1;
  bool swapped = false;  // preempted by swap: its `cached` positions held off the pool
  // Disaggregated: its KV came over the link from the prefill group, held off the pool until
  // admitted (as a swapped sequence, with nothing to swap in).
  bool transferred = false;
  bool done() const { return generated >= request.output_tokens; }
  bool prefilling() const { return prefilled < prompt_tokens; }
};

// One step's work: for each sequence index in `running`, the prompt tokens it prefills (0: it
// decodes one token).
struct StepWork {
  struct Item {
    size_t seq;
    int64_t prefill_tokens;
  };
  std::vector<Item> items;
  StepShape shape;
};

struct ServerState {
  std::deque<Sequence> waiting;
  std::vector<Sequence> running;  // in admission order
  KvBlocks kv;
  int64_t preemptions = 0;
};

// The next step of `policy` (empty items: nothing can run). Moves sequences between waiting and
// running and takes KV blocks as the policy says.
StepWork next_step(ServerState& state, const SchedulerOptions& options);

}  // namespace tessera::serve
