#include "topology.hpp"

#include <algorithm>

namespace tessera::plugins::tree {

TreeTopology::TreeTopology(const sdk::Params& params)
    : TableTopology(params, kMnCore2ClockHz, kMnCore2FlopsPerCycle), chip_(params) {
  build();
}

void TreeTopology::add_nodes(uint32_t level) {
  const TreeLevel& l = chip_.level(level);
  auto kind = level == lowest() ? TESSERA_ENDPOINT_CORE : TESSERA_ENDPOINT_TREE_NODE;
  uint64_t per_top = chip_.nodes_below(0, level);
  for (uint32_t k = 0; k < l.nodes; ++k) {
    uint32_t chip = chip_.top_level_is_chips() ? static_cast<uint32_t>(k / per_top) : 0;
    tessera_endpoint e = flat_endpoint(kind, chip, static_cast<int32_t>(k), -1, l.memory_bytes);
    e.level = level;
    if (level > 0) e.parent = node(level - 1, k / l.fanout);
    tables_.add_endpoint(e, level == 0 && l.nodes == 1 ? l.name : l.name + " " + std::to_string(k));
  }
}

void TreeTopology::build() {
  // The cores first, then the inner levels top-down, then the DRAMs.
  first_.assign(chip_.num_levels(), 0);
  auto next = static_cast<uint32_t>(chip_.level(lowest()).nodes);
  for (uint32_t level = 0; level < lowest(); ++level) {
    first_[level] = next;
    next += static_cast<uint32_t>(chip_.level(level).nodes);
  }
  first_dram_ = next;
  add_nodes(lowest());
  for (uint32_t level = 0; level < lowest(); ++level) add_nodes(level);
  const uint64_t drams = chip_.level(chip_.dram_level()).nodes;
  for (uint32_t g = 0; g < drams; ++g)
    tables_.add_endpoint(flat_endpoint(TESSERA_ENDPOINT_MEMORY_CONTROLLER, 0,
                                       static_cast<int32_t>(g), -1, chip_.dram_capacity_bytes()),
                         "dram " + std::to_string(g));

  const double latency = chip_.link_latency_s();
  for (uint32_t level = 1; level < chip_.num_levels(); ++level) {
    const TreeLevel& l = chip_.level(level);
    for (uint32_t k = 0; k < l.nodes; ++k) {
      uint32_t parent = node(level - 1, k / l.fanout);
      tables_.add_link(parent, node(level, k), TESSERA_LINK_ON_CHIP, 0, l.down_bytes_per_s,
                       latency);
      tables_.add_link(node(level, k), parent, TESSERA_LINK_ON_CHIP, 0, l.up_bytes_per_s, latency);
    }
  }
  const TreeLevel& top = chip_.level(0);
  auto top_class = chip_.top_level_is_chips() ? TESSERA_LINK_CHIP_TO_CHIP : TESSERA_LINK_ON_CHIP;
  for (uint32_t a = 0; a < top.nodes; ++a)
    for (uint32_t b = a + 1; b < top.nodes; ++b)
      tables_.add_duplex(node(0, a), node(0, b), top_class, 0, top.down_bytes_per_s, latency);
  for (uint32_t g = 0; g < drams; ++g)
    tables_.add_duplex(dram(g), node(chip_.dram_level(), g), TESSERA_LINK_MEMORY, 0,
                       chip_.dram_bytes_per_s(), latency);
  // Each endpoint's links to and from the one above it, looked up once: routes walk them.
  up_.assign(tables_.num_endpoints(), 0);
  down_.assign(tables_.num_endpoints(), 0);
  auto link_to_above = [&](uint32_t e, uint32_t above) {
    up_[e] = tables_.link_between(e, above);
    down_[e] = tables_.link_between(above, e);
  };
  for (uint32_t level = 1; level < chip_.num_levels(); ++level)
    for (uint32_t k = 0; k < chip_.level(level).nodes; ++k)
      link_to_above(node(level, k), node(level - 1, k / chip_.level(level).fanout));
  for (uint32_t g = 0; g < drams; ++g) link_to_above(dram(g), node(chip_.dram_level(), g));
}

tessera_topology_info TreeTopology::info() const {
  const TreeLevel& cores = chip_.level(lowest());
  uint32_t chips = chip_.top_level_is_chips() ? chip_.level(0).fanout : 1;
  return make_info(tables_, static_cast<uint32_t>(cores.nodes), chips, chip_.num_levels(),
                   cores.memory_bytes, chip_.sram_bytes_per_s(), clock_hz_, chip_.name());
}

tessera_level TreeTopology::level(uint32_t index) const {
  const TreeLevel& l = chip_.level(index);
  tessera_level out{};
  out.name = l.name.c_str();
  out.fanout = l.fanout;
  out.nodes = static_cast<uint32_t>(l.nodes);
  out.memory_bytes = l.memory_bytes;
  // A single top node has no link of its own level.
  bool linked = index > 0 || l.nodes > 1;
  out.down_bytes_per_s = linked ? l.down_bytes_per_s : 0;
  out.up_bytes_per_s = linked ? l.up_bytes_per_s : 0;
  return out;
}

// A DRAM sits at its node's position (one extra link away).
TreeTopology::Position TreeTopology::position(uint32_t endpoint) const {
  if (endpoint < first_dram_ && (lowest() == 0 || endpoint < first_[0]))
    return {lowest(), endpoint};
  if (endpoint >= first_dram_) return {chip_.dram_level(), endpoint - first_dram_};
  uint32_t level = lowest() - 1;
  while (endpoint < first_[level]) --level;
  return {level, endpoint - first_[level]};
}

// Up from both ends to the lowest common ancestor, then down: the links up from src, then the
// links down to dst (walked up from dst and reversed). Ends under different top nodes cross the
// link between those.
void TreeTopology::route(uint32_t src, uint32_t dst, std::vector<uint32_t>& links) const {
  if (src == dst) return;
  const Position a = position(src), b = position(dst);
  auto climb = [&](Position& p) {
    p.index /= chip_.level(p.level).fanout;
    --p.level;
  };
  Position meet_a = a, meet_b = b;  // where the two walks end
  while (meet_a.level > meet_b.level) climb(meet_a);
  while (meet_b.level > meet_a.level) climb(meet_b);
  while (meet_a.index != meet_b.index && meet_a.level > 0) {
    climb(meet_a);
    climb(meet_b);
  }
  // The links of the walk from `end` (at `p`) up to `meet`, `step` of each endpoint passed.
  auto walk = [&](uint32_t end, Position p, Position meet, const std::vector<uint32_t>& step) {
    if (end >= first_dram_) links.push_back(step[end]);  // a DRAM sits one link from its node
    for (; p.level > meet.level; climb(p)) links.push_back(step[node(p.level, p.index)]);
  };
  walk(src, a, meet_a, up_);
  if (meet_a.index != meet_b.index)
    links.push_back(tables_.link_between(node(0, meet_a.index), node(0, meet_b.index)));
  const auto down_from = static_cast<std::ptrdiff_t>(links.size());
  walk(dst, b, meet_b, down_);
  std::reverse(links.begin() + down_from, links.end());
}

}  // namespace tessera::plugins::tree
