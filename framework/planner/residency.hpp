// Residency: which of a model's off-chip tensors — weights, constants, KV caches — keep a home
// in the cores' SRAM from one step to the next instead of being preloaded from off-chip memory
// every step (Elk's design point, and every design's with residency off). An IPU-M2000 runs GPT-2
// XL this way (weights and cache in the tiles, Streaming Memory only for what does not fit); so
// does a wafer-scale chip with no off-chip memory at all.
//
// The model of a home: a resident tensor sits each byte once, spread evenly over every core of
// the machine, for the whole step; the homes take `bytes_per_core` of every core's SRAM, so every
// op plans in what is left. An op all of whose off-chip tensors are resident preloads nothing;
// as it starts, its operands move from their home to its execution layout (the distribution of
// its least preload plan, which keeps each byte once on the plan's cores: exact when the plan
// uses every core, an underestimate of the moves when it uses fewer, as the home is then spread
// wider than the plan). A write to a resident KV cache stays on chip.
//
// What may be resident together is a candidate: the tensors that eligible ops share (a weight and
// the ops reading it; a KV cache with its write and its reads), and in repeated layers the same
// position of every layer, so the layers stay identical for Elk-Full's order search. An op is
// eligible when every off-chip tensor it reads or writes is a weight or constant (or a KV cache,
// when caches may be resident); an op that also reads a model input (an embedding's token ids, an
// image) keeps its preload, reading a resident table's rows as from off-chip memory (a small
// overestimate: the rows are on chip).
//
// The choice (`auto`): candidates ranked by the preload time they save per byte of home; the
// prefixes of that ranking that fit are planned (Elk-Dyn: the cheap inductive schedule of the
// real SRAM left, so space and time trade as in every design) on a coarse grid, refined around the
// best, then, when there are few candidates, a local search (one or two added or dropped) until
// no neighbour is cheaper. Brute force over every set of small
// models agrees (tests/unit/planner/residency_test.cpp).
//
// Threads and lifetimes: all functions are pure and run on the calling thread but plan_design's
// (planner.hpp); they borrow their inputs for the call. Errors are input Errors naming the mode
// and what did not fit.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "framework/chip_spec/conventions.hpp"
#include "framework/common/status.hpp"
#include "framework/planner/planner.hpp"

namespace tessera::planner {

struct ResidencyCandidate {
  std::vector<int> ops;         // ascending graph op indices
  std::vector<size_t> tensors;  // storage tensors, indices into graph.tensors(), ascending
  double bytes = 0;             // the tensors' bytes, each once
  bool kv = false;              // holds a KV cache (else weights and constants only)
  // The preload time its ops pay per step when streamed: per op, its fastest load (max of the
  // off-chip and network times, Elk §4.2) over its exec plans, plus its off-chip writes.
  double saves_s = 0;
  std::string label;  // its first op's name, and "(xN layers)" in repeated layers
};

// The candidates of `input` (input.graph required), in graph order. with_kv false: ops that touch
// a KV cache are not eligible.
std::vector<ResidencyCandidate> residency_candidates(const PlannerInput& input, bool with_kv);

// The homes of the chosen candidates on each core: their bytes over the machine's cores.
double home_bytes_per_core(const std::vector<ResidencyCandidate>& candidates,
                           const std::vector<bool>& chosen, const Machine& machine);

// `input` with the chosen candidates resident: their ops in classes of their own
// (OpPlans::resident, the exec plans' home_* set), the machine's SRAM per core less the homes.
// input.graph stays borrowed.
PlannerInput with_residency(const PlannerInput& input,
                            const std::vector<ResidencyCandidate>& candidates,
                            const std::vector<bool>& chosen);

// What one resident set costs: Elk-Dyn's schedule under `options` (its cost, or its latency when
// options.cost is empty); +infinity when the model cannot be placed beside the homes.
double residency_cost(const PlannerInput& input, const std::vector<ResidencyCandidate>& candidates,
                      const std::vector<bool>& chosen, const PlannerOptions& options);

struct ResidencyChoice {
  std::vector<ResidencyCandidate> candidates;
  std::vector<bool> chosen;  // per candidate
  ResidencyRecord record;    // what a plan records of it
};

// The resident set for `mode`: off, none; weights (weights_kv), every candidate without a KV
// cache (every candidate), an input Error when the model cannot be planned beside their homes;
// automatic, the search above, planned under `options` (Elk-Dyn's shares and contention).
Result<ResidencyChoice> choose_residency(const PlannerInput& input, ResidencyMode mode,
                                         const PlannerOptions& options);

// Whether every home of `mode` (weights or weights_kv; off and automatic always fit) fits in each
// core's SRAM with nothing else beside it: the bytes of every tensor an eligible op touches, over
// the machine's cores. Reads only the graph's tensors, so the driver asks before planning any op.
// The input Error says how much the homes take and that --residency auto keeps the ones that fit.
Status check_every_home_fits(const ir::Graph& graph, const Machine& machine, ResidencyMode mode);

// A design planned on with_residency's input, as the machine really is: the homes added to every
// op's SRAM, the choice recorded.
void record_residency(DesignResult& result, const ResidencyChoice& choice);

}  // namespace tessera::planner
