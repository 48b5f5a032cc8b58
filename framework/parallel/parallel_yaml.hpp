// parallel.yaml: a parallel strategy's compile as `tessera compile --parallel ... -o DIR` writes it
// beside one plan per distinct stage (DIR/stage-K.yaml, K the first stage that runs it), and as
// `tessera simulate DIR/parallel.yaml` reads it back: the strategy with every degree resolved, the
// model request and chip choice (the keys of plan.yaml's `source:`), each stage (its layers, its
// chips, its plan file), each collective use with its planned price, and each design's composed
// step. The format is described in docs/formats.md ("parallel.yaml").
//
// Reading it back re-derives what it records rather than trusting it: the strategy is resolved
// again on the model and machine, each stage plan is reopened on one chip of the machine
// (driver::reopen: its shard, its graph, its chip), the collectives are derived again from the
// stages; a figure that no longer matches is an input error naming the file and the field.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "framework/parallel/parallel.hpp"

namespace tessera::parallel {

struct StageRecord {
  int64_t first_layer = 0, last_layer = 0;  // [first, last)
  std::vector<uint32_t> chips;              // replica 0's, tensor rank order
  std::string plan;                         // its plan file, relative to parallel.yaml's folder
};

struct CollectiveRecord {
  size_t stage = 0;
  std::string where, kind, algorithm;  // collective::to_string's words; algorithm as priced
  double bytes = 0;
  std::vector<uint32_t> chips;  // replica 0's copy
  int64_t per_micro_batch = 1;
  double seconds = 0;  // planned, with every copy at once
};

struct StepRecord {
  std::string design;
  double step_s = 0, collective_s = 0, bubble = 0, tokens = 0;
  std::vector<double> stage_s;
  std::optional<double> energy_j;
};

struct ParallelPlan {
  Resolved strategy;
  std::string design;          // the design the stage plans hold (compile's --design)
  planner::PlanSource source;  // the whole machine's model request and chip; no graph, no stage
  std::vector<StageRecord> stages;
  std::vector<CollectiveRecord> collectives;
  std::vector<StepRecord> designs;
};

// The stage plans' file names: "stage-K.yaml" for the written design, "stage-K-DESIGN.yaml" with
// `each` (--design all), K the first stage that runs stage s's compilation.
std::string stage_plan_file(const ParallelCompilation& compiled, size_t stage,
                            std::optional<planner::Design> each = std::nullopt);

// What parallel.yaml records of `compiled`; `source`: the model request and chip choice
// (driver::plan_source of the whole model; its graph and stage fields are not recorded).
ParallelPlan parallel_plan(const ParallelCompilation& compiled, const planner::PlanSource& source,
                           planner::Design written);

// The file's text. Never fails.
std::string write_parallel_yaml(const ParallelPlan& plan);

// True when `text` is a parallel.yaml (its top-level `parallel:` key) rather than a plan.yaml.
bool is_parallel_yaml(const std::string& text);

// Input errors name the file, the line and the key ("collectives[3].bytes"): unknown or missing
// keys, a value of the wrong kind or out of range, a format this build cannot read.
Result<ParallelPlan> parse_parallel_yaml(const std::string& text, const std::string& file);
Result<ParallelPlan> read_parallel_yaml(const std::string& path);

struct ReopenedParallel {
  ParallelModel model;
  driver::OpenChip machine;      // the whole machine
  ParallelCompilation compiled;  // one design per stage compilation: `plan.design`'s
};

// The strategy resolved again on the model and machine `plan` names, each distinct stage plan read
// (beside `file`), reopened on one chip of the machine and, with `simulate`, simulated; the
// collectives derived again (and simulated with every replica's copy at once), the step composed.
// Input errors name `file` (or the stage plan) and the field that no longer matches: the strategy,
// the stage count, a stage's layers or chips, a stage plan's shard, machine or design, a
// collective; a missing stage plan names stages[K].plan. Also driver::reopen's and simulate's.
Result<ReopenedParallel> reopen_parallel(PluginSet& plugins, const ParallelPlan& plan,
                                         const std::string& file, bool simulate,
                                         const sim::SimOptions& options = {});

}  // namespace tessera::parallel
