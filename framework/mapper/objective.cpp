#include "framework/mapper/objective.hpp"

#include <algorithm>

namespace tessera::mapper {

const char* to_string(Objective objective) {
  switch (objective) {
    case Objective::energy:
      return "energy";
    case Objective::latency:
      return "latency";
    case Objective::edp:
      return "edp";
    case Objective::pareto:
      return "pareto";
  }
  return "?";
}

std::optional<Objective> parse_objective(const std::string& text) {
  for (Objective o : {Objective::energy, Objective::latency, Objective::edp, Objective::pareto})
    if (text == to_string(o)) return o;
  return std::nullopt;
}

Score score_of(Objective objective, const Metrics& m, double usage_bytes) {
  switch (objective) {
    case Objective::energy:
      return {m.energy_joules, m.latency_seconds};
    case Objective::latency:
      return {m.latency_seconds, m.energy_joules};
    case Objective::edp:
      return {m.edp(), m.energy_joules};
    case Objective::pareto:
      return {m.latency_seconds, usage_bytes};
  }
  return {};
}

bool cannot_beat(Objective objective, const Score& bound, size_t index, const Score& kept,
                 size_t kept_index) {
  if (objective == Objective::pareto) {
    if (kept.primary > bound.primary || kept.secondary > bound.secondary) return false;
    bool strictly = kept.primary < bound.primary || kept.secondary < bound.secondary;
    return strictly || kept_index <= index;
  }
  if (bound.primary != kept.primary) return bound.primary > kept.primary;
  if (bound.secondary != kept.secondary) return bound.secondary > kept.secondary;
  return kept_index <= index;
}

bool Incumbent::Snapshot::prunes(Objective objective, const Score& bound, size_t index) const {
  for (size_t k = 0; k < scores.size(); ++k)
    if (cannot_beat(objective, bound, index, scores[k], indices[k])) return true;
  return false;
}

Incumbent::Snapshot Incumbent::snapshot() const {
  std::lock_guard lock(mutex_);
  Snapshot s;
  for (const auto& c : kept_) {
    s.scores.push_back(c.score);
    s.indices.push_back(c.template_index);
  }
  return s;
}

uint64_t Incumbent::version() const {
  std::lock_guard lock(mutex_);
  return version_;
}

bool Incumbent::offer(const Candidate& c) {
  std::lock_guard lock(mutex_);
  for (const auto& k : kept_)
    if (cannot_beat(objective_, c.score, c.template_index, k.score, k.template_index)) return false;
  if (objective_ == Objective::pareto) {
    std::erase_if(kept_, [&](const Candidate& k) {
      return cannot_beat(objective_, k.score, k.template_index, c.score, c.template_index);
    });
  } else {
    kept_.clear();
  }
  kept_.push_back(c);
  ++version_;
  return true;
}

std::vector<Candidate> Incumbent::result() const {
  std::lock_guard lock(mutex_);
  std::vector<Candidate> out = kept_;
  std::sort(out.begin(), out.end(), [](const Candidate& a, const Candidate& b) {
    return a.score.primary != b.score.primary ? a.score.primary < b.score.primary
                                              : a.score.secondary < b.score.secondary;
  });
  return out;
}

}  // namespace tessera::mapper
