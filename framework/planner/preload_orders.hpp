// Preload-order permutation (Elk §4.4). Only ops with large HBM loads move, only within one
// repeated layer, and every identical layer uses the same order. Orders are built slot by slot
// (a prefix tree): slot s takes one of the layer's large ops whose program-order index is within
// `max_displacement` of s; a prefix that already forces some op to sit beside preloads that cannot
// fit even at their smallest plans is cut, with every order below it. Two orders that preload
// the same sequence of op classes are the same order for the planner; the first is kept.
//
// Why a displacement bound: an order that moves a preload d slots early keeps d more preloads
// resident, so large displacements overflow SRAM on LLM layers anyway; d = 4 is the artifact's
// bound for inference: 504 orders for 6 distinct ops and 6,902 for 8. The count still grows
// exponentially with the ops that move, so a layer with many large loads searches a narrower
// displacement (widest_bounded_orders).
#pragma once

#include <cstddef>
#include <functional>
#include <vector>

#include "framework/ir/repeats.hpp"
#include "framework/planner/schedule.hpp"

namespace tessera::planner {

// An op's HBM load is large when it is at least this share of its layer's HBM bytes.
inline constexpr double kLargeLoadShare = 0.02;

// What moves in the order: one op, or the slices of a split op (planner/split.hpp), which keep
// their order among themselves and move together — permuting slices of one op among each other
// never helps and would make the order space explode.
struct LoadUnit {
  int offset = 0;  // of its first op within the first repeated layer
  int ops = 1;     // consecutive ops
  bool operator==(const LoadUnit&) const = default;
};

// The layer's units whose loads (their ops' together) are large, in program order. `unit_of`
// gives per op the first op of its unit; empty: every op is a unit of its own.
std::vector<LoadUnit> large_load_units(const CostContext& costs, const ir::RepeatedLayers& layers,
                                       const std::vector<int>& unit_of);

// Every permutation p of 0..kinds.size()-1 with |p[s] - s| <= max_displacement for all s, in
// lexicographic order, without repeats of the sequence kinds[p[0]], kinds[p[1]], ...; `fits`
// sees each prefix and cuts it (and its extensions) by returning false. The identity comes first.
std::vector<std::vector<int>> bounded_orders(
    const std::vector<int>& kinds, int max_displacement,
    const std::function<bool(const std::vector<int>& prefix)>& fits);

// The orders of bounded_orders at the widest displacement, from max_displacement down, that gives
// at most max_orders of them (at displacement 0 the identity alone, whatever max_orders), and
// that displacement. The count grows exponentially with the units, not polynomially: 6,902 for
// 8 distinct units at d = 4 but 11,854 already at d = 2 for maxvit_t's layer, whose many convs
// and linears all load large weights, and millions at d = 4.
struct BoundedOrders {
  std::vector<std::vector<int>> orders;
  int displacement = 0;
};
BoundedOrders widest_bounded_orders(
    const std::vector<int>& kinds, int max_displacement, size_t max_orders,
    const std::function<bool(const std::vector<int>& prefix)>& fits);

// The model-wide preload order that applies `permutation` (slot -> index into `units`) to every
// repeated layer: the units' preloads take the slots their ops had, in the permuted unit order;
// other preloads keep program order.
Decisions permuted_order(const CostContext& costs, const ir::RepeatedLayers& layers,
                         const std::vector<LoadUnit>& units, const std::vector<int>& permutation);

// The prefix test for the layer's large units: with the prefix issued first, would any large unit
// that has everything it needs have to execute beside preloads that cannot fit at their smallest?
// A unit stands for its first op.
bool prefix_fits(const CostContext& costs, const ir::RepeatedLayers& layers,
                 const std::vector<LoadUnit>& units, const std::vector<int>& prefix);

}  // namespace tessera::planner
