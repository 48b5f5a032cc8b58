#include "random_problems.hpp"

#include <gtest/gtest.h>

namespace tessera::mapper::testing {

namespace {

int64_t pick(std::mt19937_64& rng, std::initializer_list<int64_t> values) {
  std::vector<int64_t> v(values);
  return v[std::uniform_int_distribution<size_t>(0, v.size() - 1)(rng)];
}

bool chance(std::mt19937_64& rng, double p) {
  return std::uniform_real_distribution<>(0, 1)(rng) < p;
}

double uniform(std::mt19937_64& rng, double lo, double hi) {
  return std::uniform_real_distribution<>(lo, hi)(rng);
}

Problem make(const std::string& name, const std::string& out, const std::vector<std::string>& ins,
             const std::vector<std::pair<std::string, int64_t>>& ranks, std::mt19937_64& rng) {
  ir::Einsum e;
  for (const auto& [n, x] : ranks) e.ranks.push_back({n, x});
  e.output = ir::parse_operand(out).take();
  for (const auto& in : ins) e.inputs.push_back(ir::parse_operand(in).take());
  ProblemTypes types;
  for (size_t i = 0; i <= ins.size(); ++i) types.element_bytes.push_back(pick(rng, {1, 2, 4}));
  return make_problem(name, e, types).take();
}

}  // namespace

Problem random_problem(std::mt19937_64& rng, ProblemKind kind) {
  switch (kind) {
    case ProblemKind::matmul:
      return make("matmul", "Z[m,n]", {"A[m,k]", "B[k,n]"},
                  {{"m", pick(rng, {2, 3, 4, 6})},
                   {"n", pick(rng, {2, 4, 6})},
                   {"k", pick(rng, {2, 3, 4})}},
                  rng);
    case ProblemKind::batched_matmul:
      return make("bmm", "Z[b,m,n]", {"A[b,m,k]", "B[b,k,n]"},
                  {{"b", pick(rng, {1, 2, 3})},
                   {"m", pick(rng, {2, 4})},
                   {"n", pick(rng, {2, 3})},
                   {"k", pick(rng, {2, 4})}},
                  rng);
    case ProblemKind::conv:
      return make("conv", "O[k,p]", {chance(rng, 0.3) ? "I[c,2*p+r]" : "I[c,p+r]", "W[k,c,r]"},
                  {{"k", pick(rng, {1, 2})},
                   {"c", pick(rng, {1, 2})},
                   {"p", pick(rng, {2, 4, 6})},
                   {"r", pick(rng, {2, 3})}},
                  rng);
    case ProblemKind::depthwise:
      return make(
          "depthwise", "O[c,p]", {chance(rng, 0.3) ? "I[c,2*p+r]" : "I[c,p+r]", "W[c,r]"},
          {{"c", pick(rng, {1, 2, 4})}, {"p", pick(rng, {2, 4, 6})}, {"r", pick(rng, {2, 3})}},
          rng);
    case ProblemKind::conv2d:
      return make("conv2d", "O[p,q]", {"I[2*p+r,q+s]", "W[r,s]"},
                  {{"p", pick(rng, {1, 2, 3})},
                   {"q", pick(rng, {1, 2})},
                   {"r", pick(rng, {1, 2})},
                   {"s", pick(rng, {2, 3})}},
                  rng);
  }
  return {};
}

namespace {

FanoutDim random_fanout(std::mt19937_64& rng, const Problem& p, int level, int index) {
  FanoutDim f;
  f.name = "F" + std::to_string(index);
  f.level = level;
  f.size = pick(rng, {2, 3, 4});
  f.allowed_rank.assign(p.num_ranks(), true);
  for (int t = 0; t < p.num_tensors(); ++t) f.multicast.push_back(chance(rng, 0.5));
  if (chance(rng, 0.3)) {  // a systolic dimension: only ranks the chosen tensor does not use
    int t = std::uniform_int_distribution<int>(0, p.num_tensors() - 1)(rng);
    for (int r = 0; r < p.num_ranks(); ++r) f.allowed_rank[r] = !p.indexes(t, r);
  }
  return f;
}

Level random_level(std::mt19937_64& rng, const Problem& p, int index, int levels) {
  Level l;
  l.name = "L" + std::to_string(index);
  l.read_joules_per_byte = uniform(rng, 0.1, 10.0) * (levels - index);
  l.write_joules_per_byte = uniform(rng, 0.1, 10.0) * (levels - index);
  l.read_bytes_per_s = chance(rng, 0.2) ? kUnlimited : uniform(rng, 1, 64);
  l.write_bytes_per_s = chance(rng, 0.2) ? kUnlimited : uniform(rng, 1, 64);
  l.shared_port = chance(rng, 0.5);
  l.must_keep.assign(p.num_tensors(), index == 0);
  l.may_keep.assign(p.num_tensors(), index == 0);
  if (index == 0) return l;
  l.capacity_bytes = chance(rng, 0.15) ? kUnlimited : std::floor(uniform(rng, 4, 96));
  for (int t = 0; t < p.num_tensors(); ++t) {
    double u = uniform(rng, 0, 1);
    l.must_keep[t] = u < 0.15;
    l.may_keep[t] = u < 0.6;
  }
  return l;
}

}  // namespace

Hierarchy random_hierarchy(std::mt19937_64& rng, const Problem& p) {
  Hierarchy h;
  h.arch_name = "random";
  int levels = static_cast<int>(pick(rng, {2, 3, 4}));
  for (int i = 0; i < levels; ++i) {
    h.levels.push_back(random_level(rng, p, i, levels));
    if (i > 0 && chance(rng, 0.3))
      h.fanouts.push_back(random_fanout(rng, p, i, static_cast<int>(h.fanouts.size())));
  }
  if (chance(rng, 0.5))
    h.fanouts.push_back(random_fanout(rng, p, levels, static_cast<int>(h.fanouts.size())));
  h.joules_per_op = uniform(rng, 0.1, 1.0);
  h.ops_per_s = uniform(rng, 0.5, 4);
  return h;
}

}  // namespace tessera::mapper::testing
