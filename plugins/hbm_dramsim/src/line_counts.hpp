// How many writes of each line a channel holds not yet issued, for write forwarding: asked for
// every read, changed for every write. An open-addressing table (linear probing, deletion by
// shifting back), at most half full, that grows to the most lines a channel ever holds and then
// no longer allocates, unlike the std::unordered_map it replaces (a node per write).
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

namespace tessera::hbm {

class LineCounts {
 public:
  bool contains(uint64_t line) const { return slots_[find(line)].line == line; }
  void add(uint64_t line) {
    size_t i = find(line);
    if (slots_[i].line == kEmpty) {
      if (2 * (lines_ + 1) > slots_.size()) {
        grow();
        i = find(line);
      }
      ++lines_;
      slots_[i].line = line;
    }
    ++slots_[i].count;
  }
  // `line` must be held.
  void remove(uint64_t line) {
    size_t hole = find(line);
    if (--slots_[hole].count > 0) return;
    --lines_;
    // Shift back each later entry of the run that may move into the hole (its home is not in the
    // cyclic range (hole, entry]), so that every entry stays reachable from its home.
    for (size_t i = (hole + 1) & mask_; slots_[i].line != kEmpty; i = (i + 1) & mask_) {
      const size_t home = home_of(slots_[i].line);
      if (((i - home) & mask_) >= ((i - hole) & mask_)) {
        slots_[hole] = slots_[i];
        hole = i;
      }
    }
    slots_[hole] = Slot{};
  }

 private:
  static constexpr uint64_t kEmpty = std::numeric_limits<uint64_t>::max();  // no line is this
  struct Slot {
    uint64_t line = kEmpty;
    uint64_t count = 0;
  };
  size_t home_of(uint64_t line) const {
    return static_cast<size_t>((line * 0x9E3779B97F4A7C15ull) >> 32) & mask_;
  }
  // The slot holding `line`, or the empty slot where it would go.
  size_t find(uint64_t line) const {
    size_t i = home_of(line);
    while (slots_[i].line != line && slots_[i].line != kEmpty) i = (i + 1) & mask_;
    return i;
  }
  void grow() {
    std::vector<Slot> old(2 * slots_.size());
    old.swap(slots_);
    mask_ = slots_.size() - 1;
    for (const Slot& s : old)
      if (s.line != kEmpty) slots_[find(s.line)] = s;
  }

  std::vector<Slot> slots_ = std::vector<Slot>(64);
  size_t mask_ = 63;
  size_t lines_ = 0;  // distinct lines held
};

}  // namespace tessera::hbm
