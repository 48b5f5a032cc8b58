// The server as a discrete-event simulation: requests arrive at their times; whenever the server is
// free it asks the scheduler for a step, charges the step's cost (step_cost.hpp), and applies what
// the step made — a prompt chunk cached, a first token after a prompt's last chunk, a token per
// decoding sequence. Deterministic: the same requests, options and costs give the same run.
// A token's time is its step's end; a request arriving during a step waits for the next.
//
// Replicas (SchedulerOptions::replicas): that many independent servers, each with its own KV pool
// (a copy of `pool`), its own scheduler and its own step under way; a router
// (SchedulerOptions::router) assigns each request to one as it arrives. At one instant, steps that
// end are applied first, then arrivals are routed, then idle replicas with work start a step.
#pragma once

#include <functional>
#include <vector>

#include "framework/serve/scheduler.hpp"
#include "framework/serve/step_cost.hpp"

namespace tessera::serve {

struct RequestRecord {
  Request request;
  double first_token_s = 0, finish_s = 0;  // from the run's start
  int64_t preemptions = 0;
  double joules = 0;                   // its share of each step it ran in, by tokens
  int64_t longest_prefill_tokens = 0;  // its longest prefill (a prompt, chunk or recompute)
};

struct Sample {  // after a step of `replica`; the counts over every replica
  double time_s = 0;
  int64_t replica = 0;
  int64_t waiting = 0, running = 0, kv_blocks_used = 0;
  int64_t longest_prefill_tokens = 0;  // the step's longest prefill (0: decodes only)
};

// One replica's share of a run.
struct ReplicaRun {
  int64_t requests = 0, steps = 0, preemptions = 0;
  int64_t kv_blocks = 0, kv_blocks_peak = 0;  // its pool, and the most it held after a step
  double busy_s = 0;
  double kv_block_seconds = 0;  // blocks held, integrated over its steps
};

struct ServerRun {
  std::vector<RequestRecord> records;  // by request id
  std::vector<Sample> samples;         // one per step
  std::vector<ReplicaRun> replicas;
  int64_t steps = 0, preemptions = 0, kv_blocks = 0;  // over every replica
  double busy_s = 0, end_s = 0, joules = 0;           // busy_s: summed over the replicas
  double kv_block_seconds = 0;                        // blocks held, integrated over steps
  StepShape largest;  // the largest decode batch and context over the steps (no prefill chunks)
  // Waiting requests when the last one arrived: a backlog beyond a batch says the load outruns
  // the machine (metrics.hpp).
  int64_t waiting_at_last_arrival = 0;
};

// How far a run has come, after a step: for a progress bar.
struct RunProgress {
  double simulated_s = 0;
  int64_t finished = 0, requests = 0;
};
using RunProgressFn = std::function<void(const RunProgress&)>;

// `requests` in arrival order, each within the pool (check_request); `pool` is one replica's.
// `progress`, when set, after every step. Internal error when a step can run nothing while
// requests remain (a request larger than the pool).
Result<ServerRun> run_server(const std::vector<Request>& requests, const SchedulerOptions& options,
                             KvBlocks pool, const StepCostFn& step_cost,
                             const RunProgressFn& progress = {});

}  // namespace tessera::serve
