// Reading a node's attributes with defaults. A present attribute of the wrong type counts as absent
// (the ONNX checker has already rejected those).
#pragma once

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <string>
#include <vector>

namespace tessera::onnx_import {

const onnx::AttributeProto* find_attr(const onnx::NodeProto& node, const std::string& name);
int64_t attr_int(const onnx::NodeProto& node, const std::string& name, int64_t fallback);
float attr_float(const onnx::NodeProto& node, const std::string& name, float fallback);
std::string attr_string(const onnx::NodeProto& node, const std::string& name,
                        const std::string& fallback);
// Empty when absent.
std::vector<int64_t> attr_ints(const onnx::NodeProto& node, const std::string& name);

// A possibly negative axis into [0, rank); -1 when out of range.
int64_t normalize_axis(int64_t axis, int64_t rank);

}  // namespace tessera::onnx_import
