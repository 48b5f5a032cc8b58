#include "framework/frontend/onnx/prune.hpp"

#include <onnx/defs/schema.h>

#include <string>
#include <unordered_map>
#include <vector>

namespace tessera::onnx_import {

namespace {

using Readers = std::unordered_map<std::string, int>;

// Names read by a node, its If branches included (they read the enclosing graph's values).
void count_reads(const onnx::NodeProto& node, Readers& readers, int delta) {
  for (const auto& in : node.input())
    if (!in.empty()) readers[in] += delta;
  for (const auto& a : node.attribute()) {
    for (const auto& sub : a.graphs())
      for (const auto& n : sub.node()) count_reads(n, readers, delta);
    if (a.has_g())
      for (const auto& n : a.g().node()) count_reads(n, readers, delta);
  }
}

// Only an optional output may be left out: a variadic one (Split's) fixes how many parts there are.
bool optional_output(const onnx::NodeProto& node, int i, int opset) {
  std::string domain = node.domain() == "ai.onnx" ? "" : node.domain();
  const auto* schema = onnx::OpSchemaRegistry::Schema(node.op_type(), opset, domain);
  if (schema == nullptr || i >= static_cast<int>(schema->outputs().size())) return false;
  return schema->outputs()[static_cast<size_t>(i)].GetOption() ==
         onnx::OpSchema::FormalParameterOption::Optional;
}

}  // namespace

// Backwards, so that removing a node frees what it read for the nodes before it: one pass.
void prune_unused(onnx::GraphProto& graph, int opset) {
  Readers readers;
  for (const auto& node : graph.node()) count_reads(node, readers, 1);
  for (const auto& out : graph.output()) ++readers[out.name()];
  auto* nodes = graph.mutable_node();
  std::vector<bool> keep(static_cast<size_t>(nodes->size()), true);
  for (int k = nodes->size(); k-- > 0;) {
    auto& node = *nodes->Mutable(k);
    bool read = false;
    for (int i = 0; i < node.output_size(); ++i) {
      if (node.output(i).empty()) continue;
      bool used = readers[node.output(i)] > 0;
      read = read || used;
      if (!used && optional_output(node, i, opset)) node.set_output(i, "");
    }
    if (read) continue;
    keep[static_cast<size_t>(k)] = false;
    count_reads(node, readers, -1);
  }
  google::protobuf::RepeatedPtrField<onnx::NodeProto> kept;
  for (int k = 0; k < nodes->size(); ++k)
    if (keep[static_cast<size_t>(k)]) kept.Add()->Swap(nodes->Mutable(k));
  nodes->Swap(&kept);
}

}  // namespace tessera::onnx_import
