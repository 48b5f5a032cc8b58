// Why a value has no static shape after folding: the chain from it back to the node whose output
// shape is computed from data, and the model input (or weight) that data comes from. Only such a
// dimension is an error; every shape computed from shapes and constants has been folded.
#pragma once

#include <string>

#include "framework/frontend/onnx/prepare.hpp"

namespace tessera::onnx_import {

// "node 'r' (Reshape) computes its shape from the values of 'shape', which come from model input
// 'shape'". Empty when `value` has a static shape.
std::string shape_origin(const PreparedModel& pm, const std::string& value);

}  // namespace tessera::onnx_import
