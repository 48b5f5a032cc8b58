// What one sweep point produced, and its JSON form: the run directory's points/NNNNNN.json and the
// message an MPI worker sends to rank 0 are both this text, so a local and a distributed run write
// the same bytes.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "framework/common/status.hpp"

namespace tessera::dse {

// Seconds throughout (the tables show ms); utilisations are fractions; energy in joules per step
// and its average power (0 for both: the chip states no energy rates, docs/energy.md).
struct Metrics {
  double latency_s = 0;
  double hbm_utilisation = 0, interconnect_utilisation = 0, sram_utilisation = 0;
  double flops_per_s = 0;
  double execution_only_s = 0, overlapped_s = 0, preload_stall_s = 0, congestion_s = 0;
  double energy_j = 0, power_w = 0;
  double dispatch_s = 0;  // waiting for ops' commands and their launches (planner::Breakdown)
};

struct DesignRow {
  std::string design;
  Metrics planned;  // sram_utilisation unused
  uint64_t orders_tried = 1;
  bool simulated = false;
  Metrics simulated_metrics;
  // The design of the same point whose program runs alike, whose simulation these figures are
  // (simulated once, driver::compile); empty: simulated for this design, or not simulated.
  std::string sim_same_as;
};

// A parallel strategy's figures of one design (parallel.hpp's DesignStep) beyond its step, which
// is the row's latency_s: the planned seconds of collectives and sends on the critical path, and
// the share of stage-time idle in the step.
struct StrategyRow {
  double collective_s = 0, bubble = 0;
};

// A serve point's figures (serve/metrics.hpp's ServeSummary at the point's load). Seconds, J per
// token; goodput_rps and slo_attained are -1 where the point gave no per-request SLO. What a goal
// judges is computed from these when the results are written (serve_goal.hpp), so a goal is a
// reading of the points, not part of them.
struct ServeMetrics {
  int64_t chips = 0;  // the machine's: every chip of every replica
  int64_t requests = 0;
  bool sustainable = true;
  double offered_rps = 0, sustained_rps = 0;
  double requests_per_s = 0, tokens_per_s = 0;
  double ttft_p50_s = 0, ttft_p90_s = 0, ttft_p99_s = 0;
  double tpot_p50_s = 0, tpot_p90_s = 0, tpot_p99_s = 0;
  double e2e_p50_s = 0, e2e_p90_s = 0, e2e_p99_s = 0;
  double goodput_rps = -1, slo_attained = -1;
  double joules_per_token = 0;  // 0: the chip file states no energy rates
  double grid_error = 0;        // the step-cost grid's interpolation error over the run's steps
  bool trusted = true;          // grid_error within serve's kMaxInterpolationError
};

struct PointResult {
  size_t index = 0;
  std::vector<std::string> values;  // per axis
  bool ok = false;
  std::string reason;  // why it failed; empty when ok
  // The point as it ran.
  std::string model, target, chip, mode, dtype;
  int64_t batch = 0, seq = 0;
  // The chip file's `approximation:` (chip_spec.hpp): what its figures approximate and by how
  // much; empty when the chip file states none, or the point failed before its chip was read.
  std::string approximation;
  // The strategy as it ran ("tp=8,pp=1,dp=1"; the one `auto` chose; "flat"), the tokens the whole
  // machine makes per step (0: not a zoo model, whose step's tokens are unknown), and per row the
  // strategy's own figures (empty for a flat point).
  std::string strategy;
  double tokens = 0;
  std::vector<StrategyRow> strategy_rows;
  // What stayed in SRAM across steps: the mode as it ran (the axis's, else the chip file's) and
  // the homes' bytes on each core, the same for every design of a flat point (residency is chosen
  // once per compile); 0 for a strategy, whose stages each choose their own.
  std::string residency;
  double resident_bytes_per_core = 0;
  uint64_t cores = 0;
  double hbm_peak_bytes_per_s = 0, hbm_sustained_bytes_per_s = 0;
  double interconnect_bytes_per_s = 0, peak_flops_per_s = 0;
  std::vector<DesignRow> rows;  // one per design asked for (none when it failed)
  // A zoo model's prefill on a chip stating the host's read rate: the host's read of its logits
  // after the step (driver::FirstTokenRead::seconds), which each row's time to first token adds;
  // 0 otherwise (and not written, so other points keep their bytes).
  double first_token_host_s = 0;
  std::optional<ServeMetrics> serve;  // a serve point's figures (none for a compile point)
  double wall_s = 0;  // how long it took; for progress estimates, not part of the results
};

// The JSON text of a result (one value per line), and back. Text rather than a JSON object keeps
// nlohmann/json out of every file that moves results around.
std::string point_json(const PointResult& result);
// Input error naming `where` when the text is not a point result (a damaged run directory).
Result<PointResult> read_point_json(const std::string& text, const std::string& where);

}  // namespace tessera::dse
