// Ops too large for the chip, as sequences of slices (Elk's artifact halves such an op
// along its largest dimension until it fits, tt-metal streams matmul weights in K blocks).
//
// A split cuts one rank of an op into `slices` consecutive parts (the last may be shorter); each
// slice is an op of the graph of its own, reading only its part of the weights / KV cache /
// activations, so the scheduler preloads a slice while the previous one runs — the overlap Elk
// schedules anyway. Two kinds, by the rank:
//   an output rank     independent slices, each writing its part of the output (the IR lets
//                      slices write disjoint ranges of one tensor);
//   a reduced rank     (absent from the output, e.g. a matmul's k) each slice adds its partial
//                      sums to the previous slices' (an accumulator tensor on chip between them:
//                      one more input per slice, whose SRAM and adds the planner charges); inputs
//                      beyond the point function's arity (a folded bias or residual) go to the
//                      last slice only, so they are added once.
// Which rank and how many slices is searched per class of identical ops (choose_splits), from the
// partitioner's plans of the candidate slices; ops that fit are never split.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "framework/chip/machine.hpp"
#include "framework/common/status.hpp"
#include "framework/ir/graph.hpp"
#include "framework/planner/partition/partition.hpp"
#include "framework/planner/plan.hpp"

namespace tessera::planner {

// "lm_head@n3/8": the name of slice `index` of op `op` split along `rank`.
std::string slice_name(const std::string& op, const std::string& rank, int64_t index,
                       int64_t slices);
// The op a slice name names ("lm_head" for "lm_head@n3/8"), or nullopt for a name of another
// form. Reports use it to group slices under their op (an op a user named "a@k0/2" groups too).
std::optional<std::string> sliced_op(const std::string& name);

// The graph with every split applied (ops not named keep their place and name): chain splits
// first (OpSplit::through, chain_split.hpp), then the op splits, which name ops of the graph the
// chains give. Input errors: an op or rank that does not exist, slices < 2 or more than the
// rank's extent, a reduced rank of a softmax or normalisation (their statistics do not add up
// slice by slice), an op split twice; a chain's (chain_split.hpp).
Result<ir::Graph> apply_splits(const ir::Graph& graph, const std::vector<OpSplit>& splits);

// What the search found for one class of ops that fit no plan unsplit.
struct SplitDecision {
  OpSplit split;           // for the class's first op; every op of the class is split alike
  int ops = 1;             // ops in the class
  double estimated_s = 0;  // the op's slices, pipelined with their preloads (see choose_splits)
  double unsplit_bytes_per_core = 0;  // the smallest exec state unsplit (more than the SRAM)
  std::string unsplit_plan;           // its label
  double unsplit_s = 0;               // the unsplit op's fastest plan, as if SRAM were large enough
};

// The outcome of every class of a graph's ops (ir::identical_ops order): the partitioner behind
// the driver's cache.
// Per op of `ops` (in that order) its class's outcome; empty `ops`: per class of the graph
// (ir::identical_ops order).
using ClassOutcomes = std::vector<std::shared_ptr<const ClassOutcome>>;
using PlanClasses =
    std::function<Result<ClassOutcomes>(const ir::Graph& graph, const std::vector<int>& ops)>;

// For every class in `outcomes` that does not fit: ranks × slice counts (2, 4, 8, ... up to the
// rank's extent and 256), each candidate's slices planned with `plan_classes` on a graph of the
// op's slices alone. A candidate is feasible when every slice has a plan; its time is estimated as
// a pipeline — each slice's HBM data preloaded while the previous slice runs when an exec plan
// and the next slice's smallest preload fit in SRAM together (else one after the other):
//   slices × max(exec + distribute, preload) + preload    (overlapped)
//   slices × (exec + distribute + preload)                (serial)
// with preload = the slice's HBM bytes at the machine's sustained HBM rate. The fastest wins (ties:
// fewer slices, then the rank's order). Input error naming the op when no candidate fits.
Result<std::vector<SplitDecision>> choose_splits(const ir::Graph& graph,
                                                 const ClassOutcomes& outcomes,
                                                 const Machine& machine,
                                                 const PlanClasses& plan_classes);

}  // namespace tessera::planner
