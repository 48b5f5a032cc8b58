// One core's tile times from the mapper (docs/mapper.md "Cores of a chip"): the time of
// a tile the planner asks about is the TCM-optimal mapping of the tile's Einsum onto the core's
// memory hierarchy (the chip file's `core:` section), under the planner's objective — instead of
// the cost model plugin's fitted formula.
//
//   CoreMapper    the core's hierarchy; maps a tile query, caching the answer by tile shape,
//                 dtype and objective (thread-safe: the planner asks from every worker)
//   CoreTileCost  a TileCost (plugin/objects.hpp): matmul-like queries go to the CoreMapper,
//                 every other kind to the plugin's cost model, in one batch each
//
// What the mapper sees of a tile: Z[b,m,n] = A[b,m,k] · B[b,k,n] with the query's extents (b left
// out when 1), A as the hierarchy's `input`, B its `weight`, elements of the query's dtype. A
// convolution's query is its implicit GEMM (m output pixels, k = channels × window, n output
// channels), which is what the planner's rank roles make of it. Elementwise, softmax,
// normalisation, reduction and the other vector kinds run on a core's vector unit, which the
// hierarchies' compute (the matrix unit) does not describe: they keep the plugin's time.
//
// The backing store (level 0, the core's SRAM) is taken as unlimited: the planner already keeps
// each plan's execution state (double buffers included) within the SRAM, and the tile a query
// describes is one step of it.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <tuple>

#include "framework/common/status.hpp"
#include "framework/mapper/arch_spec.hpp"
#include "framework/mapper/hierarchy.hpp"
#include "framework/mapper/objective.hpp"
#include "framework/mapper/problem.hpp"
#include "framework/plugin/objects.hpp"

namespace tessera {

// The optimal mapping of one tile, or why none fits.
struct CoreMapping {
  mapper::Problem problem;
  mapper::Hierarchy hierarchy;
  mapper::Candidate best;  // valid when `seconds` is finite
  double seconds = 0;      // the mapping's latency; +infinity when no mapping fits
  double joules = 0;       // its energy (the hierarchy's rates)
  double utilization = 0;  // MACs / (latency × the compute units' peak)
  std::string infeasible;  // when no mapping fits: which level overflows with which tensors

  // `Z[m,n] = A[m,k] * B[k,n] with m=16 k=5120 n=32`.
  std::string einsum() const;
  // The LoopTree, one line per node (mapper/looptree.hpp's rendering).
  std::string tree() const;
};

class CoreMapper {
 public:
  // `reference`: what the chip file's `core:` named (a preset or a file; "inline" when written in
  // the chip file), for reports.
  CoreMapper(mapper::ArchSpec arch, std::string reference);

  const mapper::ArchSpec& arch() const { return arch_; }
  const std::string& reference() const { return reference_; }

  // True for the query kinds the mapper times (matmul, batched matmul, conv).
  static bool maps(const tessera_tile_query& query);
  // The optimal mapping of `query` (maps(query) must hold) under `objective` (energy, latency or
  // edp), computed once per distinct (kind, dtype, extents, objective). Input errors: the
  // hierarchy's (a keep list or fan-out rank naming nothing of the tile's Einsum).
  Result<std::shared_ptr<const CoreMapping>> map(const tessera_tile_query& query,
                                                 mapper::Objective objective) const;

  size_t hits() const;
  size_t misses() const;

 private:
  using Key = std::tuple<uint32_t, uint32_t, uint64_t, uint64_t, uint64_t, uint64_t, int>;
  Result<std::shared_ptr<const CoreMapping>> compute(const tessera_tile_query& query,
                                                     mapper::Objective objective) const;

  mapper::ArchSpec arch_;
  std::string reference_;
  mutable std::mutex mutex_;
  mutable std::map<Key, std::shared_ptr<const CoreMapping>> cache_;
  mutable size_t hits_ = 0, misses_ = 0;
};

// The planner's TileCost for a chip with `core_cost: tcm`. Holds references: both must outlive it.
class CoreTileCost final : public TileCost {
 public:
  CoreTileCost(const CoreMapper& mapper, const CostModel& plugin, mapper::Objective objective)
      : mapper_(mapper), plugin_(plugin), objective_(objective) {}
  Result<std::vector<double>> tile_seconds(
      const std::vector<tessera_tile_query>& queries) const override;
  const TileCost* replaced() const override { return &plugin_; }

  const CoreMapper& mapper() const { return mapper_; }
  mapper::Objective objective() const { return objective_; }

 private:
  const CoreMapper& mapper_;
  const CostModel& plugin_;
  mapper::Objective objective_;
};

}  // namespace tessera
