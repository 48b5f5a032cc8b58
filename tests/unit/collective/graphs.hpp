// Hand-built chip graphs for the collective tests: rings, lines, full meshes and 2D meshes of
// uniform links.
#pragma once

#include <vector>

#include "framework/collective/chip_graph.hpp"

namespace tessera::collective::test {

inline constexpr double kLinkBytesPerS = 12.5e9;  // 100 GbE, one direction
inline constexpr double kLatencyS = 1e-6;

inline void join(std::vector<ChipLink>& links, uint32_t a, uint32_t b, bool both_ways = true) {
  links.push_back(ChipLink{a, b, kLinkBytesPerS, kLatencyS, 1});
  if (both_ways) links.push_back(ChipLink{b, a, kLinkBytesPerS, kLatencyS, 1});
}

// Chip i joined to chip i + 1 (and the last to the first when `closed`).
inline ChipGraph ring_graph(uint32_t chips, bool both_ways = true, bool closed = true) {
  std::vector<ChipLink> links;
  for (uint32_t i = 0; i + 1 < chips; ++i) join(links, i, i + 1, both_ways);
  if (closed) join(links, chips - 1, 0, both_ways);
  return ChipGraph(chips, links);
}

inline ChipGraph line_graph(uint32_t chips) {
  return ring_graph(chips, true, false);
}

inline ChipGraph full_graph(uint32_t chips) {
  std::vector<ChipLink> links;
  for (uint32_t a = 0; a < chips; ++a)
    for (uint32_t b = a + 1; b < chips; ++b) join(links, a, b);
  return ChipGraph(chips, links);
}

// x columns by y rows, chip = column + x * row (as mesh_tenstorrent numbers its chips), no
// wraparound, `per_pair` parallel links between neighbours.
inline ChipGraph mesh_graph(uint32_t x, uint32_t y, uint32_t per_pair) {
  std::vector<ChipLink> links;
  for (uint32_t row = 0; row < y; ++row)
    for (uint32_t col = 0; col < x; ++col)
      for (uint32_t k = 0; k < per_pair; ++k) {
        uint32_t chip = col + x * row;
        if (col + 1 < x) join(links, chip, chip + 1);
        if (row + 1 < y) join(links, chip, chip + x);
      }
  return ChipGraph(x * y, links);
}

inline std::vector<uint32_t> chips_upto(uint32_t chips) {
  std::vector<uint32_t> group;
  for (uint32_t i = 0; i < chips; ++i) group.push_back(i);
  return group;
}

}  // namespace tessera::collective::test
