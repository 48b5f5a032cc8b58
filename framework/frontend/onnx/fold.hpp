// Constant folding of shape arithmetic: a node whose inputs are all known small constants (or, for
// Shape and Size, whose input has a static shape) is evaluated here and disappears from the graph.
#pragma once

#include <optional>
#include <vector>

#include "framework/frontend/onnx/const_tensor.hpp"

namespace tessera::onnx_import {

struct FoldInput {
  const ConstTensor* value = nullptr;           // known value, or null
  const std::vector<int64_t>* shape = nullptr;  // static shape, or null
};

// One axis of a Slice after ONNX's clamping: first element, step, and elements taken.
struct SliceAxis {
  int64_t start = 0, step = 1, count = 0;
};
// Per axis of `dims`, what Slice(starts, ends, axes, steps) takes; nullopt when inconsistent.
std::optional<std::vector<SliceAxis>> slice_plan(const std::vector<int64_t>& dims,
                                                 const std::vector<int64_t>& starts,
                                                 const std::vector<int64_t>& ends,
                                                 const std::vector<int64_t>& axes,
                                                 const std::vector<int64_t>& steps);
struct SliceBounds {
  std::vector<int64_t> starts, ends, axes, steps;
};
// A Slice node's bounds, from attributes (opset < 10) or constant inputs 1..4 (null: unknown).
std::optional<SliceBounds> slice_bounds(const onnx::NodeProto& node, int opset,
                                        const std::vector<const ConstTensor*>& inputs);

// The values of the node's outputs, or nullopt when it cannot be folded (unknown op, a value not
// known, an overflow, an out-of-range index, or a result above `max_elements`, itself at most
// kMaxComputedElements).
std::optional<std::vector<ConstTensor>> fold_node(const onnx::NodeProto& node, int opset,
                                                  const std::vector<FoldInput>& inputs,
                                                  int64_t max_elements = kMaxFoldElements);

}  // namespace tessera::onnx_import
