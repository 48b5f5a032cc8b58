// What a collective costs on a chip graph, and the routes its messages take. The figure itself is
// computed in one place, sim/collective_sim.hpp: the planner prices a collective by moving its
// schedule alone on the simulator's flow network (price_collective), and the simulator moves the
// same schedule with every concurrent copy (simulate_collectives), so that planned and simulated
// differ only by what the copies do to each other on shared links. Alone on its links a ring
// all-reduce then takes 2 (p - 1) (alpha + n / (p B)), the bound of Thakur, Rabenseifner and Gropp
// (IJHPCA 2005), and a schedule whose messages reach their peers over routes of different lengths
// or that issues several messages per chip overlaps them as the links allow.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "framework/collective/collective.hpp"

namespace tessera::collective {

struct CollectivePrice {
  CollectiveAlgorithm algorithm = CollectiveAlgorithm::ring;  // the concrete one priced
  double seconds = 0;
  // Bytes summed over every chip link each message crosses (a message of n bytes over 3 hops
  // counts 3n): what energy charges at the chip file's chip_link_pj_per_byte.
  double link_bytes = 0;
  uint32_t links_used = 0;  // chip links that carry any byte
};

// graph.route() of every message, in order (a pair's route found once).
Result<std::vector<std::vector<uint32_t>>> message_routes(const ChipGraph& graph,
                                                          std::span<const Message> messages);
// The latency of a route: its links' latencies summed.
double route_latency_s(const ChipGraph& graph, std::span<const uint32_t> route);

}  // namespace tessera::collective
