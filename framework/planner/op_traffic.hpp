// Where an op's tiles sit and which cores exchange what: the one description of an op's transfers
// between cores, made from its execution plan and its shape, that the simulator runs (sim/engine)
// and the planner's costs are to use.
//
// Placement: the plan's cores 0..cores_used-1 hold the tiles in mixed radix over the ranks'
// factors, in an order of the ranks (fastest first). The plan's cores sit on the chips in equal
// consecutive blocks (chip_of), each chip's in the Topology's order. The planner chooses the order
// whose exchanges take least time on the chip's routes (partition/, pricing.hpp) and records it
// (ExecPlan::placement); a plan without one gets the order whose exchanges cross chips least
// (bytes), among every order of the split ranks (at most kMaxPlacementRanks of them; more: the
// default); ties, and every one-chip machine, keep the default: the combined ranks (split
// reductions) fastest, so the partials of one output tile sit on consecutive cores, then the other
// ranks, the last rank of the Einsum's loop order fastest. A plugin's plan may place its tiles
// itself (ExecPlan::core_digits, e.g. tree_simd's levels): its cores count in mixed radix over its
// digits, a rank possibly split over several, and each sits on the Topology core the digits name
// (OpTraffic::physical). From the placement:
//   rotation  the rotated operand's tile is shared by the cores that differ only on the ranks it
//             ignores; they are cut, in core order, into rings of rotation_steps cores, and at
//             each step every core sends its piece to the next core of its ring.
//   combine   the partials of one output tile (the combine_parts cores differing only on the
//             combined ranks) merge up a binary tree: at level l the one at offset i (i mod
//             2^(l+1) = 2^l) sends its partial to the one at i - 2^l; softmax and normalisation
//             send the result back down (two passes).
//   gather    distribute_data: the cores sharing the op's largest HBM input tile pass its pieces
//             round a ring (an all-gather) from the preload layout to the execution layout.
#pragma once

#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "framework/common/status.hpp"
#include "framework/planner/op_plans.hpp"
#include "framework/planner/partition/plan_space.hpp"

