// Wording shared by the mapper's error messages: the nearest valid name to a typo, and lists.
#pragma once

#include <string>
#include <tessera/sdk/nearest.hpp>
#include <vector>

namespace tessera::mapper {

// `before + "'x'" + after` for the name of `names` nearest to `word`, or "" when none is close.
inline std::string nearest_hint(const std::string& word, const std::vector<std::string>& names,
                                const std::string& before = " (did you mean ",
                                const std::string& after = "?)") {
  std::string near = sdk::nearest(word, names);
  return near.empty() ? "" : before + "'" + near + "'" + after;
}

// "a, b, c".
inline std::string join_names(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

}  // namespace tessera::mapper
