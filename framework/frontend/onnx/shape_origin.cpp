#include "framework/frontend/onnx/shape_origin.hpp"

#include <map>
#include <set>
#include <vector>

#include "framework/common/user_text.hpp"

namespace tessera::onnx_import {

namespace {

using Producers = std::map<std::string, const onnx::NodeProto*>;

bool has_static_shape(const PreparedModel& pm, const std::string& value) {
  auto it = pm.types.find(value);
  return it != pm.types.end() && it->second.dims.has_value();
}

std::string node_name(const onnx::NodeProto& node) {
  return "node " + in_quotes(node.name()) + " (" + printable(node.op_type()) + ")";
}

// The model input or weight whose values flow into `value`, searched depth-first.
std::string value_source(const PreparedModel& pm, const Producers& producers,
                         const std::string& value, std::set<std::string>& seen) {
  if (!seen.insert(value).second) return "";
  auto it = producers.find(value);
  if (it == producers.end()) {
    if (pm.weights.count(value)) return "weight " + in_quotes(value);
    if (pm.folded.count(value)) return "";
    return "model input " + in_quotes(value);
  }
  for (const auto& in : it->second->input())
    if (!in.empty() && !pm.constants.count(in))
      if (auto s = value_source(pm, producers, in, seen); !s.empty()) return s;
  return "";
}

// The node's inputs of unknown value, those most likely to hold a shape first: integer ones
// (shapes, axes, sizes), then the inputs after the first (Resize's scales), then the data.
std::vector<std::string> shape_inputs_first(const PreparedModel& pm, const onnx::NodeProto& node) {
  std::vector<std::string> ints, params, data;
  for (int i = 0; i < node.input_size(); ++i) {
    const std::string& in = node.input(i);
    if (in.empty() || pm.constants.count(in)) continue;
    auto t = pm.types.find(in);
    bool is_int = t != pm.types.end() && is_int_type(t->second.elem_type);
    (is_int ? ints : (i > 0 ? params : data)).push_back(in);
  }
  ints.insert(ints.end(), params.begin(), params.end());
  ints.insert(ints.end(), data.begin(), data.end());
  return ints;
}

// Whether the node's output shape can follow from the values of `input`: an integer input (a
// shape, axes, sizes), a scalar or vector of parameters (Range's limits, Resize's scales,
// OneHot's depth), or the data of an op whose output size depends on it (NonZero, Unique, ...).
bool value_dependent(const PreparedModel& pm, const onnx::NodeProto& node,
                     const std::string& input) {
  static const std::set<std::string> by_data = {
      "NonZero", "Unique", "Compress", "StringNormalizer", "NonMaxSuppression", "TfIdfVectorizer"};
  auto t = pm.types.find(input);
  return by_data.count(node.op_type()) || t == pm.types.end() || !t->second.dims ||
         t->second.dims->size() <= 1 || is_int_type(t->second.elem_type);
}

std::string dims_text(const std::vector<int64_t>& dims) {
  std::string s = "[";
  for (size_t i = 0; i < dims.size(); ++i) s += (i ? ", " : "") + std::to_string(dims[i]);
  return s + "]";
}

// "[1, 4, 1, 16] and [1, 64, 16, 2]".
std::string input_shapes(const PreparedModel& pm, const onnx::NodeProto& node) {
  std::string s;
  for (const auto& in : node.input()) {
    auto t = pm.types.find(in);
    if (in.empty() || t == pm.types.end() || !t->second.dims) continue;
    s += (s.empty() ? "" : " and ") + dims_text(*t->second.dims);
  }
  return s;
}

}  // namespace

std::string shape_origin(const PreparedModel& pm, const std::string& value) {
  if (has_static_shape(pm, value)) return "";
  if (pm.non_tensors.count(value))
    return in_quotes(value) +
           " is a sequence, map or optional, not a tensor; only tensors are supported";
  Producers producers;
  for (const auto& node : pm.model.graph().node())
    for (const auto& out : node.output()) producers[out] = &node;
  std::string current = value;
  for (size_t step = 0; step <= producers.size(); ++step) {
    auto it = producers.find(current);
    if (it == producers.end()) return in_quotes(current) + " has no static shape";
    const onnx::NodeProto& node = *it->second;
    std::string unknown_input;
    for (const auto& in : node.input())
      if (!in.empty() && !has_static_shape(pm, in) && unknown_input.empty()) unknown_input = in;
    if (!unknown_input.empty()) {
      current = unknown_input;
      continue;
    }
    auto candidates = shape_inputs_first(pm, node);
    if (!candidates.empty() && !value_dependent(pm, node, candidates.front()))
      return node_name(node) + " has no inferred output shape: its inputs' shapes " +
             input_shapes(pm, node) + " do not fit it (is the model valid?)";
    for (const auto& in : candidates) {
      std::set<std::string> seen;
      std::string source = value_source(pm, producers, in, seen);
      return node_name(node) + " computes its shape from the values of " + in_quotes(in) +
             (source.empty() || source == "model input " + in_quotes(in)
                  ? (source.empty() ? "" : ", a model input")
                  : ", which come from " + source);
    }
    return node_name(node) + " has no static output shape although its inputs are known";
  }
  return in_quotes(current) + " has no static shape";
}

}  // namespace tessera::onnx_import