namespace tessera::planner {

inline constexpr size_t kMaxPlacementRanks = 5;  // 120 orders

// The chip of the plan's core `core` when `cores` of them are spread over `chips` chips: chip c
// holds cores [cores·c/chips, cores·(c+1)/chips).
uint32_t chip_of(uint32_t core, uint32_t cores, uint32_t chips);

struct OpTraffic {
  uint32_t cores = 0;      // the plan's cores_used
  std::vector<int> order;  // the placement: ranks, fastest first (empty: core_digits')
  // Per plan core: its Topology core, when the plan says (ExecPlan::core_digits); empty: the
  // plan's cores sit on each chip's first cores in order (chip_of).
  std::vector<uint32_t> physical;
  double cross_chip_bytes = 0;  // of the exchanges below, the bytes between chips
  // Per core: the core its rotated piece goes to at each step (itself: none); empty: no rotation.
  std::vector<uint32_t> rotation_next;
  double rotation_bytes = 0;  // all steps, all cores: shift_bytes - combine_bytes
  uint32_t combine_parts = 1;
  // The cores by output tile: each run of combine_parts holds one tile's partials, in core order.
  std::vector<uint32_t> combine_order;
  int combine_passes = 1;
  double combine_bytes = 0;  // all levels and passes
  int combine_levels() const;
  // Per core: the next core of its distribute ring (itself: none); empty: nothing to gather.
  std::vector<uint32_t> gather_next;
  bool operator==(const OpTraffic&) const = default;
};

// The placements worth comparing for `exec`: the default order first, then every order of its
// split ranks (at most kMaxPlacementRanks of them; more: the default alone), the unsplit ranks
// after them.
std::vector<std::vector<int>> placement_orders(const partition::OpShape& op, const ExecPlan& exec);

// The placement `order` laid on rectangles of `grid`'s cores from its first: the plan's cores,
// counting in mixed radix over the order's digits, fill `columns` cores of a row (the fastest
// digits; a rank's factor is cut in two where the row ends) and then the rows below, so the
// exchanges along the fastest ranks run along rows and the others down columns (a matmul's k × n
// tiles on a P × Q block of a mesh, its partial sums merged along the rows). As core_digits
// (ExecPlan): columns stride 1, rows stride grid.columns. Two widths are worth pricing: the widest
// row the order's digits can be cut at, and the widest that is a power of two (a binary tree's
// levels then pair cores of one column: a width of 200 sends a level of 128 across a row's end
// and 72 columns back). None that fits in one row, fills whole rows (the grid's own order places
// it so) or needs more rows than the grid has; so none at all for a plan within a row.
struct GridPlacement {
  std::vector<CoreDigit> digits;
  uint32_t columns = 0;  // of the rectangle
};
std::vector<GridPlacement> grid_placements(const ExecPlan& exec, const std::vector<int>& order,
                                           const CoreGrid& grid);

// The split ranks the exchanges move along fastest, heaviest first (bytes: the rotation's along
// the ranks its operand ignores, the combine's along the combined ranks, `distribute_bytes` along
// the ranks the distributed input ignores), so rings and trees sit on consecutive cores; ties
// and the unsplit ranks in the default order.
std::vector<int> local_order(const partition::OpShape& op, const ExecPlan& exec,
                             double distribute_bytes);

// The op's exchanges with its tiles placed in `order` (every rank once, fastest first). Errors
// as op_traffic's; a rotation this order cannot cut into rings is one of them.
Result<OpTraffic> op_traffic_at(const partition::OpShape& op, const ExecPlan& exec,
                                const std::vector<int>& order);

// op_traffic_at's exchanges in brief, without walking the plan's cores: their sizes (every field of
// OpTraffic but the partners: rotation_next, combine_order and gather_next are left empty),
// whether the placement rotates and gathers, and each exchange's shape: what decides its partners
// (the plan's cores; the rotation's ring; then per run of digits of more than one block, fastest
// first, its blocks and whether the exchange's tile varies over it: the rotated operand's, the
// output's, the distributed input's). Exchanges of one shape (and combine level) run between the
// same cores, so their prices can be kept by it. Errors as op_traffic_at's.
struct PlacementBrief {
  OpTraffic sizes;
  bool rotates = false, gathers = false;
  std::vector<uint32_t> rotation_shape, combine_shape, gather_shape;
  const std::vector<uint32_t>& shape(Exchange kind) const {
    return kind == Exchange::rotation  ? rotation_shape
           : kind == Exchange::combine ? combine_shape
                                       : gather_shape;
  }
};
Result<PlacementBrief> placement_brief(const partition::OpShape& op, const ExecPlan& exec,
                                       const std::vector<int>& order);

// The op's exchanges with its tiles where the plan put them (exec.core_digits, else
// exec.placement) or, for a plan that does not say, in the placement_orders' order that crosses
// chips least; nullopt when the plan does not record its factors (a plugin's plan without
// core_digits). Input errors name the field a hand-edited plan got wrong: factors that are not
// one per rank or whose product is not cores_used, a rotated operand that is not an input,
// rotation steps below 1 or not dividing the operand's copies, a placement that does not list
// every rank once, core digits whose counts do not multiply to the factors or that put two tiles
// on one core. `distribute_bytes` (the preload plan's) weighs
// the gather against the other exchanges when the placement is chosen.
Result<std::optional<OpTraffic>> op_traffic(const partition::OpShape& op, const ExecPlan& exec,
                                            double distribute_bytes, uint32_t chips);

// The combine tree's transfers (from, to) at one step: levels 0.. up the tree, then (a second
// pass) back down.
std::vector<std::pair<uint32_t, uint32_t>> combine_transfers(const OpTraffic& t, int step);
// The bytes the tree moves at that step: every transfer carries one partial (of the plan's cores'
// combine_parts-sized runs: the combine_order itself is not read).
double combine_step_bytes(const OpTraffic& t, int step);

}  // namespace tessera::planner
