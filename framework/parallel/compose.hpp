// The parts of compile_parallel after the stages are compiled: the collectives each stage needs
// (priced with every concurrent copy by the simulator's flows), the same run by the simulator, and
// the step composed from stages and collectives (parallel.hpp says how).
#pragma once

#include <functional>

#include "framework/collective/chip_graph.hpp"
#include "framework/parallel/parallel.hpp"
#include "framework/sim/collective_sim.hpp"

namespace tessera::parallel {

// The divisors of n > 0, ascending.
std::vector<int64_t> divisors(int64_t n);

// Where each replica's stages sit on the machine's chips.
struct Placement {
  std::vector<uint32_t> order;  // the machine's chips along its ring
  int64_t tp = 1, pp = 1;
  // Replica r's stage s's tensor rank t: consecutive along the ring, so a group's chips neighbour;
  // every other group counts its ranks backwards along it, so that rank t of one group and rank t
  // of the next (a stage's send) are as near as the ring makes them (a snake's turn: adjacent).
  uint32_t chip(int64_t r, int64_t s, int64_t t) const {
    int64_t group = r * pp + s;
    return order[static_cast<size_t>(group * tp + (group % 2 == 0 ? t : tp - 1 - t))];
  }
  std::vector<uint32_t> group(int64_t r, int64_t s) const {
    std::vector<uint32_t> g;
    for (int64_t t = 0; t < tp; ++t) g.push_back(chip(r, s, t));
    return g;
  }
  // Stage s's chips in every one of `replicas` replicas, replica by replica.
  std::vector<uint32_t> stage_chips(int64_t replicas, int64_t s) const {
    std::vector<uint32_t> chips;
    for (int64_t r = 0; r < replicas; ++r)
      for (uint32_t c : group(r, s)) chips.push_back(c);
    return chips;
  }
};

// The machine's chips along its ring, in groups of tp per stage, stages of a replica in turn.
Placement placement(const collective::ChipGraph& graph, const Resolved& resolved);

// The chips of replica r's stage s, in tensor rank order.
using GroupOf = std::function<std::vector<uint32_t>(int64_t replica, size_t stage)>;

// Megatron's tensor-parallel all-reduces (embedding, after attention and after the MLP of every
// layer), the LM head's all-gather of the vocabulary shards, the experts' all-to-all dispatch and
// combine, each stage's send to the next; each priced by `pricer` with its concurrent copies.
Result<std::vector<CollectiveUse>> stage_collectives(sim::CollectivePricer& pricer,
                                                     const ParallelModel& model,
                                                     const ParallelCompilation& compiled,
                                                     const GroupOf& group_of);

// driver::first_token_read of the model whole (a prefill's logits are the same bytes however the
// stages split them); nullopt without building the graph unless it is a zoo model's prefill.
Result<std::optional<driver::FirstTokenRead>> first_token_of(const ChipSpec& spec,
                                                             const ParallelModel& model);

// Sets each use's simulated_s: its copies moved at once by the simulator.
Status simulate_uses(const collective::ChipGraph& graph, ParallelCompilation& compiled);

// Stage s's collective ops in `plan` (its stage plan) wait what the uses' simulated_s say: a
// plan read back simulates with what the mover gives now.
void set_simulated_collectives(planner::DesignResult& plan, const std::vector<CollectiveUse>& uses,
                               size_t s);

std::vector<DesignStep> compose_steps(const ParallelCompilation& compiled,
                                      const ParallelModel& model,
                                      const std::optional<EnergyRates>& energy);

}  // namespace tessera::parallel
