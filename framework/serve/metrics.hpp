// What a run says about the server: latencies as users feel them, throughput, goodput at SLOs,
// the KV cache's use, energy; whether the load was sustainable at all; and per-request rows.
//
//   TTFT   arrival to first token (queueing, then the prompt's prefill)
//   TPOT   (finish - first token) / (output tokens - 1), over requests with more than one
//   E2E    arrival to last token
// Each as mean, P50, P90, P99 (linear between order statistics). Goodput: requests per second
// that met every SLO given. A load the machine cannot sustain has no steady latency — the queue
// grows for as long as requests arrive — so it is reported as such with the rate the machine
// sustained, never as latencies: a run is unsustainable when, after the last arrival, the server
// still needed more than a quarter of the arrival window to drain, with more than a batch waiting.
#pragma once

#include <optional>
#include <string>

#include "framework/serve/event_loop.hpp"

namespace tessera::serve {

struct Slo {
  std::optional<double> ttft_s, tpot_s;
};

struct Spread {
  double mean = 0, p50 = 0, p90 = 0, p99 = 0;
};

// One replica's share (event_loop.hpp): the requests routed to it, the share of the run (first
// arrival to last token) it was stepping, and its own KV pool's use.
struct ReplicaSummary {
  int64_t requests = 0, preemptions = 0;
  double busy = 0;
  double kv_utilisation_mean = 0, kv_utilisation_peak = 0;
  Role role = Role::serve;
};

// Disaggregated: what the KV link carried; utilisation is its busy share of the run (first arrival
// to last token); transfer_s from hand-off to landing (waiting for the link, then bytes / rate
// and latency).
struct LinkSummary {
  int64_t transfers = 0;
  double bytes = 0, utilisation = 0, joules = 0;
  Spread transfer_s;
};

struct ServeSummary {
  int64_t requests = 0, output_tokens = 0, steps = 0, preemptions = 0;
  double duration_s = 0;  // first arrival to last token
  Spread ttft_s, tpot_s, e2e_s;
  double tokens_per_s = 0, requests_per_s = 0;
  std::optional<double> goodput_rps, slo_attained;  // with an SLO
  double kv_utilisation_mean = 0, kv_utilisation_peak = 0;
  double joules_per_token = 0, joules_per_request = 0;
  bool sustainable = true;
  double offered_rps = 0, sustained_rps = 0;
  int64_t peak_waiting = 0;
  std::vector<ReplicaSummary> replicas;
  std::optional<LinkSummary> link;
};

// `max_batch`: each replica's.
ServeSummary summarize(const ServerRun& run, const Slo& slo, int64_t max_batch);

// p in [0, 1] of `values` (sorted in place).
double percentile(std::vector<double>& values, double p);

// The per-request table: id, arrival_s, prompt_tokens, output_tokens, ttft_s, tpot_s, e2e_s,
// preemptions, joules (tpot_s empty for one output token).
std::string requests_csv(const ServerRun& run);
std::string requests_json(const ServerRun& run);  // the same rows, "tessera-serve-requests-1"

// Waiting and running requests and KV use over time, at most `rows` rows (evenly in steps).
std::string occupancy_csv(const ServerRun& run, size_t rows);

}  // namespace tessera::serve
