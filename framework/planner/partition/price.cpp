// A candidate's exchanges priced on the chip's routes (pricing.hpp), in the placement that makes
// them fastest. The sets are the simulator's stages (sim/engine.cpp): the rotation ring carries
// all its steps' pieces as one set, the combine tree one set per level (each transfer one
// partial), distribute_data one ring.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <numeric>
#include <optional>

#include "framework/planner/op_traffic.hpp"
#include "framework/planner/partition/plan_space.hpp"

namespace tessera::planner::partition {

namespace {

// A grid placement's exchange shapes end in this word and its columns, so the pricer keeps their
// prices apart from the same exchanges in the Topology's order (shape words are core counts and
// 0/1 flags, never this).
constexpr uint32_t kGridShape = UINT32_MAX;

struct Priced {
  double shift_s = 0;  // rotation + combine
  BesideSeconds shift_s_beside{};
  std::optional<SetPrice> gather;
};

void add(Priced& out, const SetPrice& price, double bytes) {
  out.shift_s += price.seconds(bytes);
  add_beside(out.shift_s_beside, price.seconds_beside(bytes));
}

// The exchanges of a placement with `sizes` (OpTraffic's), a rotation when `rotates` and a gather
// when `gathers`, each set's price asked of price_of(kind, level).
template <class PriceOf>
Result<Priced> price(const OpTraffic& sizes, bool rotates, bool gathers, const PriceOf& price_of) {
  Priced out;
  if (rotates && sizes.rotation_bytes > 0) {
    auto ring = price_of(Exchange::rotation, 0);
    if (!ring) return ring.error();
    add(out, *ring, sizes.rotation_bytes);
  }
  const int steps = sizes.combine_passes * sizes.combine_levels();
  for (int step = 0; step < steps && sizes.combine_bytes > 0; ++step) {
    auto level = price_of(Exchange::combine, step);
    if (!level) return level.error();
    add(out, *level, combine_step_bytes(sizes, step));
  }
  if (gathers) {
    auto ring = price_of(Exchange::gather, 0);
    if (!ring) return ring.error();
    out.gather = *ring;
  }
  return out;
}

Result<Priced> price(const OpTraffic& t, const NetworkPricer& pricer) {
  return price(t, !t.rotation_next.empty(), !t.gather_next.empty(),
               [&](Exchange kind, int level) { return pricer.exchange(t, kind, level); });
}

}  // namespace

Status price_exchanges(const OpShape& op, ExecCandidate& candidate, const NetworkPricer& pricer,
                       Placements placements) {
  ExecPlan& plan = candidate.plan;
  if (plan.factors.empty()) return ok_status();
  const double distribute_bytes = widest_distribute_bytes(candidate);
  double best_s = std::numeric_limits<double>::infinity();
  std::vector<std::vector<int>> orders;
  if (placements == Placements::every) {
    orders = placement_orders(op, plan);
  } else {  // the default, and the one that keeps exchanges on consecutive cores
    orders.push_back(placement_orders(op, plan).front());
    std::vector<int> local = local_order(op, plan, distribute_bytes);
    if (local != orders.front()) orders.push_back(std::move(local));
  }
  const std::optional<CoreGrid> grid = pricer.core_grid();
  // The order's exchanges with the plan's cores in the Topology's order (no digits) or on the
  // grid's rectangles (`digits`, grid_placements); kept when strictly faster than the best so far.
  auto try_placement = [&](const std::vector<int>& order, const PlacementBrief& brief,
                           std::vector<CoreDigit> digits, uint32_t columns) -> Status {
    // The exchanges are laid on the plan's cores only when the pricer keeps no price of the shape.
    // (Rectangles of equal columns on one grid are equal: the grid's rows and columns are fixed.)
    std::optional<OpTraffic> laid;
    auto lay = [&]() -> Result<const OpTraffic*> {
      if (!laid) {
        ExecPlan placed = plan;
        placed.placement = order;
        placed.core_digits = digits;
        auto traffic = op_traffic(op, placed, distribute_bytes, 1);
        if (!traffic) return traffic.error();
        laid = std::move(**traffic);
      }
      return &*laid;
    };
    auto priced = price(brief.sizes, brief.rotates, brief.gathers, [&](Exchange kind, int level) {
      std::vector<uint32_t> shape = brief.shape(kind);
      if (columns > 0) shape.insert(shape.end(), {kGridShape, columns});
      return pricer.exchange_by_shape(shape, kind, level, lay);
    });
    if (!priced) return priced.error();
    double total_s =
        priced->shift_s + (priced->gather ? priced->gather->seconds(distribute_bytes) : 0);
    if (total_s < best_s) {  // strictly: ties keep the earlier order (the default first)
      best_s = total_s;
      plan.placement = order;
      plan.core_digits = std::move(digits);
      plan.shift_s = priced->shift_s;
      plan.shift_s_beside = priced->shift_s_beside;
      candidate.gather = priced->gather;
    }
    return ok_status();
  };
  for (const std::vector<int>& order : orders) {
    auto brief = placement_brief(op, plan, order);
    if (!brief) continue;  // this order cannot ring the rotation
    if (Status done = try_placement(order, *brief, {}, 0); !done) return done;
    if (!grid) continue;
    for (GridPlacement& rectangle : grid_placements(plan, order, *grid))
      if (Status done =
              try_placement(order, *brief, std::move(rectangle.digits), rectangle.columns);
          !done)
        return done;
  }
  // A distribution without a gather ring of its plan runs on the even ring (the simulator's):
  // priced there, its routes' latency with it, not at the cores' shift rate alone.
  if (!candidate.gather && distribute_bytes > 0) {
    std::optional<OpTraffic> placed;
    if (!plan.core_digits.empty()) {
      auto traffic = op_traffic(op, plan, distribute_bytes, 1);
      if (!traffic) return traffic.error();
      placed = std::move(**traffic);
    }
    auto ring = pricer.ring(static_cast<uint32_t>(plan.cores_used), placed ? &*placed : nullptr);
    if (!ring) return ring.error();
    candidate.gather = *ring;
  }
  return ok_status();
}

Status price_placed(const OpShape& op, ExecPlan& exec, PreloadPlan& preload, uint32_t chips,
                    const NetworkPricer& pricer) {
  auto traffic = op_traffic(op, exec, preload.distribute_bytes, chips);
  if (!traffic)
    return input_error("op '" + op.name + "', plan '" + exec.label +
                       "': " + traffic.error().message);
  if (!*traffic) return ok_status();
  auto priced = price(**traffic, pricer);
  if (!priced) return priced.error();
  exec.shift_s = priced->shift_s;
  exec.shift_s_beside = priced->shift_s_beside;
  auto network = pricer.preload(exec.cores_used, &**traffic);
  if (!network) return network.error();
  preload.network_s = network->seconds(preload.hbm_to_core_bytes);
  return ok_status();
}

Result<std::vector<size_t>> price_candidates(const OpShape& op,
                                             std::vector<ExecCandidate>& candidates,
                                             const NetworkPricer& pricer) {
  const double fastest = pricer.fastest_transfer_bytes_per_s();
  std::vector<double> bound(candidates.size());
  for (size_t i = 0; i < candidates.size(); ++i) {
    const ExecPlan& p = candidates[i].plan;
    bound[i] = p.compute_s + p.sync_s + p.shift_bytes / p.cores_used / fastest;
  }
  std::vector<size_t> by_space(candidates.size());
  std::iota(by_space.begin(), by_space.end(), size_t{0});
  std::stable_sort(by_space.begin(), by_space.end(), [&](size_t a, size_t b) {
    double sa = candidates[a].plan.exec_bytes_per_core, sb = candidates[b].plan.exec_bytes_per_core;
    return sa != sb ? sa < sb : bound[a] < bound[b];
  });
  std::vector<size_t> priced, front;
  double best_s = std::numeric_limits<double>::infinity();  // priced, no more space
  for (size_t i : by_space) {
    if (!(bound[i] < best_s)) continue;
    if (Status done = price_exchanges(op, candidates[i], pricer, Placements::few); !done)
      return done.error();
    priced.push_back(i);
    if (candidates[i].plan.time_s() < best_s) front.push_back(i);
    best_s = std::min(best_s, candidates[i].plan.time_s());
  }
  // Placement searched where it decides: on the plans that lead so far (a plan behind them in the
  // default placement may still win in another; its default price bounds it from above).
  for (size_t i : front)
    if (Status done = price_exchanges(op, candidates[i], pricer, Placements::every); !done)
      return done.error();
  std::sort(priced.begin(), priced.end());
  return priced;
}

}  // namespace tessera::planner::partition
