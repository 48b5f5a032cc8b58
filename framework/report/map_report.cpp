#include "framework/report/map_report.hpp"

#include <cmath>
#include <nlohmann/json.hpp>

#include "framework/common/json_text.hpp"
#include "framework/mapper/workload_file.hpp"

namespace tessera {

namespace {

using nlohmann::json;
using namespace tessera::mapper;

json workload_json(const Problem& p) {
  json ranks = json::array(), tensors = json::array();
  for (int r = 0; r < p.num_ranks(); ++r)
    ranks.push_back({{"name", p.rank_names[r]}, {"extent", p.rank_extents[r]}});
  for (int t = 0; t < p.num_tensors(); ++t)
    tensors.push_back({{"name", p.tensors[t].name},
                       {"role", to_string(p.tensors[t].role)},
                       {"element_bytes", p.tensors[t].element_bytes},
                       {"operand", p.operand_text(t)}});
  return {{"name", p.name},
          {"einsum", p.einsum_text()},
          {"ranks", ranks},
          {"tensors", tensors},
          {"points", p.points()}};
}

// The LoopTree as the text draws it: a loop's "body" holds the nodes it encloses, the backing
// store's nodes and the storage nodes between two loops sit side by side, and the compute node
// ends the innermost body.
json looptree_json(const LoopTree& tree, const Problem& p, const Hierarchy& h) {
  json top = json::array();
  json* body = &top;
  for (size_t i = 0; i < tree.nodes.size(); ++i) {
    const LoopTreeNode& n = tree.nodes[i];
    if (n.kind == NodeKind::storage) {
      body->push_back({{"kind", "storage"},
                       {"level", h.levels[n.level].name},
                       {"tensor", p.tensors[n.tensor].name}});
      continue;
    }
    json loop = {{"kind", n.kind == NodeKind::spatial ? "spatial" : "temporal"},
                 {"loop", loop_name(tree, i, p)},
                 {"rank", p.rank_names[n.rank]},
                 {"bound", n.bound},
                 {"body", json::array()}};
    if (n.kind == NodeKind::spatial) loop["fanout"] = h.fanouts[n.fanout].name;
    body->push_back(std::move(loop));
    body = &body->back()["body"];
  }
  body->push_back({{"kind", "compute"}, {"unit", h.compute_name}, {"computes", p.name}});
  return top;
}

json capacity_json(double bytes) {
  return std::isinf(bytes) ? json(nullptr) : json(bytes);
}

json evaluation_json(const driver::Mapping& m, const driver::EvaluatedMapping& e) {
  const Problem& p = m.problem;
  const Hierarchy& h = m.hierarchy;
  const Evaluation& ev = e.evaluation;
  json nodes = json::array(), levels = json::array();
  for (const NodeReport& n : ev.nodes) {
    double element_bytes = static_cast<double>(p.tensors[n.tensor].element_bytes);
    nodes.push_back({{"level", h.levels[n.level].name},
                     {"tensor", p.tensors[n.tensor].name},
                     {"tile_elements", n.tile_elements},
                     {"tile_bytes", n.tile_elements * element_bytes},
                     {"fills", n.fills},
                     {"instances", n.instances},
                     {"read_elements", n.read_elements},
                     {"write_elements", n.write_elements},
                     {"energy_j", n.energy_joules}});
  }
  for (int l = 0; l < h.num_levels(); ++l)
    levels.push_back({{"level", h.levels[l].name},
                      {"used_bytes_per_instance", ev.traffic.at(Traffic::usage, l)},
                      {"capacity_bytes", capacity_json(h.levels[l].capacity_bytes)},
                      {"instances", h.instances(l)},
                      {"read_bytes", ev.traffic.at(Traffic::total_read, l)},
                      {"write_bytes", ev.traffic.at(Traffic::total_write, l)},
                      {"port_s", ev.level_seconds[l]}});
  json out = {{"valid", ev.valid},
              {"reason", ev.valid ? json(nullptr) : json(ev.reason)},
              {"energy_j", ev.metrics.energy_joules},
              {"latency_s", ev.metrics.latency_seconds},
              {"edp_j_s", ev.metrics.edp()},
              {"utilisation", ev.utilization},
              {"compute_s", ev.compute_seconds},
              {"looptree", looptree_json(e.candidate.tree, p, h)},
              {"nodes", nodes},
              {"levels", levels}};
  if (m.pareto_level >= 0) out["usage_bytes"] = e.candidate.usage_bytes;
  return out;
}

json mapspace_json(const MapspaceStats& s) {
  return {{"dataplacements", s.dataplacements},
          {"log10_dataflows_full", s.log10_dataflows_full},
          {"dataflows", s.dataflows},
          {"log10_tile_shapes_full", s.log10_tile_shapes_full},
          {"log10_mapspace_full", s.log10_mapspace_full},
          {"log10_after_dataflow", s.log10_after_dataflow},
          {"evaluated", s.tile.evaluated},
          {"partial_shapes", s.tile.partial_shapes},
          {"pruned_capacity", s.tile.pruned_capacity},
          {"pruned_objective", s.tile.pruned_objective},
          {"pruned_fanout", s.tile.pruned_fanout}};
}

json times_json(const StageTimes& t) {
  return {{"dataplacement_s", t.dataplacement},
          {"dataflow_s", t.dataflow},
          {"compile_s", t.compile},
          {"tile_search_s", t.tile_search},
          {"wall_s", t.wall}};
}

json random_json(const RandomSearchResult& r) {
  json improvements = json::array();
  for (const auto& [seconds, score] : r.improvements)
    improvements.push_back({{"at_s", seconds}, {"score", score}});
  return {{"samples", r.samples},
          {"valid", r.valid},
          {"seconds", r.seconds},
          {"improvements", improvements}};
}

}  // namespace

std::string map_json(const driver::Mapping& m) {
  json mappings = json::array();
  for (const auto& e : m.mappings) mappings.push_back(evaluation_json(m, e));
  json out = {{"format", "tessera-map-1"},
              {"workload", workload_json(m.problem)},
              {"epilogue", m.epilogue},
              {"arch", {{"name", m.arch.name}, {"file", m.arch.file.string()}}},
              {"search", m.search},
              {"objective", m.search == "evaluate" ? json(nullptr) : json(to_string(m.objective))},
              {"pareto_level",
               m.pareto_level >= 0 ? json(m.hierarchy.levels[m.pareto_level].name) : json(nullptr)},
              {"mappings", mappings},
              {"mapspace", m.mapspace ? mapspace_json(*m.mapspace) : json(nullptr)},
              {"times", m.times ? times_json(*m.times) : json(nullptr)},
              {"random", m.random ? random_json(*m.random) : json(nullptr)}};
  return json_text(out, 1) + "\n";
}

std::string map_presets_json() {
  json out = {{"format", "tessera-map-list-1"},
              {"architectures", arch_presets()},
              {"workloads", workload_presets()}};
  return json_text(out, 1) + "\n";
}

}  // namespace tessera
