#include "framework/mapper/looptree_yaml.hpp"

#include <cstdio>

#include "framework/common/user_text.hpp"
#include "framework/mapper/names.hpp"
#include "framework/mapper/workload_file.hpp"

namespace fs = std::filesystem;

namespace tessera::mapper {

namespace {

std::string number(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

int find_named(const YamlNode& node, const std::string& what,
               const std::vector<std::string>& names) {
  std::string name = node.as_string();
  for (size_t i = 0; i < names.size(); ++i)
    if (names[i] == name) return static_cast<int>(i);
  throw node.fail("no " + what + " '" + name + "'" + nearest_hint(name, names) +
                  "; expected one of " + join_names(names));
}

LoopTreeNode parse_node(const YamlNode& item, const Problem& p, const Hierarchy& h) {
  LoopTreeNode n;
  std::vector<std::string> levels, tensors, fanouts;
  for (const auto& l : h.levels) levels.push_back(l.name);
  for (const auto& t : p.tensors) tensors.push_back(t.name);
  for (const auto& f : h.fanouts) fanouts.push_back(f.name);
  if (item.has("storage")) {
    item.only_keys({"storage", "tensor"});
    n.kind = NodeKind::storage;
    n.level = find_named(item.child("storage"), "memory level", levels);
    n.tensor = find_named(item.child("tensor"), "tensor", tensors);
    return n;
  }
  if (item.has("temporal")) {
    item.only_keys({"temporal", "bound"});
    n.kind = NodeKind::temporal;
    n.rank = find_named(item.child("temporal"), "rank", p.rank_names);
  } else if (item.has("spatial")) {
    item.only_keys({"spatial", "bound", "fanout"});
    n.kind = NodeKind::spatial;
    n.rank = find_named(item.child("spatial"), "rank", p.rank_names);
    n.fanout = find_named(item.child("fanout"), "fan-out", fanouts);
  } else {
    throw item.fail(
        "expected a node: {storage: LEVEL, tensor: T}, {temporal: RANK, bound: N} "
        "or {spatial: RANK, bound: N, fanout: DIM}");
  }
  n.bound = item.child("bound").as_int(1, int64_t{1} << 40);
  return n;
}

void write_tree(std::string& out, const std::string& indent, const LoopTree& tree, const Problem& p,
                const Hierarchy& h) {
  for (const auto& n : tree.nodes) {
    out += indent + "- {";
    if (n.kind == NodeKind::storage)
      out += "storage: " + h.levels[n.level].name + ", tensor: " + p.tensors[n.tensor].name;
    else if (n.kind == NodeKind::temporal)
      out += "temporal: " + p.rank_names[n.rank] + ", bound: " + std::to_string(n.bound);
    else
      out += "spatial: " + p.rank_names[n.rank] + ", bound: " + std::to_string(n.bound) +
             ", fanout: " + h.fanouts[n.fanout].name;
    out += "}\n";
  }
}

std::string metrics_line(const Metrics& m) {
  return "{energy_joules: " + number(m.energy_joules) +
         ", latency_seconds: " + number(m.latency_seconds) + ", edp: " + number(m.edp()) + "}";
}

MappingFile parse_root(const YamlNode& root) {
  if (!root.is_map() || !root.has("tessera_mapping"))
    throw root.fail(
        "not a mapping file (no `tessera_mapping:` key; write one with tessera map "
        "--output)");
  root.only_keys(
      {"tessera_mapping", "arch", "workload", "objective", "metrics", "mapping", "front"});
  root.child("tessera_mapping").as_int(1, 1);
  MappingFile file;
  file.arch = root.child("arch").as_string();
  YamlNode w = root.child("workload");
  auto problem = parse_workload_node(w, "workload");
  if (!problem) throw Failure(problem.error());
  file.problem = std::move(problem).take();
  if (root.has("mapping")) file.trees.push_back(root.child("mapping"));
  if (root.has("front"))
    for (const auto& point : root.child("front").items()) {
      point.only_keys({"latency_seconds", "usage_bytes", "metrics", "mapping"});
      file.trees.push_back(point.child("mapping"));
    }
  if (file.trees.empty()) throw root.fail("needs `mapping:` (or `front:`)");
  return file;
}

Result<MappingFile> from_root(Result<YamlNode> root) {
  if (!root) return root.error();
  try {
    return parse_root(*root);
  } catch (const Failure& f) {
    return f.error();
  }
}

}  // namespace

Result<MappingFile> read_mapping_file(const fs::path& path) {
  return from_root(YamlNode::load_file(path.string()));
}

Result<MappingFile> parse_mapping_text(const std::string& text, const fs::path& file) {
  return from_root(YamlNode::load_string(text, file.string()));
}

Result<LoopTree> looptree_from_yaml(const YamlNode& list, const Problem& p, const Hierarchy& h) {
  LoopTree tree;
  std::vector<YamlNode> items;
  try {
    items = list.items();
    for (const auto& item : items) tree.nodes.push_back(parse_node(item, p, h));
  } catch (const Failure& f) {
    return f.error();
  }
  Status s = check_looptree(tree, p, h);
  if (s) return tree;
  // "mapping node i: ..." names the item; say where it is written.
  const std::string& message = s.error().message;
  size_t i = 0;
  if (std::sscanf(message.c_str(), "mapping node %zu:", &i) == 1 && i < items.size())
    return input_error(items[i].where() + message.substr(message.find(':') + 2));
  return input_error(list.where() + message.substr(message.find(':') + 2));
}

std::string mapping_yaml(const std::string& arch, const Problem& p, const Hierarchy& h,
                         Objective objective, const std::vector<Candidate>& mappings) {
  std::string out = "# tessera map: " + printable(p.str() + " on " + h.arch_name, 1000) + "\n";
  out +=
      "tessera_mapping: 1\narch: " + yaml_scalar(arch) + "\nworkload:\n" + workload_yaml(p, "  ");
  out += std::string("objective: ") + to_string(objective) + "\n";
  if (objective != Objective::pareto && !mappings.empty()) {
    out += "metrics: " + metrics_line(mappings[0].metrics) + "\nmapping:\n";
    write_tree(out, "  ", mappings[0].tree, p, h);
    return out;
  }
  out += "front:\n";
  for (const auto& c : mappings) {
    out += "  - latency_seconds: " + number(c.metrics.latency_seconds) + "\n";
    out += "    usage_bytes: " + number(c.usage_bytes) + "\n";
    out += "    metrics: " + metrics_line(c.metrics) + "\n    mapping:\n";
    write_tree(out, "      ", c.tree, p, h);
  }
  return out;
}

}  // namespace tessera::mapper
