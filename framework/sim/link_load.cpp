#include "framework/sim/link_load.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

namespace tessera::sim {

void LoadSum::add(std::span<const uint32_t> links, double bytes, double latency_s) {
  if (!(bytes > 0)) return;  // a link is listed once it carries a byte (take() relies on it)
  for (uint32_t l : links) {
    if (l >= bytes_on_.size()) {
      bytes_on_.resize(l + 1, 0);
      least_on_.resize(l + 1, 0);
    }
    if (bytes_on_[l] == 0) {
      used_.push_back(l);
      least_on_[l] = latency_s;
    }
    bytes_on_[l] += bytes;
    least_on_[l] = std::min(least_on_[l], latency_s);
  }
}

void LoadSum::take(std::vector<uint32_t>& links, std::vector<double>& bytes,
                   std::vector<double>& least_latency_s) {
  // A set that loads a good part of the chip's links (a preload to every core) lists them faster
  // by a scan than by sorting; both give the ascending order.
  if (used_.size() * 16 >= bytes_on_.size()) {
    used_.clear();
    for (uint32_t l = 0; l < bytes_on_.size(); ++l)
      if (bytes_on_[l] != 0) used_.push_back(l);
  } else {
    std::sort(used_.begin(), used_.end());
  }
  links = used_;
  bytes.clear();
  least_latency_s.clear();
  for (uint32_t l : used_) {
    bytes.push_back(bytes_on_[l]);
    least_latency_s.push_back(least_on_[l]);
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
    double latency_s = 0, slowest = std::numeric_limits<double>::infinity();
    for (uint32_t l : *route) {
      if (l >= chip.links.size())
        return input_error("transfer " + std::to_string(i) + ": the route names link " +
                           std::to_string(l) + ", which does not exist");
      latency_s += chip.links[l].latency_s;
      slowest = std::min(slowest, chip.links[l].bytes_per_s);
    }
    sum.add(*route, t.bytes, latency_s);
    out.floor_s = std::max(out.floor_s, latency_s + t.bytes / slowest);
  }
  sum.take(out.links, out.bytes, out.least_latency_s);
  return out;
}

double alone_seconds(const ChipGraph& chip, const LinkLoad& load) {
  double seconds = load.floor_s;
  for (size_t i = 0; i < load.links.size(); ++i)
    seconds = std::max(
        seconds, load.least_latency_s[i] + load.bytes[i] / chip.links[load.links[i]].bytes_per_s);
  return seconds;
}

}  // namespace tessera::sim
