// Serving: many users on one machine. How many requests per second can it take at a TTFT and a
// TPOT, and what does a token cost? A discrete-event simulation of an LLM server (docs/serving.md):
//
//   requests      synthetic (requests.hpp) or a trace file (trace_file.hpp), each checked against
//                 what one request may hold on the machine (kv_room.hpp:
//                 request_context_limit)
//   KV cache      paged blocks in the off-chip memory the compiled model leaves after its weights
//                 (kv_room.hpp; kv_cache.hpp); under a strategy, per stage: the tightest chip's
//   step costs    a grid of decode and prefill steps compiled and simulated through the driver,
//                 cached on disk, interpolated between its points; its error against direct
//                 simulation of held-out points is measured and reported (step_cost.hpp)
//   scheduler     static, continuous (vLLM-like, preemption by recompute) or chunked prefill
//                 (Sarathi-like) (scheduler.hpp)
//   event loop    arrivals and steps in time order (event_loop.hpp)
//   metrics       TTFT, TPOT, end to end, throughput, goodput, KV use, energy; an unsustainable
//                 load reported as such (metrics.hpp); the report (serve_report.hpp)
//
// serve() runs the whole flow on a ServedMachine; each piece is callable alone (the tests drive
// the event loop with closed-form step costs).
#pragma once

#include <filesystem>
#include <functional>
#include <optional>
#include <variant>

#include "framework/serve/compiled_costs.hpp"
#include "framework/serve/event_loop.hpp"
#include "framework/serve/kv_link.hpp"
#include "framework/serve/kv_room.hpp"
#include "framework/serve/metrics.hpp"
#include "framework/serve/requests.hpp"
#include "framework/serve/scheduler.hpp"
#include "framework/serve/step_cost.hpp"
#include "framework/serve/trace_file.hpp"

namespace tessera::serve {

struct ServeOptions {
  SchedulerOptions scheduler;
  int64_t block_tokens = 16;
  Slo slo;
  std::filesystem::path cache_dir;  // empty: default_cache_dir()
};

// The prefills of a run longer than the step-cost grid's longest, which the grid prices by
// extrapolation from its last two lengths (step_cost.hpp) instead of a simulated step.
struct Extrapolation {
  int64_t grid_prefill_tokens = 0;  // the grid's longest prefill
  int64_t steps = 0, requests = 0;  // that ran such a prefill
  int64_t longest_tokens = 0;       // the longest of them (0: none)
};
Extrapolation extrapolation(const ServerRun& run, int64_t grid_prefill_tokens);

// A synthetic load, or a trace file.
using RequestSource = std::variant<SyntheticLoad, std::filesystem::path>;

// Disaggregated, the prefill group (Served's room and grid are then the decode group's).
struct PrefillGroup {
  KvRoom room;
  CostGrid grid;  // prefill steps (and one decode point: the grid's form)
  bool grid_built = false;
};

struct Served {
  KvRoom room;
  int64_t context_limit = 0;
  std::string context_why;
  CostGrid grid;
  bool grid_built = false;  // false: read from the cache
  std::filesystem::path cache_dir;
  ServerRun run;
  Extrapolation extrapolated;
  ServeSummary summary;
  std::optional<PrefillGroup> prefill;  // disaggregated runs only
  std::optional<KvLink> link;           // disaggregated runs only
};

// The step-cost grid's axes for these options on this room: batches from `batch_step`
// (grid_batch_step) to max_batch, total contexts to what the KV cache and the context limit allow,
// prefill steps to the context limit (at most 8192 tokens; longer prefill steps extrapolate from
// the last two points).
GridAxes serve_axes(const ServeOptions& options, const KvRoom& room, int64_t context_limit,
                    int64_t batch_step);

// What serve() says as it goes, each when set: the grid's build, (done, total) points after each
// point simulated; the run, after each step.
struct ServeProgress {
  std::function<void(int, int)> grid;
  RunProgressFn run;
};

// The whole flow. Errors: each piece's — the request that does not fit (its FILE:LINE or option),
// the grid's compile, the cache's files.
Result<Served> serve(ServedMachine& machine, const RequestSource& source,
                     const ServeOptions& options, const ServeProgress& progress);

// Prefill/decode disaggregation (event_loop.hpp: run_disaggregated): prompts prefilled on
// `prefill`'s chips, decoded on `decode`'s, each request's KV cache moved over `link`. Each group
// has its own KV room and grid (prefill steps on the prefill group, decode steps on the decode
// group); a request may hold what both rooms (and the model) allow. The options' scheduler must be
// continuous; the decode group preempts by swap. Errors: serve()'s for either group, a scheduler
// that is not continuous, a decode chip that states no off-chip rate to swap at.
Result<Served> serve_disaggregated(ServedMachine& prefill, ServedMachine& decode,
                                   const KvLink& link, const RequestSource& source,
                                   const ServeOptions& options, const ServeProgress& progress);

}  // namespace tessera::serve
