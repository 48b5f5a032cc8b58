// The channel's table of buffered writes per line (line_counts.hpp) against std::unordered_map on
// random adds and removes: the open addressing, its growth and the backward shift on removal
// must never lose a line or miscount one.
#include "line_counts.hpp"

#include <gtest/gtest.h>

#include <random>
#include <unordered_map>
#include <vector>

namespace tessera::hbm {
namespace {

TEST(LineCounts, AgreesWithAMapThroughGrowthAndRemoval) {
  std::mt19937_64 rng(7);
  LineCounts table;
  std::unordered_map<uint64_t, int> reference;
  std::vector<uint64_t> held;
  // Few distinct lines, so lines repeat (counts above one), and runs of colliding homes form.
  std::uniform_int_distribution<uint64_t> line(0, 3000);
  for (int step = 0; step < 200000; ++step) {
    bool add = held.empty() || rng() % 100 < (step < 100000 ? 60 : 40);
    if (add) {
      uint64_t l = line(rng) * 64;  // strided, as lines of one channel are
      table.add(l);
      if (reference[l]++ == 0) held.push_back(l);
    } else {
      size_t i = rng() % held.size();
      uint64_t l = held[i];
      table.remove(l);
      if (--reference[l] == 0) {
        reference.erase(l);
        held[i] = held.back();
        held.pop_back();
      }
    }
    if (step % 997 != 0) continue;
    for (uint64_t probe = 0; probe <= 3000; ++probe) {
      ASSERT_EQ(table.contains(probe * 64), reference.count(probe * 64) == 1)
          << "line " << probe * 64 << " at step " << step;
    }
  }
  while (!held.empty()) {  // drain everything: the table ends empty
    uint64_t l = held.back();
    table.remove(l);
    if (--reference[l] == 0) held.pop_back();
  }
  for (uint64_t probe = 0; probe <= 3000; ++probe) EXPECT_FALSE(table.contains(probe * 64));
}

}  // namespace
}  // namespace tessera::hbm
