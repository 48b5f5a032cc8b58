// Sweep files (configs/sweeps/*.yaml): the design space `tessera sweep` explores (docs/dse.md).
//
//   name: fig19-hbm-bandwidth
//   description: one line
//   base: {model: llama2-13b, target: ipu_alltoall, chip: ipu-pod4-hbm3e, batch: 32,
//          seq: 2048, designs: [basic, static, elk-dyn, elk-full, ideal], simulate: true,
//          parallel: "tp=2", residency: auto}
//   axes:
//     - {path: memory.bandwidth_bytes_per_s, range: {from: 2e12, to: 18e12, step: 2e12}}
//     - {path: topology.kind, values: [alltoall, mesh]}
//     - {path: cores, values: [2944, 5888], zip: c}   # axes sharing a zip label advance together
//   plots: [latency_vs_hbm, utilisation_vs_hbm, breakdown]
//
// Points are the cartesian product of the zip groups (an axis without a label is a group of its
// own), the first axis varying slowest. The parsed spec keeps every value as written (text), so a
// point's chip parameter reaches the plugin exactly as the sweep file spells it.
//
// `kind: serve` makes every point a served load instead of a compile: base and axes take serve
// words (serve_words.hpp), and a `goal:` names the SLOs a point must meet at its load and what to
// minimise among those that do (serve_goal.hpp):
//
//   kind: serve
//   base: {model: gpt2-xl, target: mesh_tenstorrent, rate: 2, prompt: "fixed:256"}
//   axes:
//     - {path: chip, values: [wormhole-n150, wormhole-n300]}
//     - {path: max_batch, values: [4, 16]}
//   goal: {ttft_p90_ms: 1000, tpot_p90_ms: 50, minimise: chips}
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "framework/common/status.hpp"
#include "framework/planner/plan.hpp"

namespace tessera::dse {

struct SweepBase {
  std::string model;  // zoo name or model file (relative paths: to the sweep file)
  std::string target;
  std::string chip;  // preset or chip file; empty: the target's default
  int64_t batch = 1;
  int64_t seq = 0;                // 0: the model's default
  std::string mode;               // decode | prefill; empty: the model's default
  std::string dtype;              // empty: the model's
  std::string weight_dtype;       // zoo models' --weight-dtype; empty: dtype
  std::string precision;          // zoo models' --precision file (relative: to the sweep file)
  std::vector<std::string> dims;  // ONNX --dim bindings, NAME=VALUE
  std::string parallel;           // a strategy as --parallel takes it; empty: flat
  std::string residency;          // as --residency takes it; empty: the chip file's
  std::string dispatch;           // as --dispatch takes it; empty: the chip file's
  std::string rank;  // how `parallel: auto` ranks strategies (as --rank); empty: latency
  std::vector<planner::Design> designs = {planner::Design::basic, planner::Design::static_split,
                                          planner::Design::elk_dyn, planner::Design::elk_full,
                                          planner::Design::ideal};
  bool simulate = true;
  int max_displacement = 4;
};

struct Axis {
  std::string path;
  std::vector<std::string> values;  // as written (ranges formatted with {})
  std::string zip;                  // group label; empty: its own group
  int line = 0;                     // in the sweep file, for errors
};

enum class SweepKind { compile, serve };

// A latency a serve goal bounds: "ttft_p90" (TTFT's P90) at most limit_ms.
struct SloLimit {
  std::string metric;  // ttft, tpot or e2e, then _p50, _p90 or _p99
  double limit_ms = 0;
};

// What a serve sweep looks for: the points whose latencies stay within `latencies`, whose share of
// requests meeting the base's per-request SLOs (slo_ttft_ms, slo_tpot_ms) is at least
// `slo_attained`, and whose load was sustained; among them the one with the least `minimise`.
struct ServeGoal {
  std::vector<SloLimit> latencies;  // in goal_latency_keys() order
  std::optional<double> slo_attained;
  std::string minimise = "chips";  // chips | energy_per_token | cost_per_million_tokens
  // Price of one chip for an hour, by the point's chip as the sweep writes it (cost only).
  std::map<std::string, double> price_per_chip_hour;
};

struct SweepSpec {
  std::string file;  // as given, for messages
  std::string text;  // the file's bytes: the run directory keeps them to recognise the sweep
  std::string name;
  std::string description;
  SweepKind kind = SweepKind::compile;
  SweepBase base;  // compile sweeps
  // Serve sweeps: the base's words as written (serve_words.hpp), and the goal when one is given.
  std::map<std::string, std::string> serve_base;
  std::optional<ServeGoal> goal;
  std::vector<Axis> axes;
  std::vector<std::string> plots;
};

// The most points a sweep may have: each is a whole compile (and simulation), so far more than
// any sweep runs, and few enough to enumerate.
inline constexpr size_t kMaxPoints = 100'000;

// Errors (input, naming file, line and key): unknown keys, a value of the wrong kind, an unknown
// design, a base parallel strategy parse_strategy refuses, a base residency that is not one of
// kResidencyNames, a range that is empty or has more than
// 10000 values, zipped axes of different lengths, a zip label on one axis only, more than
// kMaxPoints points, an axis given twice. Axis paths are checked against the chip and model later
// (point_setup.hpp). A serve sweep's too: a base word or axis value serve_word_problem refuses, an
// axis path that is no serve word, plots (it draws none), a goal without an SLO, slo_attained
// without a per-request SLO to attain, a cost without a price for every chip; and a goal in a
// compile sweep.
Result<SweepSpec> read_sweep(const std::string& file);
Result<SweepSpec> parse_sweep_text(const std::string& text, const std::string& file);

// Why `text` is not a parallel strategy (parallel::parse_strategy's message without its option
// name); empty when it is one.
std::string strategy_problem(const std::string& text);

// The latencies a goal may bound, as its keys spell them: ttft_p50_ms ... e2e_p99_ms.
const std::vector<std::string>& goal_latency_keys();

// The plots `tessera plot` knows (framework/dse/plot_sweep.py), for validation.
const std::vector<std::string>& known_plots();

}  // namespace tessera::dse
