// The planner's side of the hand-off (handoff.hpp): for a design's decisions, each op's hand-off
// bytes and their time on the chip links, which the timeline adds before the op's distribute_data
// (where the simulator runs them). Timed on the chip's routes as the simulator lays them
// (NetworkPricer::handoff, the same transfer set), or without a pricer at the chips' links
// together (chips × Machine::chip_link_bytes_per_s), as partials merged between chips are
// (partition/evaluate.cpp). The same prices weigh the choice of each op's execution plan
// (handoff_choice.hpp) before the timeline times it.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "framework/planner/handoff.hpp"
#include "framework/planner/pricing.hpp"
#include "framework/planner/schedule.hpp"

namespace tessera::planner {

class HandOffTimes {
 public:
  // `graph`, `pricer` (may be null) must outlive this.
  HandOffTimes(const ir::Graph& graph, const Machine& machine, const NetworkPricer* pricer);

  struct Timed {
    std::shared_ptr<const HandOff> handoff;  // null: none
    double seconds = 0;
  };
  // Per op of `decisions` (plans from `costs`); empty when the machine hands nothing off.
  std::vector<Timed> of(const CostContext& costs, const Decisions& decisions) const;
  // Seconds of op `op`'s hand-off under `decisions` (its plans and its producers'); 0 when the
  // machine hands nothing off.
  double seconds(const CostContext& costs, const Decisions& decisions, int op) const;
  // Per op, the ops that read an activation it wrote (empty when the machine hands nothing off).
  const std::vector<std::vector<int>>& consumers() const { return consumers_; }

 private:
  const OpTraffic* traffic(const CostContext& costs, const Decisions& d, int op) const;
  // Op `op`'s hand-off, cached by its key; `placed` is filled for op and its producers on a miss.
  Timed op_timed(const CostContext& costs, const Decisions& d, int op,
                 std::vector<PlacedOp>& placed) const;
  PlacedOp placed_op(const CostContext& costs, const Decisions& d, int op) const;
  Timed timed(HandOff handoff, uint32_t cores) const;

  const ir::Graph& graph_;
  Machine machine_;
  const NetworkPricer* pricer_;
  std::vector<std::vector<Source>> sources_;
  std::vector<std::vector<int>> consumers_;
  std::vector<std::optional<partition::OpShape>> shapes_;  // per op; nullopt: not described
  // Guards traffic_ and timed_: lookups share it (Elk-Full's threads screen orders at once, and a
  // lock held per lookup made two threads slower than one), a miss takes it alone.
  mutable std::shared_mutex mutex_;
  // By (class, exec plan, preload plan): where its tiles sit (nullopt: not recorded).
  mutable std::map<std::tuple<int, int, int>, std::optional<OpTraffic>> traffic_;
  // By the op's class and plans, then each source's operand, class and plans: hashed, as Elk-Full's
  // order search asks it for every op of every order it screens, and a tree of these keys
  // compared word by word was 5 % of a Llama 2 13B compile on ipu-pod4-hbm3e.
  struct KeyHash {
    size_t operator()(const std::vector<int>& key) const;
  };
  mutable std::unordered_map<std::vector<int>, Timed, KeyHash> timed_;
};

}  // namespace tessera::planner
