#include "framework/frontend/onnx/decode.hpp"

#include "framework/frontend/onnx/attributes.hpp"

namespace tessera::onnx_import {

namespace {

const onnx::ValueInfoProto* find_input(const onnx::GraphProto& graph, const std::string& name) {
  for (const auto& in : graph.input())
    if (in.name() == name) return &in;
  return nullptr;
}

// The past's symbolic extent on `axis`, "" when the dimension is fixed or unknown.
std::string symbol_of(const onnx::ValueInfoProto& past, int64_t axis) {
  if (!past.type().has_tensor_type() || !past.type().tensor_type().has_shape()) return "";
  const auto& shape = past.type().tensor_type().shape();
  if (axis < 0 || axis >= shape.dim_size() || !shape.dim(static_cast<int>(axis)).has_dim_param())
    return "";
  return shape.dim(static_cast<int>(axis)).dim_param();
}

}  // namespace

std::map<std::string, KvCache> find_kv_caches(const onnx::GraphProto& graph) {
  std::set<std::string> initializers, outputs;
  for (const auto& init : graph.initializer()) initializers.insert(init.name());
  for (const auto& out : graph.output()) outputs.insert(out.name());
  std::map<std::string, KvCache> caches;
  for (const auto& node : graph.node()) {
    if (node.output_size() != 1 || !outputs.count(node.output(0))) continue;
    if (node.op_type() == "ScatterND" && node.input_size() == 3 &&
        !initializers.count(node.input(0)) && find_input(graph, node.input(0))) {
      caches[node.output(0)] = KvCache{node.input(0), node.output(0), -1, ""};
      continue;
    }
    if (node.op_type() != "Concat") continue;
    for (const auto& in : node.input()) {
      const auto* past = initializers.count(in) ? nullptr : find_input(graph, in);
      if (past == nullptr || !past->type().has_tensor_type()) continue;
      int64_t rank = past->type().tensor_type().shape().dim_size();
      int64_t axis = normalize_axis(attr_int(node, "axis", 0), rank);
      if (axis < 0) continue;
      caches[node.output(0)] = KvCache{in, node.output(0), axis, symbol_of(*past, axis)};
      break;
    }
  }
  return caches;
}

std::set<std::string> past_symbols(const std::map<std::string, KvCache>& caches) {
  std::set<std::string> symbols;
  for (const auto& [present, cache] : caches)
    if (!cache.past_symbol.empty()) symbols.insert(cache.past_symbol);
  return symbols;
}

Result<std::map<std::string, int64_t>> bind_past_length(
    const std::map<std::string, KvCache>& caches, const OnnxOptions& options,
    const std::string& file) {
  std::map<std::string, int64_t> dims = options.dims;
  if (!options.past_length) return dims;
  std::string seq = "--seq " + std::to_string(*options.past_length);
  if (caches.empty())
    return usage_error(seq +
                       ": --seq binds the past length of a decode graph (past key/value "
                       "inputs that a Concat extends into present outputs), and " +
                       file + " has none; bind its symbolic dimensions with --dim NAME=VALUE");
  auto symbols = past_symbols(caches);
  if (symbols.empty())
    return usage_error(seq + ": the past key/value inputs of " + file +
                       " have a fixed length; leave --seq out");
  for (const auto& symbol : symbols) {
    if (dims.count(symbol))
      return usage_error(seq + " and --dim " + symbol +
                         " both bind the past length; give one of them");
    dims[symbol] = *options.past_length;
  }
  return dims;
}

}  // namespace tessera::onnx_import
