// The KV cache's room on the served machine: how many positions of KV cache fit beside the model
// as compiled, on the chips that hold them.
//
//   flat       the machine's off-chip capacity less the weights, constants and inputs of the
//              model as compiled (planner::off_chip_footprint, the numbers `tessera compile`
//              checks capacity with), over the model's KV bytes per position
//   strategy   each chip holds its stage's share (parallel::stage_request: 1/tp of its layers, the
//              embedding on the first stage, the head on the last; what tp does not divide, such
//              as KV heads fewer than tp, whole) and its layers' KV of every sequence its replica
//              runs, every micro-batch's. A chip of stage s holds (capacity - its weights) / (its
//              KV bytes per position) positions; a replica holds its tightest stage's. Each of
//              the dp replicas is its own server with a pool of that room (event_loop.hpp)
// Then, both ways, less what the decode steps at the room's edge (one sequence, and max_batch of
// them) spill off chip as the compiler checks them, so that the grid's edge points compile.
//
// Preemption by swap moves a sequence's KV out of the pool and back (swap_cost).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "framework/serve/compiled_costs.hpp"

namespace tessera::serve {

// Under a strategy, the stage whose chips bound the room.
struct RoomStage {
  int64_t index = 0, first_layer = 0, last_layer = 0;  // layers [first, last)
  int64_t stages = 1, replicas = 1;                    // pp and dp
};

struct KvRoom {
  // Of the chips that bound the room: the machine (flat), or one chip of `stage`.
  double capacity_bytes = 0, weight_bytes = 0;
  double bytes_per_token = 0;       // K and V of their layers, from the model's KV-cache tensors
  double off_chip_bytes_per_s = 0;  // their off-chip memory's rate (0: the chip states none)
  // One position of one sequence over every chip of its replica that holds a share of it.
  double sequence_bytes_per_token = 0;
  std::optional<RoomStage> stage;
  int64_t block_tokens = 16;
  int64_t blocks = 0;  // one replica's pool (the machine's when flat)
  int64_t tokens() const { return blocks * block_tokens; }
  int64_t replicas() const { return stage ? stage->replicas : 1; }
};

// Moving `tokens` positions of KV out of the cache, or back in: the time the chips that bound the
// room take at their off-chip memory's rate (Machine::hbm_bytes_per_s, from the chip file; every
// chip moves its share at once), and with `energy` rates the bytes every chip moves at the
// off-chip rate plus static power over that time. The link to wherever the KV waits (vLLM: host
// memory over PCIe) is not priced: no chip file states it.
StepCost swap_cost(const KvRoom& room, const std::optional<EnergyRates>& energy, int64_t tokens);

// Input errors: a chip that states no off-chip capacity, weights that leave no room for a block
// (naming the stage under a strategy). A strategy's resolve errors at `max_batch` sequences on
// each replica.
Result<KvRoom> kv_room(const ServedMachine& machine, int64_t block_tokens, int64_t max_batch);

// The most tokens one request may hold: a replica's KV room, or the model's learned positions when
// fewer; `why` says which ("the KV cache's 61234 tokens on wormhole-t3000").
int64_t request_context_limit(const ServedMachine& machine, const KvRoom& room, std::string& why);

}  // namespace tessera::serve
