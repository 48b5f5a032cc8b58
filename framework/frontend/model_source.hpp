// What `tessera inspect MODEL` (and later `compile`) accepts as MODEL: a path to an ONNX model, a
// workload graph YAML, a zoo entry YAML, an Elk artifact op list (.json, frontend/elk/texpr.hpp),
// or the name of a zoo entry.
#pragma once

#include <string>

#include "framework/common/status.hpp"
#include "framework/frontend/onnx/importer.hpp"
#include "framework/frontend/zoo/builders.hpp"
#include "framework/ir/graph.hpp"

namespace tessera {

struct ModelRequest {
  std::string model;
  onnx_import::OnnxOptions onnx;  // for .onnx files
  zoo::RunShape shape;            // for zoo entries
  bool shape_given = false;       // --batch, --seq or --mode was given
  zoo::Shard shard;               // one chip's share of a zoo decoder; other models run whole
};

// How MODEL is read (common/reference.hpp's rule: a path contains '/' or ends in .onnx, .yaml,
// .yml or .json; anything else names a zoo entry).
enum class ModelKind { zoo_name, onnx_file, yaml_file, elk_texpr_file };
ModelKind model_kind(const std::string& model);

// Usage errors for options that do not apply to the kind of model (--dim for a zoo entry,
// --batch or a shard for an ONNX file or a graph); input errors for the model itself.
Result<ir::Graph> load_model(const ModelRequest& request);

}  // namespace tessera
