#include "framework/serve/kv_room.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "framework/common/units.hpp"
#include "framework/frontend/zoo/zoo.hpp"
#include "framework/parallel/parallel.hpp"
#include "framework/planner/capacity.hpp"

namespace tessera::serve {

namespace {

// The context length the KV room is measured at: any length gives the same bytes per token.
constexpr int64_t kProbeSeq = 1024;

// The model's learned positions, when it has them: no sequence is longer.
std::optional<int64_t> learned_positions(const ModelRequest& request) {
  auto spec = zoo::find_model(request.model);
  if (spec && spec->position == zoo::Position::learned) return spec->max_positions;
  return std::nullopt;
}

// The chips that hold the KV cache and the graph each holds: the whole model on the machine
// (flat), or under a strategy one chip's graph of each stage on one chip of the machine.
struct Holders {
  std::optional<driver::OpenChip> one_chip;
  std::optional<parallel::Resolved> resolved;
  std::optional<parallel::ParallelModel> model;

  const Machine& machine(const ServedMachine& m) const {
    return one_chip ? one_chip->models.machine : m.chip->models.machine;
  }
  int64_t replicas() const { return resolved ? resolved->dp : 1; }
  size_t stages() const { return resolved ? resolved->stage_layers.size() : 1; }

  // Stage `s`'s graph of a decode step of `batch` sequences at `seq` positions each.
  Result<ir::Graph> graph(const ServedMachine& m, size_t s, int64_t batch, int64_t seq) const {
    ModelRequest step = step_request(m.request, Phase::decode, batch, seq);
    if (!resolved) return load_model(step);
    parallel::Resolved at = *resolved;
    at.batch = batch;
    at.micro_batch = std::max<int64_t>(1, batch / (at.dp * at.micro_batches));
    parallel::ParallelModel stepped = *model;
    stepped.request = step;
    return load_model(parallel::stage_request(stepped, at, s));
  }
};

// `batch`: the machine's, every replica's sequences.
Result<Holders> holders(const ServedMachine& m, int64_t batch) {
  Holders h;
  if (!m.strategy) return h;
  auto model = parallel::parallel_model(step_request(m.request, Phase::decode, batch, 1));
  if (!model) return model.error();
  auto resolved = parallel::resolve(*m.strategy, *model, m.chip->models.machine);
  if (!resolved) return resolved.error();
  auto one = driver::open_one_chip(*m.plugins, *m.chip);
  if (!one) return one.error();
  h.model = std::move(*model);
  h.resolved = *resolved;
  h.one_chip.emplace(std::move(*one));
  return h;
}

// Blocks a stage's chips have room for beside its weights; none bound it when it holds no KV.
struct StageRoom {
  planner::OffChipFootprint footprint;
  double bytes_per_token = 0;
  int64_t blocks = INT64_MAX;
};

Result<StageRoom> stage_room(const ServedMachine& m, const Holders& h, size_t s,
                             int64_t block_tokens) {
  auto graph = h.graph(m, s, 1, kProbeSeq);
  if (!graph) return graph.error();
  StageRoom room;
  room.footprint = planner::off_chip_footprint(*graph, h.machine(m));
  room.bytes_per_token = room.footprint.kv_cache_bytes / kProbeSeq;
  if (room.bytes_per_token <= 0) return room;
  const double free_bytes = static_cast<double>(h.machine(m).off_chip_bytes) -
                            room.footprint.weight_bytes - room.footprint.input_bytes;
  room.blocks = free_bytes > 0
                    ? static_cast<int64_t>(
                          free_bytes / (room.bytes_per_token * static_cast<double>(block_tokens)))
                    : 0;
  return room;
}

// Blocks (of one replica's room) to give up so that a decode step of `batch` sequences, filling
// every replica's `replica_tokens` positions, fits every stage's chips as the compiler checks them
// (activations that spill grow with the batch); 0 when it fits. A sequence holds at most one
// replica's positions (and the model's learned positions).
Result<int64_t> blocks_over(const ServedMachine& m, const Holders& h,
                            const std::vector<StageRoom>& rooms, int64_t batch,
                            int64_t replica_tokens, int64_t block_tokens) {
  const Machine& machine = h.machine(m);
  const int64_t longest =
      std::min(replica_tokens, learned_positions(m.request).value_or(INT64_MAX));
  int64_t seq = std::clamp<int64_t>(h.replicas() * replica_tokens / batch, 1, longest);
  int64_t over = 0;
  for (size_t s = 0; s < h.stages(); ++s) {
    if (rooms[s].bytes_per_token <= 0) continue;
    auto graph = h.graph(m, s, batch, seq);
    if (!graph) return graph.error();
    double excess = planner::off_chip_footprint(*graph, machine).total_bytes() -
                    static_cast<double>(machine.off_chip_bytes);
    if (excess > 0)
      over = std::max(
          over,
          static_cast<int64_t>(std::ceil(excess / (rooms[s].bytes_per_token * block_tokens))) + 1);
  }
  return over;
}

// "llama3.1-8b on wormhole-n300", or under a strategy "... on one chip of wormhole-n300 (stage 0
// of --parallel tp=1,pp=1,dp=2)".
std::string holder_text(const ServedMachine& m, const Holders& h, size_t s) {
  if (!h.resolved) return fmt::format("{} on {}", m.request.model, m.chip->models.machine.chip);
  return fmt::format("{} on one chip of {} (stage {} of --parallel {})", m.request.model,
                     m.chip->models.machine.chip, s, parallel::to_string(*h.resolved));
}

// The room's facts from its tightest stage's chips (its blocks are set after the edge steps).
KvRoom room_facts(const Holders& h, const Machine& machine, const std::vector<StageRoom>& rooms,
                  size_t tightest, int64_t block_tokens) {
  KvRoom room;
  room.capacity_bytes = static_cast<double>(machine.off_chip_bytes);
  room.weight_bytes =
      rooms[tightest].footprint.weight_bytes + rooms[tightest].footprint.input_bytes;
  room.bytes_per_token = rooms[tightest].bytes_per_token;
  room.off_chip_bytes_per_s = machine.hbm_bytes_per_s;
  const double tp = h.resolved ? static_cast<double>(h.resolved->tp) : 1;
  for (const StageRoom& s : rooms) room.sequence_bytes_per_token += s.bytes_per_token * tp;
  room.block_tokens = block_tokens;
  if (h.resolved) {
    const parallel::Resolved& r = *h.resolved;
    auto layers = [&r](size_t n) {
      return std::accumulate(r.stage_layers.begin(), r.stage_layers.begin() + n, int64_t{0});
    };
    room.stage = RoomStage{static_cast<int64_t>(tightest), layers(tightest), layers(tightest + 1),
                           r.pp, r.dp};
  }
  return room;
}

// One replica's blocks less what else a full cache's steps keep off chip (activations that
// spill): the steps at its edge, one sequence and a full batch on every replica (`batch`: the
// machine's), must fit as the compiler checks them.
Result<int64_t> within_edge_steps(const ServedMachine& m, const Holders& h,
                                  const std::vector<StageRoom>& rooms, int64_t replica_blocks,
                                  int64_t batch, int64_t block_tokens) {
  for (int64_t edge : {h.replicas(), batch})
    for (int round = 0; round < 4 && replica_blocks > 0; ++round) {
      auto over = blocks_over(m, h, rooms, edge, replica_blocks * block_tokens, block_tokens);
      if (!over) return over.error();
      if (*over == 0) break;
      replica_blocks -= *over;
    }
  return replica_blocks;
}

}  // namespace

Result<KvRoom> kv_room(const ServedMachine& m, int64_t block_tokens, int64_t max_batch) {
  const int64_t d = replicas(m);
  auto h = holders(m, max_batch * d);
  if (!h) return h.error();
  const Machine& machine = h->machine(m);
  if (machine.off_chip_bytes == 0)
    return input_error(fmt::format(
        "chip {} states no off-chip capacity, so the KV cache's room is unknown; serve on a chip "
        "file that gives its memory's capacity",
        machine.chip));
  std::vector<StageRoom> rooms;
  size_t tightest = 0;
  for (size_t s = 0; s < h->stages(); ++s) {
    auto room = stage_room(m, *h, s, block_tokens);
    if (!room) return room.error();
    rooms.push_back(*room);
    if (room->blocks < rooms[tightest].blocks) tightest = s;
  }
  KvRoom room = room_facts(*h, machine, rooms, tightest, block_tokens);
  auto replica_blocks =
      within_edge_steps(m, *h, rooms, rooms[tightest].blocks, max_batch * d, block_tokens);
  if (!replica_blocks) return replica_blocks.error();
  if (*replica_blocks < 1)
    return input_error(
        fmt::format("{}: the weights ({}) leave no room for one KV block of {} tokens in {}; use a "
                    "narrower --weight-dtype or a machine with more chips",
                    holder_text(m, *h, tightest), format_bytes(room.weight_bytes), block_tokens,
                    format_bytes(room.capacity_bytes)));
  room.blocks = *replica_blocks;
  return room;
}

StepCost swap_cost(const KvRoom& room, const std::optional<EnergyRates>& energy, int64_t tokens) {
  const auto positions = static_cast<double>(tokens);
  StepCost cost{positions * room.bytes_per_token / room.off_chip_bytes_per_s, 0};
  if (!energy) return cost;
  EnergyCounts counts;
  counts.off_chip_bytes = positions * room.sequence_bytes_per_token;
  counts.latency_s = cost.seconds;
  auto spent = energy_of(*energy, counts);
  if (spent) cost.joules = spent->total_j();  // no FLOPs: no rate can be missing
  return cost;
}

int64_t request_context_limit(const ServedMachine& m, const KvRoom& room, std::string& why) {
  auto learned = learned_positions(m.request);
  if (learned && *learned < room.tokens()) {
    why = fmt::format("{}'s {} learned positions", m.request.model, *learned);
    return *learned;
  }
  why = room.replicas() > 1
            ? fmt::format("the KV cache's {} tokens of one of {} replicas on {}", room.tokens(),
                          room.replicas(), m.chip->models.machine.chip)
            : fmt::format("the KV cache's {} tokens on {}", room.tokens(),
                          m.chip->models.machine.chip);
  return room.tokens();
}

}  // namespace tessera::serve
