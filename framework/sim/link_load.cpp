#include "framework/sim/link_load.hpp"

#include <algorithm>
#include <cmath>
#include <string>

namespace tessera::sim {

void LoadSum::add(std::span<const uint32_t> links, double bytes) {
  for (uint32_t l : links) {
    if (l >= bytes_on_.size()) bytes_on_.resize(l + 1, 0);
    if (bytes_on_[l] == 0) used_.push_back(l);
    bytes_on_[l] += bytes;
  }
}

void LoadSum::take(std::vector<uint32_t>& links, std::vector<double>& bytes) {
  std::sort(used_.begin(), used_.end());
  links = used_;
  bytes.clear();
  for (uint32_t l : used_) {
    bytes.push_back(bytes_on_[l]);
    bytes_on_[l] = 0;
  }
  used_.clear();
}

Result<LinkLoad> link_load(const ChipGraph& chip, std::span<const Transfer> transfers) {
  LoadSum sum;
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
      if (l >= chip.links.size())
        return input_error("transfer " + std::to_string(i) + ": the route names link " +
                           std::to_string(l) + ", which does not exist");
      latency_s += chip.links[l].latency_s;
    }
    sum.add(*route, t.bytes);
    out.latency_s = std::max(out.latency_s, latency_s);
  }
  sum.take(out.links, out.bytes);
  return out;
}

double alone_seconds(const ChipGraph& chip, const LinkLoad& load) {
  double busiest_s = 0;
  for (size_t i = 0; i < load.links.size(); ++i)
    busiest_s = std::max(busiest_s, load.bytes[i] / chip.links[load.links[i]].bytes_per_s);
  return busiest_s + load.latency_s;
}

}  // namespace tessera::sim
