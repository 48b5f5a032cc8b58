// What a model keeps in off-chip memory while it runs, by kind, against the machine's capacity.
// Weights, constants, the KV cache and model inputs live off chip; activations do too when, at
// their peak, they do not fit in the chip's SRAM (the excess counts). Ops are spread over every
// chip, so each chip's memory holds its share: the check is the total against the total.
#pragma once

#include <string>

#include "framework/chip/machine.hpp"
#include "framework/ir/graph.hpp"

namespace tessera::planner {

struct OffChipFootprint {
  double weight_bytes = 0;  // weights and constants (masks, tables computed at import)
  double kv_cache_bytes = 0;
  double input_bytes = 0;       // model inputs
  double activation_bytes = 0;  // activations beyond the chip's SRAM at their peak
  double total_bytes() const {
    return weight_bytes + kv_cache_bytes + input_bytes + activation_bytes;
  }
};

OffChipFootprint off_chip_footprint(const ir::Graph& graph, const Machine& machine);

// "weights 137.9 GB, KV cache 10.7 GB" — the kinds that are not zero.
std::string describe(const OffChipFootprint& footprint);

// True when the machine states no capacity (0) or the footprint fits in it.
bool fits_off_chip(const OffChipFootprint& footprint, const Machine& machine);

}  // namespace tessera::planner
