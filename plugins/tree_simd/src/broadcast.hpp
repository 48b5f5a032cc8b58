// Broadcasting a tensor of one shape to another (numpy's rule): axes are aligned from the last, a
// source extent of 1 repeats, and missing leading source axes repeat too.
#pragma once

#include <cstdint>
#include <string>
#include <tessera/sdk/error.hpp>
#include <vector>

namespace tessera::plugins::tree {

inline std::string shape_text(const std::vector<uint64_t>& shape) {
  std::string text;
  for (uint64_t e : shape) text += (text.empty() ? "" : "x") + std::to_string(e);
  return text;
}

// Throws INVALID_ARGUMENT naming `what` when `from` does not broadcast to `to`.
inline void check_broadcast(const std::vector<uint64_t>& from, const std::vector<uint64_t>& to,
                            const std::string& what) {
  bool fits = from.size() <= to.size();
  size_t lead = to.size() - std::min(from.size(), to.size());
  for (size_t j = 0; fits && j < from.size(); ++j) fits = from[j] == 1 || from[j] == to[lead + j];
  if (!fits)
    throw sdk::invalid_argument("cannot broadcast " + what + " of shape " + shape_text(from) +
                                " to shape " + shape_text(to) +
                                ": align the axes from the last; each source extent must be 1 or "
                                "the destination's");
}

// The index of `from` that index `to_index` of `to` reads.
inline std::vector<uint64_t> broadcast_index(const std::vector<uint64_t>& from,
                                             const std::vector<uint64_t>& to,
                                             const uint64_t* to_index) {
  size_t lead = to.size() - from.size();
  std::vector<uint64_t> out(from.size());
  for (size_t j = 0; j < from.size(); ++j) out[j] = from[j] == 1 ? 0 : to_index[lead + j];
  return out;
}

}  // namespace tessera::plugins::tree
