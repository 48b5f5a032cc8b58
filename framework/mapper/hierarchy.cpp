#include "framework/mapper/hierarchy.hpp"

#include <algorithm>

#include "framework/mapper/names.hpp"

namespace tessera::mapper {

double Hierarchy::instances(int level) const {
  double n = 1;
  for (const auto& f : fanouts)
    if (f.level <= level) n *= static_cast<double>(f.size);
  return n;
}

namespace {

std::vector<bool> resolve_selector(const TensorSelector& sel, const Problem& p) {
  std::vector<bool> chosen(p.num_tensors(), false);
  for (const auto& name : sel.names) {
    if (name == "none") continue;
    bool matched = false;
    for (int t = 0; t < p.num_tensors(); ++t)
      if (name == "all" || name == to_string(p.tensors[t].role) || name == p.tensors[t].name) {
        chosen[t] = true;
        matched = true;
      }
    bool is_keyword = name == "all" || name == "input" || name == "weight" || name == "output";
    if (matched || is_keyword) continue;
    std::vector<std::string> valid = {"all", "none", "input", "weight", "output"};
    for (const auto& t : p.tensors) valid.push_back(t.name);
    throw sel.node->fail("'" + name + "' is neither a role nor a tensor of " + p.name +
                         nearest_hint(name, valid) + "; expected one of: " + join_names(valid));
  }
  return chosen;
}

FanoutDim resolve_fanout(const FanoutDimSpec& spec, int level, const Problem& p) {
  FanoutDim dim{spec.name, level, spec.size, resolve_selector(spec.multicast, p),
                std::vector<bool>(p.num_ranks(), true)};
  auto reuse = resolve_selector(spec.require_reuse, p);
  for (int r = 0; r < p.num_ranks(); ++r)
    for (int t = 0; t < p.num_tensors(); ++t)
      if (reuse[t] && p.indexes(t, r)) dim.allowed_rank[r] = false;
  if (!spec.ranks.empty()) {
    std::vector<bool> listed(p.num_ranks(), false);
    for (const auto& name : spec.ranks) {
      int r = p.find_rank(name);
      if (r < 0)
        throw spec.ranks_node->fail("'" + name + "' is not a rank of " + p.name +
                                    nearest_hint(name, p.rank_names));
      listed[r] = true;
    }
    for (int r = 0; r < p.num_ranks(); ++r) dim.allowed_rank[r] = dim.allowed_rank[r] && listed[r];
  }
  return dim;
}

Hierarchy resolve(const ArchSpec& spec, const Problem& p) {
  Hierarchy h;
  h.arch_name = spec.name;
  int num_levels = static_cast<int>(spec.levels.size());
  for (int l = 0; l < num_levels; ++l) {
    const LevelSpec& ls = spec.levels[l];
    Level level{ls.name,
                ls.capacity_bytes,
                ls.read_joules_per_byte,
                ls.write_joules_per_byte,
                ls.read_bytes_per_s,
                ls.write_bytes_per_s,
                ls.shared_port,
                std::vector<bool>(p.num_tensors(), true),
                std::vector<bool>(p.num_tensors(), true)};
    if (l > 0) {
      level.must_keep = resolve_selector(ls.keep, p);
      level.may_keep = resolve_selector(ls.may_keep, p);
      for (int t = 0; t < p.num_tensors(); ++t)
        level.may_keep[t] = level.may_keep[t] || level.must_keep[t];
    }
    h.levels.push_back(std::move(level));
    for (const auto& f : ls.fanout) h.fanouts.push_back(resolve_fanout(f, l, p));
  }
  for (const auto& f : spec.compute.fanout) h.fanouts.push_back(resolve_fanout(f, num_levels, p));
  h.compute_name = spec.compute.name;
  h.joules_per_op = spec.compute.joules_per_op;
  h.ops_per_s = spec.compute.ops_per_s;
  return h;
}

}  // namespace

Result<Hierarchy> build_hierarchy(const ArchSpec& spec, const Problem& problem) {
  try {
    return resolve(spec, problem);
  } catch (const Failure& f) {
    return f.error();
  }
}

}  // namespace tessera::mapper
