#include "tree_chip.hpp"

#include <algorithm>
#include <array>
#include <cctype>

namespace tessera::plugins::tree {

namespace {

struct LevelDefaults {
  const char* name;  // reported by level()
  const char* key;   // parameter prefix
  uint32_t fanout;
  uint64_t memory_bytes;
  double bytes_per_cycle;  // down and up
};

// MN-Core 2 [V: dev.mn-core.com hardware_specification; S: manual §1.5], see topology.hpp. The
// chip row's rate is the board's chip-to-chip link, used only with several chips [U].
constexpr std::array<LevelDefaults, kMnCore2Levels> kDefaults = {{
    {"chip", "chip", 1, 0, 16},
    {"group", "group", 4, 4u << 20, 64},
    {"L2B", "l2b", 2, 256u << 10, 64},
    {"L1B", "l1b", 8, 64u << 10, 128},
    {"MAB", "mab", 16, 0, 32},
    {"PE", "pe", 4, 32u << 10, 8},
}};

constexpr int64_t kMaxFanout = 1024;
// Tables per node grow with the node count; this keeps them to tens of MB.
constexpr uint64_t kMaxNodes = 1u << 20;
// An explicit level's default link rate [U].
constexpr double kExplicitBytesPerCycle = 8;

// One level's keys under `prefix`; without `links` only its memory (a single root).
TreeLevel read_level(const sdk::Params& params, const std::string& prefix, const LevelDefaults& d,
                     double clock_hz, bool links, bool lowest) {
  TreeLevel l;
  l.name = d.name;
  l.memory_bytes = static_cast<uint64_t>(
      params.get_int(prefix + "memory_bytes", d.memory_bytes, lowest ? 1 : 0));
  if (!links) return l;
  l.fanout = get_count(params, prefix + "fanout", d.fanout, kMaxFanout);
  double down = params.get_double(prefix + "down_bytes_per_cycle", d.bytes_per_cycle, 0.0);
  double up = params.get_double(prefix + "up_bytes_per_cycle", down, 0.0);
  l.down_bytes_per_s = down * clock_hz;
  l.up_bytes_per_s = up * clock_hz;
  return l;
}

// Nodes per level; `key_of(level)` names the fanout parameter blamed for too large a tree.
template <class KeyOf>
void count_nodes(std::vector<TreeLevel>& levels, KeyOf&& key_of) {
  uint64_t nodes = 1;
  for (size_t i = 0; i < levels.size(); ++i) {
    nodes *= levels[i].fanout;
    if (nodes > kMaxNodes)
      throw sdk::invalid_argument("parameter '" + key_of(i) + "': the tree would have more than " +
                                  std::to_string(kMaxNodes) + " nodes on one level");
    levels[i].nodes = nodes;
  }
}

std::string lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

bool valid_name(const std::string& name) {
  if (name.empty() || !std::isalpha(static_cast<unsigned char>(name[0]))) return false;
  return std::all_of(name.begin(), name.end(),
                     [](char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; });
}

}  // namespace

std::vector<TreeLevel> read_mncore2_levels(const sdk::Params& params, double clock_hz,
                                           bool multi_chip) {
  std::vector<TreeLevel> levels;
  for (uint32_t i = 0; i < kMnCore2Levels; ++i) {
    const LevelDefaults& d = kDefaults[i];
    bool links = i > 0 || multi_chip;
    levels.push_back(
        read_level(params, std::string(d.key) + ".", d, clock_hz, links, i + 1 == kMnCore2Levels));
  }
  count_nodes(levels, [](size_t i) { return std::string(kDefaults[i].key) + ".fanout"; });
  return levels;
}

ChipWide read_chip_wide(const sdk::Params& params) {
  ChipWide w;
  w.name = params.get_string("name", "mncore2");
  w.clock_hz = params.get_double("clock_hz", kMnCore2ClockHz, 0.0);
  w.link_latency_s = params.get_non_negative("link_latency_cycles", 4) / w.clock_hz;
  w.dram_bytes_per_s = params.get_double("dram.bytes_per_s", 128e9, 0.0);
  w.dram_capacity_bytes =
      static_cast<uint64_t>(params.get_double("dram.capacity_bytes", 4.0 * (1 << 30), 0.0));
  w.sram_bytes_per_cycle = params.get_double("sram.bytes_per_cycle", 32, 0.0);
  return w;
}

TreeChip::TreeChip(const sdk::Params& params)
    : wide_(read_chip_wide(params)),
      vector_bytes_per_cycle_(params.get_double("vector_bytes_per_cycle", 8, 0.0)),
      element_bytes_(get_count(params, "element_bytes", 4, 1024)),
      flops_(params, kMnCore2FlopsPerCycle) {
  top_is_chips_ = !params.has("levels.0.name");
  if (!top_is_chips_) {
    read_explicit_levels(params);
  } else {
    levels_ = read_mncore2_levels(params, wide_.clock_hz, true);
    for (uint32_t i = 0; i < kMnCore2Levels; ++i)
      levels_[i].alias = params.get_string(std::string(kDefaults[i].key) + ".alias", "");
  }
  dram_level_ = static_cast<uint32_t>(
      params.get_int("dram.level", top_is_chips_ ? 1 : 0, 0, static_cast<int64_t>(lowest_level())));
  finish();
}

TreeChip::TreeChip(std::vector<TreeLevel> levels, uint32_t element_bytes, double clock_hz)
    : wide_{"custom", clock_hz, 0, 0, 0, 32},
      vector_bytes_per_cycle_(8),
      element_bytes_(element_bytes),
      flops_(sdk::Params(), kMnCore2FlopsPerCycle),
      levels_(std::move(levels)) {
  count_nodes(levels_, [](size_t i) { return "levels." + std::to_string(i) + ".fanout"; });
  finish();
}

void TreeChip::read_explicit_levels(const sdk::Params& params) {
  for (uint32_t i = 0; params.has("levels." + std::to_string(i) + ".name"); ++i) {
    std::string prefix = "levels." + std::to_string(i) + ".";
    if (i == TESSERA_MAX_LEVELS)
      throw sdk::invalid_argument("parameter '" + prefix + "name': at most " +
                                  std::to_string(TESSERA_MAX_LEVELS) + " levels");
    std::string name = params.require_string(prefix + "name");
    LevelDefaults d{name.c_str(), "", 1, 0, kExplicitBytesPerCycle};
    if (!params.has(prefix + "fanout"))
      throw sdk::Error(TESSERA_NOT_FOUND, "missing parameter '" + prefix + "fanout'");
    levels_.push_back(read_level(params, prefix, d, wide_.clock_hz, true, false));
    levels_.back().alias = params.get_string(prefix + "alias", "");
  }
  if (levels_.back().memory_bytes == 0)
    throw sdk::invalid_argument("parameter 'levels." + std::to_string(levels_.size() - 1) +
                                ".memory_bytes': the lowest level needs a memory (at least 1)");
  count_nodes(levels_, [](size_t i) { return "levels." + std::to_string(i) + ".fanout"; });
}

void TreeChip::finish() {
  if (levels_.empty() || levels_.size() > TESSERA_MAX_LEVELS)
    throw sdk::invalid_argument("a tree needs 1 to " + std::to_string(TESSERA_MAX_LEVELS) +
                                " levels, got " + std::to_string(levels_.size()));
  std::vector<std::string> seen;
  for (const TreeLevel& l : levels_) {
    for (const std::string* name_ptr : {&l.name, &l.alias}) {
      const std::string& name = *name_ptr;
      if (name_ptr == &l.alias && name.empty()) continue;
      if (!valid_name(name) || lower(name) == "addr")
        throw sdk::invalid_argument("level name '" + name +
                                    "': use letters and digits, starting with a letter, and "
                                    "not 'Addr' (the notation's memory address)");
      if (std::find(seen.begin(), seen.end(), lower(name)) != seen.end())
        throw sdk::invalid_argument("level name '" + name +
                                    "' is used twice (names and "
                                    "aliases must differ, ignoring case)");
      seen.push_back(lower(name));
    }
  }
}

std::optional<uint32_t> TreeChip::find_level(std::string_view name) const {
  std::string wanted = lower(name);
  for (uint32_t i = 0; i < num_levels(); ++i)
    if (lower(levels_[i].name) == wanted ||
        (!levels_[i].alias.empty() && lower(levels_[i].alias) == wanted))
      return i;
  return std::nullopt;
}

std::string TreeChip::level_list() const {
  std::string list;
  for (const TreeLevel& l : levels_) {
    list += (list.empty() ? "" : ", ") + l.name;
    if (!l.alias.empty()) list += " (" + l.alias + ")";
  }
  return list;
}

std::vector<std::string> TreeChip::all_names() const {
  std::vector<std::string> names;
  for (const TreeLevel& l : levels_) {
    names.push_back(l.name);
    if (!l.alias.empty()) names.push_back(l.alias);
  }
  return names;
}

uint64_t TreeChip::nodes_below(uint32_t ancestor, uint32_t level) const {
  uint64_t n = 1;
  for (uint32_t i = ancestor + 1; i <= level; ++i) n *= levels_.at(i).fanout;
  return n;
}

std::string TreeChip::path_text(uint32_t level, uint64_t node) const {
  std::string path;
  for (uint32_t k = level + 1; k-- > 0;) {
    uint32_t fanout = levels_.at(k).fanout;
    path = levels_[k].name + std::to_string(node % fanout) + (path.empty() ? "" : " ") + path;
    node /= fanout;
  }
  return path;
}

std::shared_ptr<const TreeChip> patent_example_chip() {
  TreeLevel a{"A", "", 4, 0, 0, 8e9, 8e9};
  TreeLevel b{"B", "", 4, 0, 8192, 32e9, 32e9};
  return std::make_shared<const TreeChip>(std::vector<TreeLevel>{a, b}, 4, 1e9);
}

}  // namespace tessera::plugins::tree
