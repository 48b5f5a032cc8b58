#include "topology.hpp"

namespace tessera::plugins::tree {

namespace {

struct LevelDefaults {
  const char* name;  // reported by level()
  const char* key;   // parameter prefix
  uint32_t fanout;
  uint64_t memory_bytes;
  double bytes_per_cycle;  // down and up
};

// MN-Core 2 [V: dev.mn-core.com hardware_specification; S: manual §1.5], see topology.hpp.
constexpr std::array<LevelDefaults, kLevels> kDefaults = {{
    {"chip", "chip", 1, 0, 0},
    {"group", "group", 4, 4u << 20, 64},
    {"L2B", "l2b", 2, 256u << 10, 64},
    {"L1B", "l1b", 8, 64u << 10, 128},
    {"MAB", "mab", 16, 0, 32},
    {"PE", "pe", 4, 32u << 10, 8},
}};

// fp32, fp16, bf16, fp8, int8, int32, fp64 per PE [D, see topology.hpp]
constexpr FlopsPerCycle::Table kFlopsPerCycle = {16, 128, 0, 0, 0, 0, 4};

constexpr int64_t kMaxFanout = 1024;
// The endpoint and link tables grow with the PE count; this keeps them to tens of MB.
constexpr uint64_t kMaxPes = 1u << 20;

}  // namespace

TreeTopology::TreeTopology(const sdk::Params& params)
    : TableTopology(params, 750e6, kFlopsPerCycle) {
  read_params(params);
  build();
}

void TreeTopology::read_params(const sdk::Params& params) {
  name_ = params.get_string("name", "mncore2");
  link_latency_s_ = params.get_non_negative("link_latency_cycles", 4) / clock_hz_;
  dram_bytes_per_s_ = params.get_double("dram.bytes_per_s", 128e9, 0.0);
  sram_bytes_per_cycle_ = params.get_double("sram.bytes_per_cycle", 32, 0.0);
  for (uint32_t level = 0; level < kLevels; ++level) read_level(params, level);
}

void TreeTopology::read_level(const sdk::Params& params, uint32_t level) {
  const LevelDefaults& d = kDefaults[level];
  std::string prefix = std::string(d.key) + ".";
  Level& l = levels_[level];
  l.name = d.name;
  // A core needs memory to run; inner nodes may be plain switches.
  int64_t min_memory = level == kPeLevel ? 1 : 0;
  l.memory_bytes =
      static_cast<uint64_t>(params.get_int(prefix + "memory_bytes", d.memory_bytes, min_memory));
  if (level == 0) return;  // the root: one node, no parent edge
  l.fanout = get_count(params, prefix + "fanout", d.fanout, kMaxFanout);
  l.nodes = levels_[level - 1].nodes * l.fanout;
  if (l.nodes > kMaxPes)
    throw sdk::invalid_argument("parameter '" + prefix + "fanout': the tree would have more than " +
                                std::to_string(kMaxPes) + " nodes on one level");
  double down = params.get_double(prefix + "down_bytes_per_cycle", d.bytes_per_cycle, 0.0);
  double up = params.get_double(prefix + "up_bytes_per_cycle", down, 0.0);
  l.down_bytes_per_s = down * clock_hz_;
  l.up_bytes_per_s = up * clock_hz_;
}

void TreeTopology::build() {
  // PEs first (they are the cores), then the inner levels top-down, then the DRAMs.
  first_[kPeLevel] = 0;
  uint32_t next = levels_[kPeLevel].nodes;
  for (uint32_t level = 0; level < kPeLevel; ++level) {
    first_[level] = next;
    next += levels_[level].nodes;
  }
  first_dram_ = next;

  auto add_level = [&](uint32_t level) {
    const Level& l = levels_[level];
    auto kind = level == kPeLevel ? TESSERA_ENDPOINT_CORE : TESSERA_ENDPOINT_TREE_NODE;
    for (uint32_t k = 0; k < l.nodes; ++k) {
      tessera_endpoint e = flat_endpoint(kind, 0, static_cast<int32_t>(k), -1, l.memory_bytes);
      e.level = level;
      if (level > 0) e.parent = node(level - 1, k / l.fanout);
      tables_.add_endpoint(e, level == 0 ? l.name : l.name + " " + std::to_string(k));
    }
  };
  add_level(kPeLevel);
  for (uint32_t level = 0; level < kPeLevel; ++level) add_level(level);
  for (uint32_t g = 0; g < levels_[kGroupLevel].nodes; ++g)
    tables_.add_endpoint(
        flat_endpoint(TESSERA_ENDPOINT_MEMORY_CONTROLLER, 0, static_cast<int32_t>(g), -1, 0),
        "dram " + std::to_string(g));

  for (uint32_t level = 1; level < kLevels; ++level) {
    const Level& l = levels_[level];
    for (uint32_t k = 0; k < l.nodes; ++k) {
      uint32_t parent = node(level - 1, k / l.fanout);
      tables_.add_link(parent, node(level, k), TESSERA_LINK_ON_CHIP, 0, l.down_bytes_per_s,
                       link_latency_s_);
      tables_.add_link(node(level, k), parent, TESSERA_LINK_ON_CHIP, 0, l.up_bytes_per_s,
                       link_latency_s_);
    }
  }
  for (uint32_t g = 0; g < levels_[kGroupLevel].nodes; ++g)
    tables_.add_duplex(dram(g), node(kGroupLevel, g), TESSERA_LINK_MEMORY, 0, dram_bytes_per_s_,
                       link_latency_s_);
}

tessera_topology_info TreeTopology::info() const {
  return make_info(tables_, levels_[kPeLevel].nodes, 1, kLevels, levels_[kPeLevel].memory_bytes,
                   sram_bytes_per_cycle_ * clock_hz_, clock_hz_, name_);
}

tessera_level TreeTopology::level(uint32_t index) const {
  const Level& l = levels_.at(index);
  tessera_level out{};
  out.name = l.name.c_str();
  out.fanout = l.fanout;
  out.nodes = l.nodes;
  out.memory_bytes = l.memory_bytes;
  out.down_bytes_per_s = l.down_bytes_per_s;
  out.up_bytes_per_s = l.up_bytes_per_s;
  return out;
}

// A DRAM sits at its group's position (one extra link away).
TreeTopology::Position TreeTopology::position(uint32_t endpoint) const {
  if (endpoint < first_[0]) return {kPeLevel, endpoint};
  if (endpoint >= first_dram_) return {kGroupLevel, endpoint - first_dram_};
  uint32_t level = kPeLevel - 1;
  while (endpoint < first_[level]) --level;
  return {level, endpoint - first_[level]};
}

// Up from both ends to the lowest common ancestor, then down: the walk from src is followed by
// the walk from dst reversed.
void TreeTopology::route(uint32_t src, uint32_t dst, std::vector<uint32_t>& links) const {
  if (src == dst) return;
  Position a = position(src);
  Position b = position(dst);
  std::vector<uint32_t> from_src{src};
  std::vector<uint32_t> from_dst{dst};
  if (src >= first_dram_) from_src.push_back(node(a.level, a.index));
  if (dst >= first_dram_) from_dst.push_back(node(b.level, b.index));
  auto climb = [&](Position& p, std::vector<uint32_t>& walk) {
    p.index /= levels_[p.level].fanout;
    --p.level;
    walk.push_back(node(p.level, p.index));
  };
  while (a.level > b.level) climb(a, from_src);
  while (b.level > a.level) climb(b, from_dst);
  while (a.index != b.index) {
    climb(a, from_src);
    climb(b, from_dst);
  }
  // Both walks end at the common ancestor; keep it once.
  from_src.insert(from_src.end(), from_dst.rbegin() + 1, from_dst.rend());
  tables_.append_walk(from_src, links);
}

}  // namespace tessera::plugins::tree
