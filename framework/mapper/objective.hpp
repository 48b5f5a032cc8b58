// What the search minimises, and the best mappings found so far, shared by the threads that search
// different dataplacements. Ties are broken by template index (the enumeration order), then by the
// order a template's search meets its mappings, so the result is the same for any thread count.
#pragma once

#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "framework/mapper/evaluation.hpp"
#include "framework/mapper/looptree.hpp"

namespace tessera::mapper {

// energy, latency and edp minimise one number (the other of energy and latency breaks ties);
// pareto keeps every mapping not dominated in (latency, bytes used in one level).
enum class Objective { energy, latency, edp, pareto };
const char* to_string(Objective objective);
std::optional<Objective> parse_objective(const std::string& text);

// Lexicographic: primary, then secondary; lower is better.
struct Score {
  double primary = 0;
  double secondary = 0;
};
// For pareto the score is (latency, usage): it is compared by dominance, not lexicographically.
Score score_of(Objective objective, const Metrics& metrics, double usage_bytes);

// A complete mapping and what it costs.
struct Candidate {
  Score score;
  Metrics metrics;
  double usage_bytes = 0;  // in the Pareto level (0 for other objectives)
  size_t template_index = 0;
  LoopTree tree;
};

// True when a mapping scoring at least `bound` in template `index` cannot displace `kept`: worse,
// or tied and `kept` comes first (an earlier template, or the same one, where it was met first).
bool cannot_beat(Objective objective, const Score& bound, size_t index, const Score& kept,
                 size_t kept_index);

class Incumbent {
 public:
  explicit Incumbent(Objective objective) : objective_(objective) {}
  Objective objective() const { return objective_; }

  // Scores and template indices of what is kept, for pruning without the lock.
  struct Snapshot {
    std::vector<Score> scores;
    std::vector<size_t> indices;
    // Can a mapping scoring at least `bound` in template `index` still be kept?
    bool prunes(Objective objective, const Score& bound, size_t index) const;
  };
  Snapshot snapshot() const;
  uint64_t version() const;
  // Keeps `c` if it is better (or on the front); returns whether it was kept.
  bool offer(const Candidate& c);
  // The best mapping (single objectives) or the front sorted by latency (pareto).
  std::vector<Candidate> result() const;

 private:
  Objective objective_;
  mutable std::mutex mutex_;
  std::vector<Candidate> kept_;
  uint64_t version_ = 0;
};

}  // namespace tessera::mapper
