// What a user asks `tessera serve` and `tessera.serve` for, in the words both take, and the
// machine, requests and report header it opens into: one place, so the CLI and Python read the
// same words the same way (their numbers are bounded by driver/option_bounds.hpp before this).
#pragma once

#include <memory>
#include <string>

#include "framework/serve/serve.hpp"
#include "framework/serve/serve_report.hpp"

namespace tessera::serve {

struct ServeRequest {
  driver::ModelWords model;
  driver::ChipChoice chip;
  std::string design = "elk-full";
  std::string parallel;  // empty or "flat": every op over every core of every chip
  std::string scheduler = "continuous";
  std::string preemption = "recompute";
  std::string router = "least-loaded";  // where dp runs several replicas
  SyntheticLoad load;  // its rate, requests, seed and gamma_cv; the words below fill the rest
  std::string arrivals = "poisson";
  std::string prompt = "fixed:512", output = "fixed:128";
  std::string trace;     // non-empty: requests from this file instead of `load`
  ServeOptions options;  // max_batch, token_budget, block_tokens; the rest from the words below
  double slo_ttft_ms = 0, slo_tpot_ms = 0;  // 0: no SLO
  std::string cache_dir;                    // empty: default_cache_dir()
  // --disaggregate: prompts prefilled on `prefill_chip` (its target empty: `chip`'s) under
  // `prefill_parallel`, decoded on `chip` under `parallel`, the KV moved over `kv_link` (a
  // configs/links preset or a file).
  bool disaggregate = false;
  driver::ChipChoice prefill_chip;
  std::string prefill_parallel;
  std::string kv_link;
};

// The opened request. `machine` borrows `plugins` (the caller's) and `chip` (owned here).
struct OpenedServe {
  std::unique_ptr<driver::OpenChip> chip;
  ServedMachine machine;
  // --disaggregate: the prefill group (`machine` decodes) and the link.
  std::unique_ptr<driver::OpenChip> prefill_chip;
  std::optional<ServedMachine> prefill;
  std::optional<KvLink> link;
  RequestSource source;
  ServeOptions options;
  ServeHeader header;
};

// Errors: the model that is not a zoo decoder, an unknown scheduler, preemption, router, design or
// length distribution, `--parallel auto` (serve takes one strategy), the chip's
// (driver::open_chip); with --disaggregate, --prefill-chip and --kv-link missing, the prefill
// chip's and the link's (kv_link.hpp), the prefill options given without it.
Result<OpenedServe> open_serve(PluginSet& plugins, const ServeRequest& request);

// serve(), or serve_disaggregated() when the request asked for it.
Result<Served> serve_opened(OpenedServe& opened, const ServeProgress& progress);

// The header of a run at `rate_per_s` (a load sweep's point; the request's own for one run).
ServeHeader header_at(const ServeRequest& request, const OpenedServe& opened, double rate_per_s);

}  // namespace tessera::serve
