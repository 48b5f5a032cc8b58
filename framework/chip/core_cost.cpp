#include "framework/chip/core_cost.hpp"

#include <cmath>
#include <limits>
#include <utility>

#include "framework/ir/dtype.hpp"
#include "framework/mapper/looptree.hpp"
#include "framework/mapper/mapper.hpp"

namespace tessera {

namespace {

// Z[b,m,n] = A[b,m,k] · B[b,k,n] (the batch rank only when it is more than one), made by the
// mapper's own make_problem: A is the hierarchy's `input`, B its `weight`.
Result<mapper::Problem> tile_problem(const tessera_tile_query& q, int64_t element_bytes) {
  ir::Einsum e;
  bool batched = q.batch > 1;
  if (batched) e.ranks.push_back({"b", static_cast<int64_t>(q.batch)});
  for (auto [name, extent] : {std::pair<const char*, uint64_t>{"m", q.m}, {"k", q.k}, {"n", q.n}})
    e.ranks.push_back({name, static_cast<int64_t>(extent)});
  auto operand = [&](const char* tensor, const char* first, const char* second) {
    ir::Operand o{tensor, {}};
    for (const char* rank : {batched ? "b" : "", first, second})
      if (*rank != '\0') o.index.push_back(ir::IndexExpr{{{1, rank}}, 0, -1});
    return o;
  };
  e.inputs = {operand("A", "m", "k"), operand("B", "k", "n")};
  e.output = operand("Z", "m", "n");
  mapper::ProblemTypes types;
  types.element_bytes.assign(3, element_bytes);
  return mapper::make_problem("tile", e, types);
}

}  // namespace

std::string CoreMapping::einsum() const {
  // Problem::str() is "NAME: EINSUM with r=..."; the name is always "tile" here.
  return problem.str().substr(problem.name.size() + 2);
}

std::string CoreMapping::tree() const {
  return mapper::render_looptree(best.tree, problem, hierarchy);
}

CoreMapper::CoreMapper(mapper::ArchSpec arch, std::string reference)
    : arch_(std::move(arch)), reference_(std::move(reference)) {
  // The planner keeps each plan's whole execution state within the SRAM (capacity.hpp); a tile
  // query is one step of it, so the backing store is not the place to refuse it.
  if (!arch_.levels.empty()) arch_.levels.front().capacity_bytes = mapper::kUnlimited;
}

bool CoreMapper::maps(const tessera_tile_query& query) {
  return query.op_kind == TESSERA_OP_MATMUL || query.op_kind == TESSERA_OP_BATCHED_MATMUL ||
         query.op_kind == TESSERA_OP_CONV;
}

Result<std::shared_ptr<const CoreMapping>> CoreMapper::map(const tessera_tile_query& query,
                                                           mapper::Objective objective) const {
  // A conv's query is its implicit GEMM: the same tile as a matmul of those extents.
  uint32_t kind = query.op_kind == TESSERA_OP_CONV ? uint32_t{TESSERA_OP_MATMUL} : query.op_kind;
  Key key{kind, query.dtype, query.batch, query.m, query.k, query.n, static_cast<int>(objective)};
  {
    std::lock_guard lock(mutex_);
    if (auto it = cache_.find(key); it != cache_.end()) {
      ++hits_;
      return it->second;
    }
  }
  // Computed outside the lock: two workers asking for the same new tile both search it, and the
  // search is deterministic, so whichever stores first is what the other would have stored.
  auto mapped = compute(query, objective);
  if (!mapped) return mapped.error();
  std::lock_guard lock(mutex_);
  auto [it, inserted] = cache_.emplace(key, std::move(*mapped));
  misses_ += inserted ? 1 : 0;  // distinct tiles: a tile two workers searched at once counts once
  return it->second;
}

Result<std::shared_ptr<const CoreMapping>> CoreMapper::compute(const tessera_tile_query& query,
                                                               mapper::Objective objective) const {
  // Block types (bfp8: 1.0625 B) take whole bytes per element in the mapper's model.
  double bytes = ir::element_bytes(static_cast<ir::DType>(query.dtype));
  auto problem = tile_problem(query, static_cast<int64_t>(std::ceil(bytes)));
  if (!problem) return problem.error();
  auto out = std::make_shared<CoreMapping>();
  out->problem = std::move(*problem);
  auto hierarchy = mapper::build_hierarchy(arch_, out->problem);
  if (!hierarchy) return hierarchy.error();
  out->hierarchy = std::move(*hierarchy);
  mapper::MapperOptions options;
  options.objective = objective;
  options.threads = 1;  // the planner's workers already fill the machine
  mapper::MapResult result = mapper::run_mapper(out->problem, out->hierarchy, options);
  if (result.mappings.empty()) {
    out->seconds = std::numeric_limits<double>::infinity();
    out->infeasible = result.infeasible;
    return std::shared_ptr<const CoreMapping>(std::move(out));
  }
  out->best = std::move(result.mappings.front());
  out->seconds = out->best.metrics.latency_seconds;
  out->joules = out->best.metrics.energy_joules;
  const mapper::Hierarchy& h = out->hierarchy;
  out->utilization =
      out->problem.points() / (out->seconds * h.instances(h.num_levels()) * h.ops_per_s);
  return std::shared_ptr<const CoreMapping>(std::move(out));
}

size_t CoreMapper::hits() const {
  std::lock_guard lock(mutex_);
  return hits_;
}

size_t CoreMapper::misses() const {
  std::lock_guard lock(mutex_);
  return misses_;
}

Result<std::vector<double>> CoreTileCost::tile_seconds(
    const std::vector<tessera_tile_query>& queries) const {
  std::vector<double> seconds(queries.size());
  std::vector<tessera_tile_query> others;
  std::vector<size_t> other_index;
  for (size_t i = 0; i < queries.size(); ++i) {
    if (!CoreMapper::maps(queries[i])) {
      others.push_back(queries[i]);
      other_index.push_back(i);
      continue;
    }
    auto mapped = mapper_.map(queries[i], objective_);
    if (!mapped) return mapped.error();
    seconds[i] = (*mapped)->seconds;
  }
  if (others.empty()) return seconds;
  auto fitted = plugin_.tile_seconds(others);
  if (!fitted) return fitted.error();
  for (size_t j = 0; j < others.size(); ++j) seconds[other_index[j]] = (*fitted)[j];
  return seconds;
}

}  // namespace tessera
