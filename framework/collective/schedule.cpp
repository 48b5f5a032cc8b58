// Each algorithm as messages and their dependencies. Rings follow Thakur, Rabenseifner and Gropp,
// "Optimization of Collective Communication Operations in MPICH" (IJHPCA 2005): an all-reduce is
// a reduce-scatter then an all-gather, p - 1 steps of bytes / p each.
#include <algorithm>
#include <bit>
#include <string>

#include "framework/collective/collective.hpp"

namespace tessera::collective {
namespace {

using Kind = CollectiveKind;

class Builder {
 public:
  explicit Builder(uint32_t chips) : into_(chips) {}
  uint32_t send(uint32_t src, uint32_t dst, double bytes, std::vector<uint32_t> after) {
    auto index = static_cast<uint32_t>(messages_.size());
    messages_.push_back(Message{src, dst, bytes, std::move(after)});
    into_[dst].push_back(index);
    return index;
  }
  // Every message into `chip` so far: what a chip that forwards all it has waits for.
  const std::vector<uint32_t>& into(uint32_t chip) const { return into_[chip]; }
  std::vector<Message> take() { return std::move(messages_); }

 private:
  std::vector<Message> messages_;
  std::vector<std::vector<uint32_t>> into_;
};

// `steps` steps around `order`: each chip sends `chunk_bytes` to the next, step s at a chip
// waiting for step s - 1's message into it. `last_in` (per chip, kNone: none yet) carries the
// chain from one call to the next, so that a later phase waits for the earlier one.
void ring_steps(Builder& b, std::span<const uint32_t> order, uint32_t steps, double chunk_bytes,
                std::vector<uint32_t>& last_in) {
  size_t p = order.size();
  std::vector<uint32_t> sent(p);
  for (uint32_t s = 0; s < steps; ++s) {
    for (size_t i = 0; i < p; ++i) {
      uint32_t src = order[i];
      std::vector<uint32_t> after;
      if (last_in[src] != kNone) after.push_back(last_in[src]);
      sent[i] = b.send(src, order[(i + 1) % p], chunk_bytes, std::move(after));
    }
    for (size_t i = 0; i < p; ++i) last_in[order[(i + 1) % p]] = sent[i];
  }
}

uint32_t ring_step_count(Kind kind, size_t p) {
  return static_cast<uint32_t>((kind == Kind::all_reduce ? 2 : 1) * (p - 1));
}

// One pass around `order` with `share` of the collective's bytes.
void ring_pass(Builder& b, const Collective& c, std::span<const uint32_t> order, double share,
               uint32_t chips) {
  std::vector<uint32_t> last_in(chips, kNone);
  double chunk_bytes = c.bytes * share / static_cast<double>(order.size());
  ring_steps(b, order, ring_step_count(c.kind, order.size()), chunk_bytes, last_in);
}

void bidirectional_ring(Builder& b, const ChipGraph& graph, const Collective& c) {
  std::vector<uint32_t> order = ring_order(graph, c.group);
  ring_pass(b, c, order, 0.5, graph.chips);
  std::reverse(order.begin(), order.end());
  ring_pass(b, c, order, 0.5, graph.chips);
}

std::string chip_list(std::span<const uint32_t> chips) {
  std::string text;
  for (uint32_t chip : chips) text += (text.empty() ? "" : ", ") + std::to_string(chip);
  return "{" + text + "}";
}

Error unavailable(std::string message) {
  return input_error(std::move(message), StatusCode::failed_precondition);
}

// Reduce-scatter along each row, all-reduce of each chip's 1/x along each column, all-gather along
// each row: the rows' and columns' rings run side by side.
Status ring_2d(Builder& b, const ChipGraph& graph, const Collective& c) {
  auto mesh = mesh_of(graph, c.group);
  if (!mesh)
    return unavailable(
        "ring_2d needs a group that is a mesh of at least 2 x 2 chips, neighbours "
        "joined both ways; chips " +
        chip_list(c.group) + " are not one");
  std::vector<uint32_t> last_in(graph.chips, kNone);
  auto line = [&](uint32_t first, uint32_t count, uint32_t stride) {
    std::vector<uint32_t> chips;
    for (uint32_t i = 0; i < count; ++i) chips.push_back(mesh->chips[first + i * stride]);
    return ring_order(graph, chips);
  };
  auto rows = [&]() {
    for (uint32_t row = 0; row < mesh->y; ++row)
      ring_steps(b, line(row * mesh->x, mesh->x, 1), mesh->x - 1, c.bytes / mesh->x, last_in);
  };
  rows();
  for (uint32_t col = 0; col < mesh->x; ++col)
    ring_steps(b, line(col, mesh->y, mesh->x), 2 * (mesh->y - 1),
               c.bytes / static_cast<double>(c.group.size()), last_in);
  rows();
  return ok_status();
}

// Binomial tree: in round k the chips at odd multiples of 2^k send their partial sums 2^k places
// down (towards group[0]); the broadcast retraces the rounds in reverse, a chip sending its copies
// one after another (each once the previous one has arrived), as the reduce received them.
void binomial_all_reduce(Builder& b, const Collective& c) {
  const auto& g = c.group;
  uint32_t p = static_cast<uint32_t>(g.size()), rounds = std::bit_width(p - 1);
  for (uint32_t k = 0; k < rounds; ++k)
    for (uint32_t r = 1u << k; r < p; r += 2u << k)
      b.send(g[r], g[r - (1u << k)], c.bytes, b.into(g[r]));
  std::vector<uint32_t> last_sent(p, kNone);
  for (uint32_t k = rounds; k-- > 0;)
    for (uint32_t r = 0; r + (1u << k) < p; r += 2u << k) {
      std::vector<uint32_t> after = b.into(g[r]);
      if (last_sent[r] != kNone) after.push_back(last_sent[r]);
      last_sent[r] = b.send(g[r], g[r + (1u << k)], c.bytes, std::move(after));
    }
}

// Recursive doubling (all-gather: partners 1, 2, 4 ... apart, the data doubling) or halving
// (reduce-scatter: partners p/2, p/4 ... apart, the data halving).
Status recursive(Builder& b, const Collective& c) {
  const auto& g = c.group;
  auto p = static_cast<uint32_t>(g.size());
  bool gather = c.kind == Kind::all_gather;
  if (!std::has_single_bit(p))
    return unavailable(std::string("tree ") + to_string(c.kind) + " (recursive " +
                       (gather ? "doubling" : "halving") +
                       ") needs a power-of-two number of chips; the group has " +
                       std::to_string(p));
  uint32_t rounds = std::bit_width(p) - 1;
  for (uint32_t k = 0; k < rounds; ++k) {
    uint32_t distance = gather ? 1u << k : p >> (k + 1);
    double bytes = gather ? c.bytes * distance / p : c.bytes / static_cast<double>(2u << k);
    std::vector<std::vector<uint32_t>> waits;
    for (uint32_t chip : g) waits.push_back(b.into(chip));
    for (uint32_t r = 0; r < p; ++r) b.send(g[r], g[r ^ distance], bytes, waits[r]);
  }
  return ok_status();
}

// Every chip sends each peer `chunk_bytes` at once, after all that reached it before the phase.
void direct_phase(Builder& b, std::span<const uint32_t> group, double chunk_bytes) {
  std::vector<std::vector<uint32_t>> waits;
  for (uint32_t chip : group) waits.push_back(b.into(chip));
  for (size_t s = 0; s < group.size(); ++s)
    for (uint32_t dst : group)
      if (dst != group[s]) b.send(group[s], dst, chunk_bytes, waits[s]);
}

void direct(Builder& b, const Collective& c) {
  if (c.kind == Kind::send_recv) {
    b.send(c.group[0], c.group[1], c.bytes, {});
    return;
  }
  double chunk = c.bytes / static_cast<double>(c.group.size());
  direct_phase(b, c.group, chunk);
  if (c.kind == Kind::all_reduce) direct_phase(b, c.group, chunk);
}

Status has_algorithm(const Collective& c, CollectiveAlgorithm algorithm) {
  if (algorithm == CollectiveAlgorithm::automatic)
    return input_error(
        "a schedule needs a concrete algorithm; sim::price_collective() chooses one for "
        "automatic");
  auto known = algorithms_of(c.kind);
  if (std::find(known.begin(), known.end(), algorithm) != known.end()) return ok_status();
  std::string names;
  for (CollectiveAlgorithm a : known)
    names += (names.empty() ? "" : ", ") + std::string(to_string(a));
  return input_error(std::string(to_string(c.kind)) + " has no " + to_string(algorithm) +
                         " algorithm; its algorithms: " + names,
                     StatusCode::unimplemented);
}

Status build(Builder& b, const ChipGraph& graph, const Collective& c, CollectiveAlgorithm a) {
  switch (a) {
    case CollectiveAlgorithm::ring:
      ring_pass(b, c, ring_order(graph, c.group), 1.0, graph.chips);
      break;
    case CollectiveAlgorithm::bidirectional_ring:
      bidirectional_ring(b, graph, c);
      break;
    case CollectiveAlgorithm::ring_2d:
      return ring_2d(b, graph, c);
    case CollectiveAlgorithm::tree:
      if (c.kind != Kind::all_reduce) return recursive(b, c);
      binomial_all_reduce(b, c);
      break;
    case CollectiveAlgorithm::direct:
      direct(b, c);
      break;
    case CollectiveAlgorithm::automatic:  // refused by has_algorithm
      break;
  }
  return ok_status();
}

}  // namespace

Result<std::vector<Message>> schedule(const ChipGraph& graph, const Collective& collective,
                                      CollectiveAlgorithm concrete) {
  if (auto checked = check_collective(graph, collective); !checked) return checked.error();
  if (auto known = has_algorithm(collective, concrete); !known) return known.error();
  Builder b(graph.chips);
  if (auto built = build(b, graph, collective, concrete); !built) return built.error();
  return b.take();
}

}  // namespace tessera::collective
