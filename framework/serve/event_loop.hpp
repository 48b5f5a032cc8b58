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
#include <optional>
#include <vector>

#include "framework/serve/kv_link.hpp"
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

// What a replica does: serve requests whole, or (disaggregated) only prefill them or only decode.
enum class Role { serve, prefill, decode };

// One replica's share of a run.
struct ReplicaRun {
  Role role = Role::serve;
  int64_t requests = 0, steps = 0, preemptions = 0;
  int64_t kv_blocks = 0, kv_blocks_peak = 0;  // its pool, and the most a step of it held
  double busy_s = 0;
  double kv_block_seconds = 0;  // blocks held, integrated over its steps
};

// What the link of a disaggregated run carried.
struct KvTransfers {
  int64_t transfers = 0;
  double bytes = 0;
  double busy_s = 0;            // moving bytes (its latency not counted)
  double joules = 0;            // 0 when the link states no energy per byte
  std::vector<double> seconds;  // each transfer: handed off to landed (waiting for the link too)
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
  std::optional<KvTransfers> transfers;  // disaggregated runs only
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

// `options.replicas` servers, each with a copy of `pool` (one replica's), this scheduler and
// these step costs.
struct ServerGroup {
  SchedulerOptions options;
  KvBlocks pool;
  StepCostFn step_cost;
};

// How a request's KV cache crosses from the prefill group to the decode group: `bytes_per_token`
// of every position it holds (the model's K and V of every layer, at the KV cache's type).
struct KvHandoff {
  KvLink link;
  double bytes_per_token = 0;
};

// Prefill/decode disaggregation (DistServe, Zhong et al., OSDI 2024; Splitwise, Patel et al.,
// ISCA 2024): requests arrive at the prefill group (routed among its replicas); when a replica's
// step has cached a prompt, the sequence leaves it, its KV queued on the link (one transfer at a
// time, first come first served: each holds the link for bytes / rate and lands `latency` after);
// on landing it waits at a decode replica (routed among them) and is admitted, like a swapped-in
// sequence but with no swap to pay, when a slot and blocks for its positions are free; its first
// token reaches the user then (TTFT includes the transfer). The groups' options say their
// policies: the prefill group's steps are prefill-only (continuous), the decode group's decode
// (continuous, preempting by swap). A request of one output token ends at its prefill.
Result<ServerRun> run_disaggregated(const std::vector<Request>& requests,
                                    const ServerGroup& prefill, const ServerGroup& decode,
                                    const KvHandoff& handoff, const RunProgressFn& progress = {});

}  // namespace tessera::serve
