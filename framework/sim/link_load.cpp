#include "framework/sim/link_load.hpp"

#include <algorithm>
#include <cmath>
#include <string>

namespace tessera::sim {

Result<LinkLoad> link_load(const ChipGraph& chip, std::span<const Transfer> transfers) {
  std::vector<double> bytes_on(chip.links.size(), 0);
  std::vector<uint32_t> used;
  LinkLoad out;
  const auto endpoints = static_cast<uint32_t>(chip.endpoints.size());
  for (size_t i = 0; i < transfers.size(); ++i) {
    const Transfer& t = transfers[i];
    if (t.src >= endpoints || t.dst >= endpoints)
      return input_error("transfer " + std::to_string(i) + ": endpoint " +
                         std::to_string(std::max(t.src, t.dst)) + " is not on the chip (" +
                         std::to_string(endpoints) + " endpoints)");
    if (!(t.bytes >= 0) || !std::isfinite(t.bytes))
      return input_error("transfer " + std::to_string(i) + ": bytes must be finite and >= 0");
    if (t.src == t.dst || t.bytes == 0) continue;
    auto route = chip.route(t.src, t.dst);
    if (!route) return route.error();
    double latency_s = 0;
    for (uint32_t l : *route) {
      if (l >= bytes_on.size())
        return input_error("transfer " + std::to_string(i) + ": the route names link " +
                           std::to_string(l) + ", which does not exist");
      if (bytes_on[l] == 0) used.push_back(l);
      bytes_on[l] += t.bytes;
      latency_s += chip.links[l].latency_s;
    }
    out.latency_s = std::max(out.latency_s, latency_s);
  }
  std::sort(used.begin(), used.end());
  out.links = used;
  out.bytes.reserve(used.size());
  for (uint32_t l : used) out.bytes.push_back(bytes_on[l]);
  return out;
}

double alone_seconds(const ChipGraph& chip, const LinkLoad& load) {
  double busiest_s = 0;
  for (size_t i = 0; i < load.links.size(); ++i)
    busiest_s = std::max(busiest_s, load.bytes[i] / chip.links[load.links[i]].bytes_per_s);
  return busiest_s + load.latency_s;
}

}  // namespace tessera::sim
