#include "framework/mapper/reference_model.hpp"

#include "framework/common/units.hpp"

namespace tessera::mapper {

namespace {

struct Walk {
  const Problem& p;
  const Hierarchy& h;
  const LoopTree& tree;
  std::vector<double> instances;  // [level], used instances
  Evaluation ev;
};

// Product of the bounds of loops in [from, to) accepted by `take`.
template <class Pred>
double product(const LoopTree& tree, size_t from, size_t to, Pred take) {
  double v = 1;
  for (size_t i = from; i < to; ++i)
    if (tree.nodes[i].is_loop() && take(tree.nodes[i]))
      v *= static_cast<double>(tree.nodes[i].bound);
  return v;
}

// Spatial loops of fan-outs at levels in (upper, lower] that cannot share t's accesses.
double unshared_spatial(const Walk& w, int t, int upper, int lower) {
  return product(w.tree, 0, w.tree.nodes.size(), [&](const LoopTreeNode& n) {
    if (n.kind != NodeKind::spatial) return false;
    const FanoutDim& f = w.h.fanouts[n.fanout];
    bool shares = f.multicast[t] && !w.p.indexes(t, n.rank);
    return f.level > upper && f.level <= lower && !shares;
  });
}

void add_access(Walk& w, NodeReport& node, double reads_per_instance, double writes_per_instance) {
  double bytes = static_cast<double>(w.p.tensors[node.tensor].element_bytes);
  double inst = w.instances[node.level];
  Traffic& tr = w.ev.traffic;
  tr.at(Traffic::read, node.level) += reads_per_instance * bytes;
  tr.at(Traffic::write, node.level) += writes_per_instance * bytes;
  tr.at(Traffic::total_read, node.level) += reads_per_instance * bytes * inst;
  tr.at(Traffic::total_write, node.level) += writes_per_instance * bytes * inst;
  node.read_elements += reads_per_instance * inst;
  node.write_elements += writes_per_instance * inst;
}

// Tile sizes per rank below node i; `line_buffer` drops the loop directly under i when it iterates
// a rank in a sum of t's index.
std::vector<double> tile_sizes(const Walk& w, size_t i, int t, bool line_buffer) {
  std::vector<double> sizes(w.p.num_ranks(), 1.0);
  for (size_t j = i + 1; j < w.tree.nodes.size(); ++j)
    if (w.tree.nodes[j].is_loop())
      sizes[w.tree.nodes[j].rank] *= static_cast<double>(w.tree.nodes[j].bound);
  if (line_buffer && i + 1 < w.tree.nodes.size()) {
    const auto& next = w.tree.nodes[i + 1];
    if (next.kind == NodeKind::temporal && w.p.relevance[t][next.rank] == Relevance::partial)
      sizes[next.rank] /= static_cast<double>(next.bound);
  }
  return sizes;
}

void visit_storage(Walk& w, size_t i, std::vector<size_t>& innermost) {
  const auto& n = w.tree.nodes[i];
  int t = n.tensor;
  NodeReport node{n.level, t};
  node.instances = w.instances[n.level];
  if (n.level == 0) {
    node.tile_elements = w.p.tensor_elements(t);
    node.fills = 1;
  } else {
    NodeReport& parent = w.ev.nodes[innermost[t]];
    double fetch = w.p.tile_elements(t, tile_sizes(w, i, t, false));
    node.tile_elements = w.p.tile_elements(t, tile_sizes(w, i, t, true));
    node.fills = product(w.tree, 0, i, [](const auto& m) { return m.kind == NodeKind::temporal; });
    double x = unshared_spatial(w, t, parent.level, n.level);
    bool out = w.p.tensors[t].is_output();
    double first = out ? product(w.tree, 0, i,
                                 [&](const auto& m) {
                                   return m.kind == NodeKind::temporal && w.p.indexes(t, m.rank);
                                 })
                       : 0;
    double filled = (node.fills - first) * fetch;
    double drained = out ? node.fills * fetch : 0;
    add_access(w, node, drained, filled);
    add_access(w, parent, filled * x, drained * x);
  }
  w.ev.traffic.at(Traffic::usage, n.level) +=
      node.tile_elements * static_cast<double>(w.p.tensors[t].element_bytes);
  innermost[t] = w.ev.nodes.size();
  w.ev.nodes.push_back(node);
}

void visit_compute(Walk& w, const std::vector<size_t>& innermost) {
  double steps = w.ev.traffic.compute_steps();
  for (int t = 0; t < w.p.num_tensors(); ++t) {
    NodeReport& node = w.ev.nodes[innermost[t]];
    double x = unshared_spatial(w, t, node.level, w.h.num_levels());
    if (!w.p.tensors[t].is_output()) {
      add_access(w, node, steps * x, 0);
      continue;
    }
    double first = product(w.tree, 0, w.tree.nodes.size(), [&](const auto& m) {
      return m.kind == NodeKind::temporal && w.p.indexes(t, m.rank);
    });
    add_access(w, node, (steps - first) * x, steps * x);
  }
}

std::string overflow_reason(const Walk& w, int level) {
  const Level& l = w.h.levels[level];
  std::string tensors;
  for (const auto& n : w.ev.nodes)
    if (n.level == level)
      tensors +=
          (tensors.empty() ? "" : ", ") + w.p.tensors[n.tensor].name + " " +
          format_bytes(n.tile_elements * static_cast<double>(w.p.tensors[n.tensor].element_bytes));
  return l.name + " overflows: its tiles (" + tensors + ") need " +
         format_bytes(w.ev.traffic.at(Traffic::usage, level)) + " per instance, capacity " +
         format_bytes(l.capacity_bytes);
}

void finish(Walk& w) {
  const Hierarchy& h = w.h;
  w.ev.metrics = aggregate(h, w.ev.points, w.ev.traffic);
  for (auto& n : w.ev.nodes) {
    double bytes = static_cast<double>(w.p.tensors[n.tensor].element_bytes);
    n.energy_joules = bytes * (n.read_elements * h.levels[n.level].read_joules_per_byte +
                               n.write_elements * h.levels[n.level].write_joules_per_byte);
  }
  w.ev.compute_seconds = w.ev.traffic.compute_steps() / h.ops_per_s;
  for (int l = 0; l < h.num_levels(); ++l)
    w.ev.level_seconds.push_back(level_seconds(h.levels[l], w.ev.traffic.at(Traffic::read, l),
                                               w.ev.traffic.at(Traffic::write, l)));
  w.ev.utilization =
      w.ev.points / (w.ev.metrics.latency_seconds * h.ops_per_s * h.instances(h.num_levels()));
  w.ev.valid = true;
  for (int l = 0; l < h.num_levels() && w.ev.valid; ++l)
    if (w.ev.traffic.at(Traffic::usage, l) > h.levels[l].capacity_bytes) {
      w.ev.valid = false;
      w.ev.reason = overflow_reason(w, l);
    }
}

}  // namespace

Evaluation evaluate_reference(const Problem& p, const Hierarchy& h, const LoopTree& tree) {
  int levels = h.num_levels();
  Walk w{p, h, tree, std::vector<double>(levels + 1, 1.0), Evaluation{}};
  w.ev.traffic = Traffic(levels);
  w.ev.points = p.points();
  for (const auto& n : tree.nodes)
    if (n.kind == NodeKind::spatial)
      for (int l = h.fanouts[n.fanout].level; l <= levels; ++l)
        w.instances[l] *= static_cast<double>(n.bound);
  w.ev.traffic.compute_steps() = product(
      tree, 0, tree.nodes.size(), [](const auto& m) { return m.kind == NodeKind::temporal; });
  std::vector<size_t> innermost(p.num_tensors(), 0);
  for (size_t i = 0; i < tree.nodes.size(); ++i)
    if (tree.nodes[i].kind == NodeKind::storage) visit_storage(w, i, innermost);
  visit_compute(w, innermost);
  finish(w);
  return w.ev;
}

}  // namespace tessera::mapper
