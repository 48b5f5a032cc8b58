#include "framework/collective/collective.hpp"

#include <array>
#include <cmath>
#include <sstream>

#include "framework/common/user_text.hpp"

namespace tessera::collective {
namespace {

constexpr std::array kKindNames{"all_reduce", "all_gather", "reduce_scatter", "send_recv",
                                "all_to_all"};
constexpr std::array kAlgorithmNames{"automatic", "ring", "bidirectional_ring",
                                     "ring_2d",   "tree", "direct"};

template <class Enum, size_t N>
Result<Enum> parse_name(std::string_view text, const std::array<const char*, N>& names,
                        const char* what) {
  std::string valid;
  for (size_t i = 0; i < N; ++i) {
    if (text == names[i]) return static_cast<Enum>(i);
    valid += (i == 0 ? "" : ", ") + std::string(names[i]);
  }
  return input_error(std::string("unknown ") + what + " " + in_quotes(text) + "; expected one of " +
                     valid);
}

using A = CollectiveAlgorithm;
constexpr std::array kReduceAlgorithms{A::ring, A::bidirectional_ring, A::ring_2d, A::tree,
                                       A::direct};
constexpr std::array kShardAlgorithms{A::ring, A::bidirectional_ring, A::tree, A::direct};
constexpr std::array kDirectOnly{A::direct};

std::string number(double value) {
  std::ostringstream text;
  text << value;
  return text.str();
}

Status check_group(const ChipGraph& graph, const Collective& c) {
  size_t p = c.group.size();
  if (c.kind == CollectiveKind::send_recv && p != 2)
    return input_error("send_recv needs a group of exactly 2 chips (from, to); got " +
                       std::to_string(p));
  if (p < 2)
    return input_error(std::string(to_string(c.kind)) + " needs a group of at least 2 chips; got " +
                       std::to_string(p));
  std::vector<uint8_t> seen(graph.chips, 0);
  for (uint32_t chip : c.group) {
    if (chip >= graph.chips)
      return input_error("group: chip " + std::to_string(chip) + " is not in the chip graph (" +
                         std::to_string(graph.chips) + " chips, numbered from 0)");
    if (seen[chip]) return input_error("group: chip " + std::to_string(chip) + " is listed twice");
    seen[chip] = 1;
  }
  return ok_status();
}

// Every chip of the group reaches every other (send_recv: the one pair it uses).
Status check_paths(const ChipGraph& graph, const Collective& c) {
  for (size_t a = 0; a < c.group.size(); ++a) {
    auto hops = graph.hops_from(c.group[a]);
    for (size_t b = 0; b < c.group.size(); ++b) {
      if (a == b || hops[c.group[b]]) continue;
      if (c.kind == CollectiveKind::send_recv && a == 1) continue;
      return input_error("no chip-to-chip path from chip " + std::to_string(c.group[a]) +
                         " to chip " + std::to_string(c.group[b]));
    }
  }
  return ok_status();
}

}  // namespace

const char* to_string(CollectiveKind kind) {
  return kKindNames[static_cast<size_t>(kind)];
}
const char* to_string(CollectiveAlgorithm algorithm) {
  return kAlgorithmNames[static_cast<size_t>(algorithm)];
}

Result<CollectiveKind> parse_collective_kind(std::string_view text) {
  return parse_name<CollectiveKind>(text, kKindNames, "collective");
}
Result<CollectiveAlgorithm> parse_collective_algorithm(std::string_view text) {
  return parse_name<CollectiveAlgorithm>(text, kAlgorithmNames, "collective algorithm");
}

std::span<const CollectiveAlgorithm> algorithms_of(CollectiveKind kind) {
  switch (kind) {
    case CollectiveKind::all_reduce:
      return kReduceAlgorithms;
    case CollectiveKind::all_gather:
    case CollectiveKind::reduce_scatter:
      return kShardAlgorithms;
    case CollectiveKind::send_recv:
    case CollectiveKind::all_to_all:
      return kDirectOnly;
  }
  return {};
}

Status check_collective(const ChipGraph& graph, const Collective& collective) {
  if (!std::isfinite(collective.bytes) || !(collective.bytes > 0))
    return input_error(std::string(to_string(collective.kind)) +
                       ": bytes must be finite and > 0; got " + number(collective.bytes));
  if (auto group = check_group(graph, collective); !group) return group;
  return check_paths(graph, collective);
}

}  // namespace tessera::collective
