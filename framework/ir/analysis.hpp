// What later stages read off a Graph: each op's FLOPs and bytes (derived from its Einsum and the
// tensors' element sizes), producer/consumer edges, tensor lifetimes, and totals.
#pragma once

#include <vector>

#include "framework/ir/graph.hpp"

namespace tessera::ir {

struct OpCost {
  double flops = 0;
  double hbm_bytes_in = 0;      // footprint of inputs that live in HBM (weights, KV cache, inputs)
  double on_chip_bytes_in = 0;  // footprint of inputs produced on chip
  double bytes_out = 0;         // footprint of the output
  bool writes_hbm = false;      // the output lives in HBM (a KV-cache update)
};

// Bytes are footprints: per dimension the range the index covers inside the tensor, so a decode
// step's KV-cache write moves one slot and a gather moves the rows it picks, not the table.
OpCost op_cost(const Graph& graph, const Op& op);

struct Edges {
  std::vector<int> producer;                // per tensor: (first) producing op, -1 for none
  std::vector<std::vector<int>> consumers;  // per tensor: ops reading it or a view of it
  std::vector<std::vector<int>> op_preds;   // per op: ops producing its inputs (sorted, unique)
};
// Views are resolved to their base: reading a view is reading its base.
Edges edges(const Graph& graph);

struct Lifetime {
  int first_op = -1;  // producer, or -1 for tensors in HBM before the program starts
  int last_op = -1;   // last consumer, or -1 when nothing reads it
};
// Per tensor (views: their base's); model outputs live to the end.
std::vector<Lifetime> lifetimes(const Graph& graph, const Edges& edges);

struct Totals {
  size_t ops = 0;
  double flops = 0;
  double weight_bytes = 0;
  double constant_bytes = 0;
  double kv_cache_bytes = 0;
  double input_bytes = 0;
  double hbm_bytes_in = 0;             // summed over ops
  double on_chip_bytes_in = 0;         // summed over ops
  double bytes_out = 0;                // summed over ops
  double peak_live_on_chip_bytes = 0;  // max over ops of activations alive at that op
};
Totals totals(const Graph& graph);

}  // namespace tessera::ir
