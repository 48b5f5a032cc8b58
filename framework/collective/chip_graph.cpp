#include "framework/collective/chip_graph.hpp"

#include <algorithm>
#include <deque>
#include <map>
#include <string>
#include <utility>

namespace tessera::collective {
namespace {

std::vector<ChipLink> merged(std::span<const ChipLink> links) {
  std::map<std::pair<uint32_t, uint32_t>, ChipLink> by_pair;
  for (const ChipLink& link : links) {
    auto [it, fresh] = by_pair.try_emplace({link.from_chip, link.to_chip}, link);
    if (fresh) continue;
    ChipLink& sum = it->second;
    sum.bytes_per_s += link.bytes_per_s;
    sum.latency_s = std::min(sum.latency_s, link.latency_s);
    sum.links += link.links;
  }
  std::vector<ChipLink> out;
  out.reserve(by_pair.size());
  for (auto& entry : by_pair) out.push_back(entry.second);
  return out;
}

std::string chip_count(uint32_t chips) {
  return std::to_string(chips) + (chips == 1 ? " chip" : " chips");
}

}  // namespace

ChipGraph::ChipGraph(uint32_t chip_count, std::span<const ChipLink> chip_links)
    : chips(chip_count), links(merged(chip_links)), first_out_(chip_count + 1, 0) {
  // links are sorted by from_chip: each chip's out-links are one range.
  for (const ChipLink& link : links) ++first_out_[link.from_chip + 1];
  for (uint32_t c = 0; c < chips; ++c) first_out_[c + 1] += first_out_[c];
}

std::vector<uint32_t> ChipGraph::reached_by(uint32_t from) const {
  std::vector<uint32_t> via(chips, kNone);
  std::vector<uint8_t> seen(chips, 0);
  std::deque<uint32_t> queue{from};
  seen[from] = 1;
  while (!queue.empty()) {
    uint32_t chip = queue.front();
    queue.pop_front();
    for (uint32_t l = first_out_[chip]; l < first_out_[chip + 1]; ++l) {
      uint32_t next = links[l].to_chip;
      if (seen[next]) continue;
      seen[next] = 1;
      via[next] = l;
      queue.push_back(next);
    }
  }
  return via;
}

Result<std::vector<uint32_t>> ChipGraph::route(uint32_t from, uint32_t to) const {
  for (uint32_t chip : {from, to})
    if (chip >= chips)
      return input_error("chip " + std::to_string(chip) + " is not in the chip graph (" +
                         chip_count(chips) + ", numbered from 0)");
  std::vector<uint32_t> path;
  if (from == to) return path;
  std::vector<uint32_t> via = reached_by(from);
  if (via[to] == kNone)
    return input_error("no chip-to-chip path from chip " + std::to_string(from) + " to chip " +
                       std::to_string(to));
  for (uint32_t chip = to; chip != from; chip = links[path.back()].from_chip)
    path.push_back(via[chip]);
  std::reverse(path.begin(), path.end());
  return path;
}

std::vector<std::optional<uint32_t>> ChipGraph::hops_from(uint32_t from) const {
  std::vector<uint32_t> via = reached_by(from);
  std::vector<std::optional<uint32_t>> hops(chips);
  hops[from] = 0;
  // Breadth-first order is not kept, so each chip's hops follow its chain back to `from`.
  for (uint32_t chip = 0; chip < chips; ++chip) {
    if (via[chip] == kNone) continue;
    uint32_t count = 0;
    for (uint32_t c = chip; c != from; c = links[via[c]].from_chip) ++count;
    hops[chip] = count;
  }
  return hops;
}

std::optional<uint32_t> ChipGraph::link_between(uint32_t from, uint32_t to) const {
  if (from >= chips) return std::nullopt;
  auto begin = links.begin() + first_out_[from], end = links.begin() + first_out_[from + 1];
  auto it = std::lower_bound(
      begin, end, to, [](const ChipLink& link, uint32_t chip) { return link.to_chip < chip; });
  if (it == end || it->to_chip != to) return std::nullopt;
  return static_cast<uint32_t>(it - links.begin());
}

namespace {

// The chip of each endpoint a chip-to-chip link touches, asked of the plugin once per endpoint.
class EndpointChips {
 public:
  explicit EndpointChips(const Topology& topology) : topology_(topology) {}
  Result<uint32_t> chip(uint32_t endpoint) {
    auto known = chips_.find(endpoint);
    if (known != chips_.end()) return known->second;
    auto e = topology_.endpoint(endpoint);
    if (!e) return e.error();
    chips_.emplace(endpoint, e->chip);
    return e->chip;
  }

 private:
  const Topology& topology_;
  std::map<uint32_t, uint32_t> chips_;
};

Result<ChipLink> chip_link(EndpointChips& endpoints, const Link& link) {
  auto from = endpoints.chip(link.src);
  if (!from) return from.error();
  auto to = endpoints.chip(link.dst);
  if (!to) return to.error();
  if (*from == *to)
    return plugin_error("topology link " + std::to_string(link.index) +
                        " is chip-to-chip but both its endpoints are on chip " +
                        std::to_string(*from));
  return ChipLink{*from, *to, link.bytes_per_s, link.latency_s, 1};
}

}  // namespace

Result<ChipGraph> chip_graph(const Topology& topology) {
  auto info = topology.info();
  if (!info) return info.error();
  EndpointChips endpoints(topology);
  std::vector<ChipLink> links;
  for (uint32_t i = 0; i < info->num_links; ++i) {
    auto link = topology.link(i);
    if (!link) return link.error();
    if (link->link_class != TESSERA_LINK_CHIP_TO_CHIP) continue;
    auto chip_link_of = chip_link(endpoints, *link);
    if (!chip_link_of) return chip_link_of.error();
    if (chip_link_of->to_chip >= info->num_chips || chip_link_of->from_chip >= info->num_chips)
      return plugin_error("topology link " + std::to_string(i) + " joins a chip beyond its " +
                          chip_count(info->num_chips));
    links.push_back(*chip_link_of);
  }
  return ChipGraph(info->num_chips, links);
}

}  // namespace tessera::collective
