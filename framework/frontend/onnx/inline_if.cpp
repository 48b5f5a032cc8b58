#include "framework/frontend/onnx/inline_if.hpp"

namespace tessera::onnx_import {

namespace {

using Renames = std::map<std::string, std::string>;

const onnx::GraphProto* branch(const onnx::NodeProto& node, bool condition) {
  for (const auto& a : node.attribute())
    if (a.name() == (condition ? "then_branch" : "else_branch") && a.has_g()) return &a.g();
  return nullptr;
}

// Every value the branch defines, under "<if node>/<value>".
Renames branch_names(const onnx::NodeProto& node, const onnx::GraphProto& g) {
  Renames names;
  for (const auto& init : g.initializer()) names[init.name()] = node.name() + "/" + init.name();
  for (const auto& n : g.node())
    for (const auto& out : n.output())
      if (!out.empty()) names[out] = node.name() + "/" + out;
  return names;
}

std::string renamed(const Renames& names, const std::string& value) {
  auto it = names.find(value);
  return it == names.end() ? value : it->second;
}

// The branch's nodes, initializers and an Identity per output, in place of the If.
void splice(const onnx::NodeProto& node, const onnx::GraphProto& g,
            google::protobuf::RepeatedPtrField<onnx::NodeProto>& kept, onnx::GraphProto& graph,
            std::vector<std::string>& added) {
  Renames names = branch_names(node, g);
  for (const auto& init : g.initializer()) {
    auto* copy = graph.add_initializer();
    *copy = init;
    copy->set_name(renamed(names, init.name()));
    added.push_back(copy->name());
  }
  for (int i = 0; i < g.node_size(); ++i) {
    auto* copy = kept.Add();
    *copy = g.node(i);
    copy->set_name(node.name() + "/" +
                   (g.node(i).name().empty() ? g.node(i).op_type() + "_" + std::to_string(i)
                                             : g.node(i).name()));
    for (auto& in : *copy->mutable_input()) in = renamed(names, in);
    for (auto& out : *copy->mutable_output()) out = renamed(names, out);
  }
  for (int i = 0; i < g.output_size() && i < node.output_size(); ++i) {
    auto* id = kept.Add();
    id->set_op_type("Identity");
    id->set_name(node.name() + "/output_" + std::to_string(i));
    id->add_input(renamed(names, g.output(i).name()));
    id->add_output(node.output(i));
  }
}

}  // namespace

bool is_if_branch(const onnx::NodeProto& node, const onnx::AttributeProto& a) {
  bool default_domain = node.domain().empty() || node.domain() == "ai.onnx";
  return default_domain && node.op_type() == "If" && a.type() == onnx::AttributeProto::GRAPH &&
         (a.name() == "then_branch" || a.name() == "else_branch") && a.graphs_size() == 0;
}

std::vector<std::string> inline_known_ifs(onnx::GraphProto& graph,
                                          const std::map<std::string, ConstTensor>& constants) {
  std::vector<std::string> added;
  google::protobuf::RepeatedPtrField<onnx::NodeProto> kept;
  for (auto& node : *graph.mutable_node()) {
    auto cond = node.op_type() == "If" && node.input_size() == 1 ? constants.find(node.input(0))
                                                                 : constants.end();
    const onnx::GraphProto* taken = nullptr;
    if (cond != constants.end() && cond->second.size() == 1)
      taken = branch(node, cond->second.as_double(0) != 0);
    if (taken == nullptr || taken->output_size() != node.output_size()) {
      kept.Add()->Swap(&node);
      continue;
    }
    splice(node, *taken, kept, graph, added);
  }
  graph.mutable_node()->Swap(&kept);
  return added;
}

}  // namespace tessera::onnx_import
