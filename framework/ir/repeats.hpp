// Structure later stages exploit: identical ops (same kind, Einsum up to rank names, shapes,
// element types and storage), searched once by the mapper; and repeated layers (a run of identical
// blocks of consecutive ops wired the same way), whose preload order the planner computes once.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "framework/ir/analysis.hpp"

namespace tessera::ir {

// The text that equal ops share: kind, point function, ranks renamed r0, r1, ... in loop order
// with their extents, per operand its indexing, tensor shape, dtype and storage, and the op's math
// fidelity when it sets one.
std::string op_signature(const Graph& graph, const Op& op);

struct OpClasses {
  std::vector<int> class_of;  // per op
  std::vector<int> first_op;  // per class: the op that represents it (the first)
  std::vector<int> count;     // per class: how many ops share it
};
OpClasses identical_ops(const Graph& graph);

struct RepeatedLayers {
  int first_op = 0;  // first op of the first layer
  int ops_per_layer = 0;
  int count = 0;               // number of identical layers
  int layer_of(int op) const;  // -1 outside the repeated range
};

// The repetition that covers the most ops (ties: the shortest layer). Ops i and i+P match when they
// are identical and each input comes from the op P earlier in the same position or from the very
// same tensor (a weight shared by all layers, a global conditioning vector). nullopt when nothing
// repeats at least twice.
std::optional<RepeatedLayers> repeated_layers(const Graph& graph, const OpClasses& classes,
                                              const Edges& edges);

}  // namespace tessera::ir
