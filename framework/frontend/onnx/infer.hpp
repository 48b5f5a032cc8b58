// The type and shape of every value: libonnx's shape inference, guarded against the inputs whose
// rank it trusts, and completed where it leaves a shape open. Its data propagation stays off: it
// crashes on graphs that mix a shape vector into float arithmetic (found by fuzzing), and the fold
// loop computes the same values (one more inference round per level of shapes computed from
// shapes).
#pragma once

#include "framework/frontend/onnx/prepare.hpp"

namespace tessera::onnx_import {

// Drops the graph's value_info (entries of folded nodes would be stale), infers again and fills
// pm.types. Input errors: libonnx's inference fails, or a guarded input has a rank it cannot take.
Status infer_shapes(PreparedModel& pm);

// Shapes libonnx 1.12 leaves open (an Einsum's output, from its equation) into
// pm.completed_shapes, for the next inference to carry on; whether any was added.
bool complete_shapes(PreparedModel& pm);

}  // namespace tessera::onnx_import
