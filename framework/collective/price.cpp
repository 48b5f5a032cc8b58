#include "framework/collective/price.hpp"

#include <map>
#include <utility>

namespace tessera::collective {

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

}  // namespace tessera::collective
