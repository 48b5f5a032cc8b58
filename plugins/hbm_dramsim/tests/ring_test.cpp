// The channel's FIFO (ring.hpp) against std::deque on random pushes, pops and erases: its growth
// while the ring wraps, and the erase that moves later elements forward, must keep every element
// in order.
#include "ring.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <deque>
#include <random>

namespace tessera::hbm {
namespace {

TEST(Ring, AgreesWithADequeThroughGrowthWrapAndErase) {
  std::mt19937_64 rng(11);
  Ring<uint64_t> ring;
  std::deque<uint64_t> reference;
  for (uint64_t step = 0; step < 100000; ++step) {
    const uint64_t pick = rng() % 100;
    // Growing for the first half (the ring doubles while its head is anywhere), shrinking after.
    if (reference.empty() || pick < (step < 50000 ? 55 : 45)) {
      ring.push_back(step);
      reference.push_back(step);
    } else if (pick < 90) {
      ring.pop_front();
      reference.pop_front();
    } else {
      const size_t i = rng() % reference.size();
      ring.erase(i);
      reference.erase(reference.begin() + static_cast<std::ptrdiff_t>(i));
    }
    ASSERT_EQ(ring.size(), reference.size());
    ASSERT_EQ(ring.empty(), reference.empty());
    if (!reference.empty()) {
      ASSERT_EQ(ring.front(), reference.front());
    }
    if (step % 997 == 0) {
      for (size_t i = 0; i < reference.size(); ++i) {
        ASSERT_EQ(ring[i], reference[i]);
      }
    }
  }
}

}  // namespace
}  // namespace tessera::hbm
