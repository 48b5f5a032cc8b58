#include "framework/frontend/model_source.hpp"

#include <filesystem>

#include "framework/frontend/zoo/zoo.hpp"
#include "framework/ir/graph_yaml.hpp"

namespace tessera {

namespace {

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

Status check_no_dims(const ModelRequest& r, const std::string& what) {
  if (r.onnx.dims.empty()) return ok_status();
  return usage_error("--dim binds symbolic dimensions of ONNX models; " + what +
                     " takes --batch, --seq and --mode instead");
}

Status check_no_shape(const ModelRequest& r, const std::string& what) {
  if (!r.shape_given) return ok_status();
  return usage_error("--batch, --seq, --mode and --dtype apply to zoo models; " + what +
                     (what == "an ONNX model"
                          ? " takes --dim NAME=VALUE for its symbolic dimensions"
                          : " has fixed shapes"));
}

Result<ir::Graph> load_yaml(const ModelRequest& r) {
  auto root = YamlNode::load_file(r.model);
  if (!root) return root.error();
  try {
    if (ir::is_graph_document(*root)) {
      if (auto s = check_no_dims(r, "a workload graph"); !s) return s.error();
      if (auto s = check_no_shape(r, "a workload graph"); !s) return s.error();
      return ir::build_graph(ir::parse_graph_spec(*root));
    }
    if (zoo::is_model_document(*root)) {
      if (auto s = check_no_dims(r, "a zoo model"); !s) return s.error();
      return zoo::build_model(zoo::parse_model_spec(*root), r.shape);
    }
  } catch (const Failure& f) {
    return f.error();
  }
  return input_error(r.model +
                     ": neither a workload graph (key 'tessera_workload') nor a zoo model (key "
                     "'family')");
}

}  // namespace

Result<ir::Graph> load_model(const ModelRequest& r) {
  if (ends_with(r.model, ".onnx")) {
    if (auto s = check_no_shape(r, "an ONNX model"); !s) return s.error();
    return onnx_import::import_onnx_file(r.model, r.onnx);
  }
  if (ends_with(r.model, ".yaml") || ends_with(r.model, ".yml")) return load_yaml(r);
  if (r.model.find('/') != std::string::npos || std::filesystem::exists(r.model))
    return input_error(r.model + ": a model file must end in .onnx or .yaml");
  if (auto s = check_no_dims(r, "a zoo model"); !s) return s.error();
  auto spec = zoo::find_model(r.model);
  if (!spec) return spec.error();
  return zoo::build_model(*spec, r.shape);
}

}  // namespace tessera
