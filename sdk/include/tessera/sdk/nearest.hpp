// "Did you mean": the closest of a set of names to a mistyped one. Shared by plugins (unknown
// parameters) and the host (unknown targets, chips, keys).
#pragma once

#include <algorithm>
#include <string>
#include <vector>

namespace tessera::sdk {

// Levenshtein distance: insertions, deletions and substitutions each cost 1.
inline size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diag = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

// The candidate nearest to `word`, or "" when none is close enough to be a plausible typo
// (distance at most a third of the word's length, plus 2). Ties go to the first candidate.
inline std::string nearest(const std::string& word, const std::vector<std::string>& candidates) {
  std::string best;
  size_t best_distance = word.size() / 3 + 3;
  for (const auto& c : candidates) {
    size_t d = edit_distance(word, c);
    if (d < best_distance) best_distance = d, best = c;
  }
  return best;
}

}  // namespace tessera::sdk
