// What a mapping costs. Both models (the uncurried reference_model.hpp and the curried
// compiled_model.hpp) produce the same Traffic — whole numbers of bytes and steps, exact in a
// double below 2^53 — and turn it into energy and latency with the one function below, so equal
// traffic gives bit-identical metrics.
#pragma once

#include <algorithm>
#include <string>
#include <vector>

#include "framework/mapper/hierarchy.hpp"

namespace tessera::mapper {

// Whole numbers of bytes per level, and compute steps, in one flat array so a model can reuse it.
class Traffic {
 public:
  enum Kind : int {
    read,         // bytes read per used instance
    write,        // bytes written per used instance
    total_read,   // bytes read, all instances
    total_write,  // bytes written, all instances
    usage,        // bytes held per instance (a line buffer holds less than it fetches)
    kinds
  };
  Traffic() : Traffic(0) {}
  explicit Traffic(int levels) : levels_(levels), values_(kinds * levels + 1, 0.0) {}
  int levels() const { return levels_; }
  double& at(Kind kind, int level) { return values_[kind * levels_ + level]; }
  double at(Kind kind, int level) const { return values_[kind * levels_ + level]; }
  // Product of the temporal loop bounds: steps of one compute unit.
  double& compute_steps() { return values_.back(); }
  double compute_steps() const { return values_.back(); }
  // Flat index of (kind, level), for models that accumulate into data().
  int index(Kind kind, int level) const { return kind * levels_ + level; }
  int steps_index() const { return kinds * levels_; }
  double* data() { return values_.data(); }
  void clear() { std::fill(values_.begin(), values_.end(), 0.0); }
  bool operator==(const Traffic&) const = default;

 private:
  int levels_ = 0;
  std::vector<double> values_;
};

struct Metrics {
  double energy_joules = 0;
  double latency_seconds = 0;
  double edp() const { return energy_joules * latency_seconds; }
};

// Energy: bytes read and written at every level times its energy per byte, plus one op per point.
// Latency: the slowest of the compute units (steps / ops_per_s) and every level's port (per
// instance: read time + write time on a shared port, the larger on separate ports).
Metrics aggregate(const Hierarchy& hierarchy, double points, const Traffic& traffic);
double level_seconds(const Level& level, double read_bytes, double write_bytes);

// Per (level, tensor) figures of one storage node, for reports.
struct NodeReport {
  int level = 0;
  int tensor = 0;
  double tile_elements = 0;   // held per instance (a line buffer holds less than it fetches)
  double fills = 0;           // tile (re)fetches per instance: product of temporal loops above
  double instances = 1;       // used instances of the level
  double read_elements = 0;   // reads of this node's copy, all instances (by the level below,
                              // the compute units, or write-backs)
  double write_elements = 0;  // writes into this node's copy, all instances
  double energy_joules = 0;
};

struct Evaluation {
  bool valid = false;
  std::string reason;  // why not valid: which level overflows with which tensors
  Traffic traffic;
  Metrics metrics;
  std::vector<NodeReport> nodes;  // storage nodes in tree order
  double points = 0;
  double utilization = 0;             // points / (latency × ops_per_s × all compute units)
  std::vector<double> level_seconds;  // [level]
  double compute_seconds = 0;
};

}  // namespace tessera::mapper
