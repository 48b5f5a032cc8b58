#include "framework/mapper/looptree.hpp"

#include <fmt/format.h>

namespace tessera::mapper {

namespace {

Status bad(size_t i, const std::string& what) {
  return input_error("mapping node " + std::to_string(i) + ": " + what);
}

Status check_backing(const LoopTree& tree, const Problem& p, size_t& first_other) {
  std::vector<bool> seen(p.num_tensors(), false);
  size_t i = 0;
  for (; i < tree.nodes.size(); ++i) {
    const auto& n = tree.nodes[i];
    if (n.kind != NodeKind::storage || n.level != 0) break;
    if (n.tensor < 0 || n.tensor >= p.num_tensors()) return bad(i, "no such tensor");
    if (seen[n.tensor]) return bad(i, "tensor " + p.tensors[n.tensor].name + " kept twice");
    seen[n.tensor] = true;
  }
  for (int t = 0; t < p.num_tensors(); ++t)
    if (!seen[t])
      return bad(i, "the mapping must start with the backing store keeping every tensor; " +
                        p.tensors[t].name + " is missing");
  first_other = i;
  return ok_status();
}

Status check_storage(const LoopTree& tree, size_t i, const Problem& p, const Hierarchy& h,
                     std::vector<int>& last_level, int& max_level) {
  const auto& n = tree.nodes[i];
  if (n.level < 1 || n.level >= h.num_levels()) return bad(i, "no such memory level");
  if (n.tensor < 0 || n.tensor >= p.num_tensors()) return bad(i, "no such tensor");
  const std::string& level = h.levels[n.level].name;
  const std::string& tensor = p.tensors[n.tensor].name;
  if (!h.levels[n.level].may_keep[n.tensor])
    return bad(i, level + " may not keep " + tensor + " (see its keep/may_keep lists)");
  if (n.level < max_level)
    return bad(i, level + " keeps " + tensor + " below a node of the inner level " +
                      h.levels[max_level].name + "; storage nodes follow the hierarchy");
  if (n.level <= last_level[n.tensor]) return bad(i, tensor + " is kept twice in " + level);
  last_level[n.tensor] = n.level;
  max_level = n.level;
  return ok_status();
}

Status check_loop(const LoopTree& tree, size_t i, const Problem& p, const Hierarchy& h,
                  int max_level, std::vector<double>& fanout_use) {
  const auto& n = tree.nodes[i];
  if (n.rank < 0 || n.rank >= p.num_ranks()) return bad(i, "no such rank");
  if (n.bound < 1) return bad(i, "a loop bound must be at least 1");
  if (n.kind != NodeKind::spatial) return ok_status();
  if (n.fanout < 0 || n.fanout >= static_cast<int>(h.fanouts.size()))
    return bad(i, "no such fan-out");
  const FanoutDim& f = h.fanouts[n.fanout];
  if (!f.allowed_rank[n.rank])
    return bad(i, "fan-out " + f.name + " may not iterate rank " + p.rank_names[n.rank]);
  if (max_level >= f.level)
    return bad(i, "a spatial loop of fan-out " + f.name +
                      " must be above every storage node "
                      "of its level and below");
  fanout_use[n.fanout] *= static_cast<double>(n.bound);
  if (fanout_use[n.fanout] > static_cast<double>(f.size))
    return bad(i, "fan-out " + f.name + " has " + std::to_string(f.size) +
                      " instances; its spatial loops multiply to more");
  return ok_status();
}

// Spatial loops of level f must come after every storage node of a level above f.
Status check_spatial_order(const LoopTree& tree, const Hierarchy& h) {
  for (size_t i = 0; i < tree.nodes.size(); ++i) {
    if (tree.nodes[i].kind != NodeKind::spatial) continue;
    int f_level = h.fanouts[tree.nodes[i].fanout].level;
    for (size_t j = i + 1; j < tree.nodes.size(); ++j)
      if (tree.nodes[j].kind == NodeKind::storage && tree.nodes[j].level < f_level)
        return bad(i, "a spatial loop of fan-out " + h.fanouts[tree.nodes[i].fanout].name +
                          " must be below every storage node of the levels above it");
  }
  return ok_status();
}

}  // namespace

Status check_looptree(const LoopTree& tree, const Problem& p, const Hierarchy& h) {
  size_t first = 0;
  if (auto s = check_backing(tree, p, first); !s) return s;
  std::vector<int> last_level(p.num_tensors(), 0);
  std::vector<double> rank_product(p.num_ranks(), 1.0);
  std::vector<double> fanout_use(h.fanouts.size(), 1.0);
  int max_level = 0;
  for (size_t i = first; i < tree.nodes.size(); ++i) {
    const auto& n = tree.nodes[i];
    Status s = n.kind == NodeKind::storage ? check_storage(tree, i, p, h, last_level, max_level)
                                           : check_loop(tree, i, p, h, max_level, fanout_use);
    if (!s) return s;
    if (n.is_loop()) rank_product[n.rank] *= static_cast<double>(n.bound);
  }
  std::vector<std::vector<bool>> present(h.num_levels(), std::vector<bool>(p.num_tensors()));
  for (const auto& n : tree.nodes)
    if (n.kind == NodeKind::storage) present[n.level][n.tensor] = true;
  for (int l = 1; l < h.num_levels(); ++l)
    for (int t = 0; t < p.num_tensors(); ++t)
      if (h.levels[l].must_keep[t] && !present[l][t])
        return input_error("mapping: " + h.levels[l].name + " must keep " + p.tensors[t].name +
                           " but has no storage node for it");
  for (int r = 0; r < p.num_ranks(); ++r)
    if (rank_product[r] != static_cast<double>(p.rank_extents[r]))
      return input_error("mapping: the loops over rank " + p.rank_names[r] + " multiply to " +
                         fmt::format("{:.15g}", rank_product[r]) +  // may be beyond int64
                         ", not its extent " + std::to_string(p.rank_extents[r]));
  return check_spatial_order(tree, h);
}

std::string loop_name(const LoopTree& tree, size_t i, const Problem& p) {
  int below = 0;
  for (size_t j = i + 1; j < tree.nodes.size(); ++j)
    if (tree.nodes[j].is_loop() && tree.nodes[j].rank == tree.nodes[i].rank) ++below;
  return p.rank_names[tree.nodes[i].rank] + std::to_string(below);
}

std::string render_looptree(const LoopTree& tree, const Problem& p, const Hierarchy& h,
                            const std::vector<std::string>& notes) {
  std::string out;
  size_t indent = 0;
  size_t i = 0;
  auto note = [&](size_t k) {
    return k < notes.size() && !notes[k].empty() ? "  " + notes[k] : "";
  };
  // The backing store's nodes on one line: they are always first and hold whole tensors.
  std::string backing;
  for (;
       i < tree.nodes.size() && tree.nodes[i].kind == NodeKind::storage && tree.nodes[i].level == 0;
       ++i)
    backing += (backing.empty() ? "" : ", ") + p.tensors[tree.nodes[i].tensor].name;
  out += h.levels[0].name + " keeps " + backing + "\n";
  for (; i < tree.nodes.size(); ++i) {
    const auto& n = tree.nodes[i];
    std::string line(indent, ' ');
    if (n.kind == NodeKind::storage) {
      line += h.levels[n.level].name + " keeps " + p.tensors[n.tensor].name;
    } else {
      if (n.kind == NodeKind::spatial) line += "spatial-";
      line += "for " + loop_name(tree, i, p) + " in [0:" + std::to_string(n.bound) + ")";
      if (n.kind == NodeKind::spatial) line += " across " + h.fanouts[n.fanout].name;
      indent += 2;
    }
    out += line + note(i) + "\n";
  }
  out += std::string(indent, ' ') + h.compute_name + " computes " + p.name + "\n";
  return out;
}

}  // namespace tessera::mapper
