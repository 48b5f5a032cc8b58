// Parallel strategies compiled: a model step divided over a machine's chips as its users deploy
// it (strategy.hpp), each chip group planned by Elk over its own cores and memory, the
// collectives between them priced by the planner and moved by the simulator on the chip-to-chip
// links (collective/collective.hpp, sim/collective_sim.hpp).
//
//   resolve            a strategy against a model and a machine: every degree set, or an input
//                      error that says what would divide or fit
//   compile_parallel   per distinct stage one chip's graph (zoo::Shard), compiled by the driver on
//                      ONE chip of the machine (every design asked for, simulated when asked);
//                      the collectives each stage needs; the step composed from them
//   search_strategies  every strategy the machine and model admit (and flat), each compiled,
//                      ranked by an objective, with the reason each infeasible one failed
//
// How a step is composed (decode or prefill, for every design). A stage's time t_s is one
// micro-batch through it: its chip's planned (or simulated) step, its collectives inside as ops
// of its program (planner/collective_op.hpp: Megatron's all-reduces sit on the critical path of a
// layer, but the next ops' preloads go on while they run). Stages hand activations on (send/recv,
// c_s), after the stage. With M micro-batches:
//   decode   step = max(Σ (t_s + c_s), M × max t_s)   one token per user per step; a micro-batch's
//            next token needs its last one through every stage, and a stage serves one at a time
//   prefill  step = Σ (t_s + c_s) + (M − 1) × max t_s  the micro-batches fill and drain the pipe
// Replicas run at once: the machine serves dp × (its replica's users) per step. Every replica's
// copy of a collective runs at the same time on the shared links: planned and simulated figures
// both move them together on the simulator's flow network (sim/collective_sim.hpp), so both
// include their contention. The chip's own plan is of one chip:
// the other chips of a tensor-parallel group run the same plan on their shards at the same time.
//
// Threads and lifetimes: calls run on the calling thread (each stage's compile uses the driver's
// arenas of options.threads). Arguments are borrowed for the call; results own their data. The
// PluginSet is used as the driver uses it (not concurrently).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "framework/collective/collective.hpp"
#include "framework/collective/price.hpp"
#include "framework/driver/driver.hpp"
#include "framework/frontend/zoo/model_spec.hpp"
#include "framework/parallel/strategy.hpp"

