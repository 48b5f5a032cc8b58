#include "framework/collective/price.hpp"

#include <algorithm>
#include <map>
#include <string>
#include <utility>

namespace tessera::collective {
namespace {

// Per message: 0 when it waits for nothing, else one past the latest level it waits for.
Result<std::vector<uint32_t>> levels_of(std::span<const Message> messages) {
  std::vector<uint32_t> level(messages.size(), 0);
  for (size_t m = 0; m < messages.size(); ++m)
    for (uint32_t a : messages[m].after) {
      if (a >= m)
        return Error{ErrorKind::internal, StatusCode::internal,
                     "collective schedule: message " + std::to_string(m) + " waits for message " +
                         std::to_string(a) + ", not an earlier one"};
      level[m] = std::max(level[m], level[a] + 1);
    }
  return level;
}

// What one level adds to the price.
struct LevelCost {
  std::vector<double> link_bytes;  // per chip link
  std::vector<uint32_t> sends;     // per chip
  double latency_s = 0;

  double seconds(const ChipGraph& graph) const {
    double busiest_s = 0;
    for (size_t l = 0; l < link_bytes.size(); ++l)
      busiest_s = std::max(busiest_s, link_bytes[l] / graph.links[l].bytes_per_s);
    uint32_t most_sends = *std::max_element(sends.begin(), sends.end());
    return busiest_s + latency_s + most_sends * graph.message_overhead_s;
  }
};

}  // namespace

double route_latency_s(const ChipGraph& graph, std::span<const uint32_t> route) {
  double latency_s = 0;
  for (uint32_t l : route) latency_s += graph.links[l].latency_s;
  return latency_s;
}

Result<std::vector<std::vector<uint32_t>>> message_routes(const ChipGraph& graph,
                                                          std::span<const Message> messages) {
  std::map<std::pair<uint32_t, uint32_t>, std::vector<uint32_t>> known;
  std::vector<std::vector<uint32_t>> routes;
  routes.reserve(messages.size());
  for (const Message& m : messages) {
    auto it = known.find({m.src_chip, m.dst_chip});
    if (it == known.end()) {
      auto route = graph.route(m.src_chip, m.dst_chip);
      if (!route) return route.error();
      it = known.emplace(std::pair{m.src_chip, m.dst_chip}, std::move(*route)).first;
    }
    routes.push_back(it->second);
  }
  return routes;
}

Result<CollectivePrice> price_schedule(const ChipGraph& graph, std::span<const Message> messages,
                                       CollectiveAlgorithm algorithm) {
  auto levels = levels_of(messages);
  if (!levels) return levels.error();
  auto routes = message_routes(graph, messages);
  if (!routes) return routes.error();
  uint32_t level_count =
      messages.empty() ? 0 : *std::max_element(levels->begin(), levels->end()) + 1;
  std::vector<LevelCost> costs(level_count, LevelCost{std::vector<double>(graph.links.size(), 0),
                                                      std::vector<uint32_t>(graph.chips, 0), 0});
  CollectivePrice price{algorithm, 0, 0, 0, level_count};
  std::vector<uint8_t> used(graph.links.size(), 0);
  for (size_t m = 0; m < messages.size(); ++m) {
    LevelCost& cost = costs[(*levels)[m]];
    for (uint32_t l : (*routes)[m]) {
      cost.link_bytes[l] += messages[m].bytes;
      price.link_bytes += messages[m].bytes;
      used[l] = 1;
    }
    cost.latency_s = std::max(cost.latency_s, route_latency_s(graph, (*routes)[m]));
    ++cost.sends[messages[m].src_chip];
  }
  for (const LevelCost& cost : costs) price.seconds += cost.seconds(graph);
  price.links_used = static_cast<uint32_t>(std::count(used.begin(), used.end(), 1));
  return price;
}

Result<std::vector<CollectivePrice>> price_all(const ChipGraph& graph,
                                               const Collective& collective) {
  if (auto checked = check_collective(graph, collective); !checked) return checked.error();
  std::vector<CollectivePrice> prices;
  for (CollectiveAlgorithm algorithm : algorithms_of(collective.kind)) {
    auto messages = schedule(graph, collective, algorithm);
    if (!messages && messages.error().code == StatusCode::failed_precondition) continue;
    if (!messages) return messages.error();
    auto priced = price_schedule(graph, *messages, algorithm);
    if (!priced) return priced.error();
    prices.push_back(*priced);
  }
  return prices;
}

Result<CollectivePrice> price(const ChipGraph& graph, const Collective& collective) {
  if (collective.algorithm != CollectiveAlgorithm::automatic) {
    auto messages = schedule(graph, collective, collective.algorithm);
    if (!messages) return messages.error();
    return price_schedule(graph, *messages, collective.algorithm);
  }
  auto prices = price_all(graph, collective);
  if (!prices) return prices.error();
  // Every kind has an algorithm every valid group can run (direct), so there is a cheapest.
  auto cheapest = std::min_element(
      prices->begin(), prices->end(),
      [](const CollectivePrice& a, const CollectivePrice& b) { return a.seconds < b.seconds; });
  return *cheapest;
}

}  // namespace tessera::collective
