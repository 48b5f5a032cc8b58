// Values nothing reads are not imported: an optional output that no node consumes and that is no
// graph output is cleared (as if the exporter had left it out, Dropout's mask for one), and a node
// none of whose outputs is read is removed, so it never becomes an op.
#pragma once

#include <onnx/onnx_pb.h>

namespace tessera::onnx_import {

void prune_unused(onnx::GraphProto& graph, int opset);

}  // namespace tessera::onnx_import
