// What a split (split.hpp) and a chain split (chain_split.hpp) share: cutting a rank into parts
// and shifting the operands a part reads or writes to where the part lies.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "framework/ir/einsum.hpp"

namespace tessera::planner {

struct Part {
  int64_t lo = 0, extent = 0;
};

// Equal parts of ceil(extent / slices), the last one shorter; empty when that leaves a slice
// with nothing (e.g. 10 cut 8 ways).
inline std::vector<Part> parts_of(int64_t extent, int64_t slices) {
  int64_t size = (extent + slices - 1) / slices;
  if (slices < 2 || size * (slices - 1) >= extent) return {};
  std::vector<Part> parts;
  for (int64_t i = 0; i < slices; ++i)
    parts.push_back({i * size, std::min(size, extent - i * size)});
  return parts;
}

// The operand as a part starting at `lo` of `rank` reads or writes it: the part's rank counts
// from 0, so each index using the rank moves by its coefficient × lo.
inline ir::Operand shifted(ir::Operand operand, const std::string& rank, int64_t lo) {
  for (auto& expr : operand.index)
    for (const auto& term : expr.terms)
      if (term.rank == rank) expr.offset += term.coeff * lo;
  return operand;
}

inline bool uses_rank(const ir::Operand& operand, const std::string& rank) {
  for (const auto& expr : operand.index)
    for (const auto& term : expr.terms)
      if (term.rank == rank) return true;
  return false;
}

}  // namespace tessera::planner
