// An architecture spec resolved against one Einsum: keep lists become per-tensor flags, fan-out
// constraints become per-rank flags. Everything the models need, indexed by small integers. Level
// 0 is the backing store; "level L" (L = number of levels) stands for the compute units.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "framework/mapper/arch_spec.hpp"
#include "framework/mapper/problem.hpp"

namespace tessera::mapper {

// One dimension of a fan-out: `size` instances of `level` (or of the compute units) per instance
// of the level above.
struct FanoutDim {
  std::string name;
  int level = 1;
  int64_t size = 1;
  std::vector<bool> multicast;     // [tensor]: one upstream access serves every instance
  std::vector<bool> allowed_rank;  // [rank]: may a spatial loop here iterate this rank?
};

struct Level {
  std::string name;
  double capacity_bytes = kUnlimited;  // per instance
  double read_joules_per_byte = 0;
  double write_joules_per_byte = 0;
  double read_bytes_per_s = kUnlimited;  // per instance
  double write_bytes_per_s = kUnlimited;
  bool shared_port = true;
  std::vector<bool> must_keep;  // [tensor]
  std::vector<bool> may_keep;   // [tensor], includes must_keep
};

struct Hierarchy {
  std::string arch_name;
  std::vector<Level> levels;
  std::vector<FanoutDim> fanouts;  // every fan-out dimension, outermost level first
  std::string compute_name = "MAC";
  double joules_per_op = 0;
  double ops_per_s = 1e9;

  int num_levels() const { return static_cast<int>(levels.size()); }
  // Hardware instances of `level` (num_levels(): compute units): product of fan-outs at or above.
  double instances(int level) const;
};

// Input errors name the spec's file, line and key: a keep list naming no tensor or role of this
// Einsum (with the nearest), a `ranks` entry that is not a rank of the Einsum.
Result<Hierarchy> build_hierarchy(const ArchSpec& spec, const Problem& problem);

}  // namespace tessera::mapper
