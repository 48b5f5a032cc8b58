#include "framework/frontend/onnx/attributes.hpp"

namespace tessera::onnx_import {

const onnx::AttributeProto* find_attr(const onnx::NodeProto& node, const std::string& name) {
  for (const auto& a : node.attribute())
    if (a.name() == name) return &a;
  return nullptr;
}

int64_t attr_int(const onnx::NodeProto& node, const std::string& name, int64_t fallback) {
  const auto* a = find_attr(node, name);
  return a && a->type() == onnx::AttributeProto::INT ? a->i() : fallback;
}

float attr_float(const onnx::NodeProto& node, const std::string& name, float fallback) {
  const auto* a = find_attr(node, name);
  return a && a->type() == onnx::AttributeProto::FLOAT ? a->f() : fallback;
}

std::string attr_string(const onnx::NodeProto& node, const std::string& name,
                        const std::string& fallback) {
  const auto* a = find_attr(node, name);
  return a && a->type() == onnx::AttributeProto::STRING ? a->s() : fallback;
}

std::vector<int64_t> attr_ints(const onnx::NodeProto& node, const std::string& name) {
  const auto* a = find_attr(node, name);
  if (!a || a->type() != onnx::AttributeProto::INTS) return {};
  return {a->ints().begin(), a->ints().end()};
}

int64_t normalize_axis(int64_t axis, int64_t rank) {
  if (axis < -rank || axis >= rank) return -1;
  return axis < 0 ? axis + rank : axis;
}

}  // namespace tessera::onnx_import