namespace tessera::parallel {

// A strategy with every degree set for one model and machine.
struct Resolved {
  int64_t chips = 1, tp = 1, pp = 1, dp = 1, ep = 1, micro_batches = 1;
  std::vector<int64_t>
      stage_layers;  // per stage; the embedding is on the first, the head on the last
  collective::CollectiveAlgorithm algorithm = collective::CollectiveAlgorithm::automatic;
  int64_t batch = 1;        // users of the whole machine (a zoo model's --batch)
  int64_t micro_batch = 1;  // users of one micro-batch: batch / dp / micro_batches
};

// As `--parallel` takes it back, every degree written: "tp=8,pp=1,dp=1".
std::string to_string(const Resolved& resolved);

// What a strategy is asked to run: the model (a zoo decoder for tp, pp and ep; an ONNX model
// with recognised mixture-of-experts blocks for ep; any model for dp, each replica running it as
// given) and the machine.
struct ParallelModel {
  ModelRequest request;
  std::optional<zoo::ModelSpec> spec;             // set for zoo models
  std::optional<onnx_import::MoeBlocks> experts;  // set for ONNX models with MoE blocks
};
Result<ParallelModel> parallel_model(const ModelRequest& request);

// Input errors, each saying what would work: degrees whose product is not the machine's chips (the
// strategies that are), tp or ep that do not divide the model (zoo::check_shard's divisors), more
// stages than layers, stages= that do not add up to the layers, a batch that dp and mb do not
// divide (the batches that they do), tp/pp for a model that is not a zoo decoder, ep for one that
// is neither a zoo decoder nor an ONNX model with MoE blocks (or beside tp/pp for the latter).
Result<Resolved> resolve(const ParallelStrategy& strategy, const ParallelModel& model,
                         const Machine& machine);

struct StageRun {
  int64_t first_layer = 0, last_layer = 0;  // [first, last)
  std::vector<uint32_t> chips;              // replica 0's chips of this stage, tensor rank order
  size_t compilation = 0;                   // its chip's compile in ParallelCompilation
  std::vector<uint32_t> all_chips;  // every replica's chips of this stage, replica by replica
};

struct CollectiveUse {
  size_t stage = 0;   // the stage that waits for it (a send: the sender)
  std::string where;  // "after attention", "after MLP", "embedding", "LM head", "to stage 2"
  collective::Collective op;                       // replica 0's copy (tensor rank 0's for a send)
  std::vector<collective::Collective> concurrent;  // every copy that runs with it, op first
  int64_t per_micro_batch = 1;                     // times one micro-batch passes it in this stage
  collective::CollectivePrice planned;  // seconds: with every copy at once (CollectivePricer)
  std::optional<double> simulated_s;    // the simulator's run of every copy at once
};

struct DesignStep {
  planner::Design design = planner::Design::elk_full;
  std::vector<double> stage_planned_s;    // t_s: the chip's plan, the stage's collectives in it
  std::vector<double> stage_simulated_s;  // empty when not simulated (and for Ideal, a bound)
  double planned_s = 0;                   // one step, composed as above
  std::optional<double> simulated_s;
  // The collectives' exposed time in the step, every micro-batch's: what the collective ops add to
  // their stage's plan (planner::DesignResult::collective_exposed_s), and the sends whole.
  double collective_planned_s = 0;
  double bubble = 0;                   // share of stage-time idle in the step (pipeline fill)
  double tokens = 0;                   // tokens the machine makes per step
  std::optional<double> energy_j;      // planned, whole machine, per step (absent: no energy rates)
  std::optional<double> collective_j;  // of energy_j: the bytes the collectives put on chip links
};

struct ParallelCompilation {
  Resolved strategy;
  std::vector<driver::Compilation> compilations;  // one per distinct stage
  std::vector<StageRun> stages;
  std::vector<CollectiveUse> collectives;
  std::vector<DesignStep> designs;  // in options.designs' order
  // A whole zoo model's prefill: the host's read of its logits after the step, added for the time
  // to first token (driver::first_token_read on the model unsharded).
  std::optional<driver::FirstTokenRead> first_token;
};

// Stage `stage`'s graph on one chip, as compile_parallel compiles it: the model at the
// micro-batch, sharded (zoo::Shard) to 1/tp of the stage's layers, with the embedding on the first
// stage and the head on the last. A model that is not a zoo decoder: the request as given.
ModelRequest stage_request(const ParallelModel& model, const Resolved& resolved, size_t stage);

// `chip` is the whole machine (its chip graph prices the collectives; one chip of it, opened
// through `plugins`, plans the stages). Errors: resolve's, a stage that does not fit one chip's
// memory (naming the stage and the strategy), the driver's compile and simulate errors.
Result<ParallelCompilation> compile_parallel(PluginSet& plugins, driver::OpenChip& chip,
                                             const ParallelModel& model,
                                             const ParallelStrategy& strategy,
                                             const driver::CompileOptions& options);

// ---- the search ---------------------------------------------------------------------------------

enum class Rank { latency, throughput, energy };
inline constexpr const char* kRankNames = "latency, throughput or energy";
const char* to_string(Rank rank);
// The rank a word names (as --rank, a sweep's `rank` and Python's rank= take it); none: not one.
std::optional<Rank> parse_rank(std::string_view text);

struct Candidate {
  ParallelStrategy strategy;
  std::string reason;                                       // empty: compiled
  std::optional<double> step_s, tokens_per_s, j_per_token;  // of its best design
};

struct Search {
  Rank rank = Rank::latency;
  std::vector<Candidate> tried;  // flat first, then by tp, pp, mb
  std::optional<size_t> best;    // none: nothing fits (each reason says why)
  // The flat candidate's compile (planned, not simulated), for a caller that runs it when it
  // wins instead of compiling it again; absent when it failed.
  std::optional<driver::Compilation> flat;
};

// Every (tp, pp, dp, mb) whose product uses the machine's chips, and flat; each resolved, and
// compiled when it resolves, with options' designs but not simulated (the ranking reads the
// planned step; the candidate's figure is its fastest design but Ideal). Errors only from plugins
// and internal ones: an infeasible candidate is a row.
Result<Search> search_strategies(PluginSet& plugins, driver::OpenChip& chip,
                                 const ParallelModel& model, const driver::CompileOptions& options,
                                 Rank rank);

}  // namespace tessera::parallel
