#include "framework/ir/graph_yaml.hpp"

#include <yaml-cpp/yaml.h>

namespace tessera::ir {

namespace {

TensorSpec parse_tensor(const YamlNode& node) {
  node.only_keys({"name", "shape", "dtype", "role", "view_of"});
  TensorSpec t{node,
               node.child("name").as_string(),
               node.child("dtype").as_string(),
               node.get_string("role", "activation"),
               node.get_string("view_of", ""),
               {}};
  for (const auto& d : node.child("shape").items())
    t.shape.push_back(d.as_int(1, int64_t{1} << 40));
  return t;
}

OpSpec parse_op(const YamlNode& node) {
  node.only_keys({"name", "kind", "fn", "ranks", "inputs", "output", "source"});
  OpSpec op{node,
            node.child("name").as_string(),
            node.child("kind").as_string(),
            node.child("fn").as_string(),
            node.get_string("source", ""),
            {},
            {},
            node.child("output").as_string()};
  for (const auto& [rank, extent] : node.child("ranks").entries())
    op.ranks.emplace_back(rank, extent.as_int(1, int64_t{1} << 40));
  if (node.has("inputs")) op.inputs = node.child("inputs").as_string_list();
  return op;
}

Tensor build_tensor(const TensorSpec& spec) {
  auto dtype = parse_dtype(spec.dtype);
  if (!dtype)
    throw spec.node.child("dtype").fail("unknown dtype '" + spec.dtype + "'; use one of " +
                                        dtype_names());
  auto role = parse_tensor_role(spec.role);
  if (!role)
    throw spec.node.child("role").fail("unknown role '" + spec.role +
                                       "'; use input, weight, constant, kv_cache or activation");
  return Tensor{spec.name, spec.shape, *dtype, *role, spec.view_of};
}

Operand build_operand(const YamlNode& node, const std::string& text) {
  auto operand = parse_operand(text);
  if (!operand) throw node.fail(operand.error().message);
  return std::move(*operand);
}

Op build_op(const OpSpec& spec) {
  auto kind = parse_op_kind(spec.kind);
  if (!kind)
    throw spec.node.child("kind").fail("unknown op kind '" + spec.kind + "'; use one of " +
                                       op_kind_names());
  Op op{spec.name, *kind, {}, spec.source};
  for (const auto& [rank, extent] : spec.ranks) op.einsum.ranks.push_back({rank, extent});
  YamlNode inputs_node = spec.node.has("inputs") ? spec.node.child("inputs") : spec.node;
  for (const auto& text : spec.inputs) op.einsum.inputs.push_back(build_operand(inputs_node, text));
  op.einsum.output = build_operand(spec.node.child("output"), spec.output);
  op.einsum.fn = spec.fn;
  return op;
}

void emit_tensor(YAML::Emitter& out, const Tensor& t) {
  out << YAML::Flow << YAML::BeginMap << YAML::Key << "name" << YAML::Value << t.name;
  out << YAML::Key << "shape" << YAML::Value << YAML::Flow << t.shape;
  out << YAML::Key << "dtype" << YAML::Value << to_string(t.dtype);
  out << YAML::Key << "role" << YAML::Value << to_string(t.role);
  if (!t.view_of.empty()) out << YAML::Key << "view_of" << YAML::Value << t.view_of;
  out << YAML::EndMap;
}

void emit_op(YAML::Emitter& out, const Op& op) {
  out << YAML::BeginMap << YAML::Key << "name" << YAML::Value << op.name;
  out << YAML::Key << "kind" << YAML::Value << to_string(op.kind);
  out << YAML::Key << "fn" << YAML::Value << op.einsum.fn;
  out << YAML::Key << "ranks" << YAML::Value << YAML::Flow << YAML::BeginMap;
  for (const auto& r : op.einsum.ranks) out << YAML::Key << r.name << YAML::Value << r.extent;
  out << YAML::EndMap;
  out << YAML::Key << "inputs" << YAML::Value << YAML::Flow << YAML::BeginSeq;
  for (const auto& in : op.einsum.inputs) out << in.str();
  out << YAML::EndSeq;
  out << YAML::Key << "output" << YAML::Value << op.einsum.output.str();
  if (!op.source.empty()) out << YAML::Key << "source" << YAML::Value << op.source;
  out << YAML::EndMap;
}

}  // namespace

bool is_graph_document(const YamlNode& root) {
  return root.has("tessera_workload");
}

GraphSpec parse_graph_spec(const YamlNode& root) {
  root.only_keys({"tessera_workload", "name", "tensors", "ops", "outputs"});
  root.child("tessera_workload").as_int(kGraphFormatVersion, kGraphFormatVersion);
  GraphSpec spec;
  spec.file = root.file();
  spec.name = root.child("name").as_string();
  for (const auto& t : root.child("tensors").items()) spec.tensors.push_back(parse_tensor(t));
  for (const auto& o : root.child("ops").items()) spec.ops.push_back(parse_op(o));
  if (root.has("outputs")) spec.outputs = root.child("outputs").as_string_list();
  return spec;
}

Result<Graph> build_graph(const GraphSpec& spec) {
  try {
    GraphBuilder builder(spec.name);
    for (const auto& t : spec.tensors)
      if (auto s = builder.add_tensor(build_tensor(t)); !s) throw t.node.fail(s.error().message);
    for (const auto& o : spec.ops)
      if (auto s = builder.add_op(build_op(o)); !s) throw o.node.fail(s.error().message);
    for (const auto& name : spec.outputs)
      if (auto s = builder.mark_output(name); !s)
        return input_error(spec.file + ": outputs: " + s.error().message);
    return builder.finish();
  } catch (const Failure& f) {
    return f.error();
  }
}

Result<Graph> read_graph_file(const std::string& file) {
  auto root = YamlNode::load_file(file);
  if (!root) return root.error();
  try {
    if (!is_graph_document(*root))
      return input_error(file + ": not a workload graph (the key 'tessera_workload' is missing)");
    return build_graph(parse_graph_spec(*root));
  } catch (const Failure& f) {
    return f.error();
  }
}

std::string write_graph_yaml(const Graph& graph, const std::vector<std::string>& header) {
  YAML::Emitter out;
  for (const auto& line : header) out << YAML::Comment(line) << YAML::Newline;
  out << YAML::BeginMap;
  out << YAML::Key << "tessera_workload" << YAML::Value << kGraphFormatVersion;
  out << YAML::Key << "name" << YAML::Value << graph.name();
  out << YAML::Key << "tensors" << YAML::Value << YAML::BeginSeq;
  for (const auto& t : graph.tensors()) emit_tensor(out, t);
  out << YAML::EndSeq << YAML::Key << "ops" << YAML::Value << YAML::BeginSeq;
  for (const auto& op : graph.ops()) emit_op(out, op);
  out << YAML::EndSeq;
  out << YAML::Key << "outputs" << YAML::Value << YAML::Flow << graph.outputs();
  out << YAML::EndMap;
  return std::string(out.c_str()) + "\n";
}

}  // namespace tessera::ir
