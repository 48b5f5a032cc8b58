// If nodes whose condition folds (a shape test in a scripted export): the branch taken replaces
// the node, its values renamed under the node's name, so no control flow reaches the converters.
// An If whose condition depends on data stays, and is refused as control flow.
#pragma once

#include <onnx/onnx_pb.h>

#include <map>
#include <string>
#include <vector>

#include "framework/frontend/onnx/const_tensor.hpp"

namespace tessera::onnx_import {

// The graph attributes an If may carry; every other subgraph is control flow Tessera refuses.
bool is_if_branch(const onnx::NodeProto& node, const onnx::AttributeProto& attribute);

// Replaces each If whose condition `constants` holds by its branch. Returns the initializers the
// inlined branches brought (renamed); empty when nothing was inlined.
std::vector<std::string> inline_known_ifs(onnx::GraphProto& graph,
                                          const std::map<std::string, ConstTensor>& constants);

}  // namespace tessera::onnx_import
