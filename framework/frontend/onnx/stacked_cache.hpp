// Decode graphs whose past keys (or values) are one input stacked across layers, [layers, ...]:
// each layer slices its past out of it (Gather at a constant index, or Slice, then Squeeze),
// appends its new positions (Concat, or ScatterND into a fixed-size cache), and the layers'
// presents are stacked back (Unsqueeze and Concat, or Concat of slices that kept the layer axis)
// into one output. Such a graph is rewritten into the per-layer form decode.hpp recognises: one
// past input "<past>.<layer>" and one present output "<present>.<layer>" per layer, so a stacked
// cache has the KV-cache bytes and the plan of the per-layer graph, and neither the slices nor
// the restacking copy the cache. A graph that matches only in part is left as it is (it imports
// as the copies it spells out).
#pragma once

#include <onnx/onnx_pb.h>

namespace tessera::onnx_import {

// Rewrites every stacked cache of `graph` (before its dimensions are bound: the per-layer inputs
// keep the stacked input's symbolic dimensions). Layer k must come from index k of the stack and
// go back to position k, every index once.
void unstack_kv_caches(onnx::GraphProto& graph, int opset);

}  // namespace tessera::onnx_import
