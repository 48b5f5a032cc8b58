#include "framework/frontend/model_source.hpp"

#include <filesystem>

#include "framework/common/reference.hpp"
#include "framework/frontend/elk/texpr.hpp"
#include "framework/frontend/zoo/zoo.hpp"
#include "framework/ir/graph_yaml.hpp"

namespace tessera {

namespace {

Status check_no_dims(const ModelRequest& r, const std::string& what) {
  if (r.onnx.dims.empty()) return ok_status();
  return usage_error("--dim binds symbolic dimensions of ONNX models; " + what +
                     " takes --batch, --seq and --mode instead");
}

Status check_no_shape(const ModelRequest& r, const std::string& what) {
  if (!r.shape_given) return ok_status();
  return usage_error(
      "--batch, --seq, --mode, --dtype, --weight-dtype and --precision apply to zoo models; " +
      what + " has fixed shapes");
}

// Splitting needs the model's structure (heads, experts, layers), which only a zoo entry states;
// but an ONNX model's recognised MoE blocks (onnx/moe.hpp) take ep.
Status check_whole(const ModelRequest& r, bool takes_ep) {
  zoo::Shard whole;
  if (takes_ep) whole.ep = r.shard.ep;
  if (r.shard == whole) return ok_status();
  return usage_error(r.model +
                     ": tp, ep and pipeline stages split a zoo decoder; an ONNX or graph file "
                     "runs whole (use dp), but for ep over an ONNX model's MoE blocks");
}

// --seq binds a decode graph's past length; --batch (but its default), --mode, --dtype and
// --weight-dtype do not
// apply. plan.yaml's source gives batch 1 with --seq, so a reopened plan loads the same way.
Result<ir::Graph> load_onnx(const ModelRequest& r) {
  if (auto s = check_whole(r, true); !s) return s.error();
  onnx_import::OnnxOptions options = r.onnx;
  options.expert_parallel = r.shard.ep;
  options.expert_skew = r.shape.expert_skew;
  if (r.shape_given) {
    if (r.shape.batch != 1 || r.shape.mode || r.shape.dtype || r.shape.weight_dtype ||
        r.shape.precision)
      return usage_error(
          "--batch, --mode, --dtype, --weight-dtype and --precision apply to zoo models; an ONNX "
          "model takes "
          "--dim NAME=VALUE "
          "for its symbolic dimensions and --seq for the past length of a decode graph");
    options.past_length = r.shape.seq;
  }
  return onnx_import::import_onnx_file(r.model, options);
}

Result<ir::Graph> load_yaml(const ModelRequest& r) {
  auto root = YamlNode::load_file(r.model);
  if (!root) return root.error();
  try {
    if (ir::is_graph_document(*root)) {
      if (auto s = check_no_dims(r, "a workload graph"); !s) return s.error();
      if (auto s = check_no_shape(r, "a workload graph"); !s) return s.error();
      if (auto s = check_whole(r, false); !s) return s.error();
      return ir::build_graph(ir::parse_graph_spec(*root));
    }
    if (zoo::is_model_document(*root)) {
      if (auto s = check_no_dims(r, "a zoo model"); !s) return s.error();
      return zoo::build_model(zoo::parse_model_spec(*root), r.shape, r.shard);
    }
  } catch (const Failure& f) {
    return f.error();
  }
  return input_error(r.model +
                     ": neither a workload graph (key 'tessera_workload') nor a zoo model (key "
                     "'family')");
}

}  // namespace

ModelKind model_kind(const std::string& model) {
  if (!names_a_file(model, kModelFileSuffixes)) return ModelKind::zoo_name;
  if (model.ends_with(".onnx")) return ModelKind::onnx_file;
  return model.ends_with(".json") ? ModelKind::elk_texpr_file : ModelKind::yaml_file;
}

Result<ir::Graph> load_model(const ModelRequest& r) {
  switch (model_kind(r.model)) {
    case ModelKind::onnx_file:
      return load_onnx(r);
    case ModelKind::yaml_file:
      return load_yaml(r);
    case ModelKind::elk_texpr_file:
      if (auto s = check_no_dims(r, "an Elk artifact op list"); !s) return s.error();
      if (auto s = check_no_shape(r, "an Elk artifact op list"); !s) return s.error();
      if (auto s = check_whole(r, false); !s) return s.error();
      return elk_texpr::read_texpr_file(r.model);
    case ModelKind::zoo_name:
      break;
  }
  if (auto s = check_no_dims(r, "a zoo model"); !s) return s.error();
  auto spec = zoo::find_model(r.model);
  if (!spec) {
    Error e = spec.error();
    if (std::filesystem::is_regular_file(r.model))
      e.message +=
          "; a file '" + r.model + "' exists here: a model file ends in .onnx, .yaml or .json";
    return e;
  }
  return zoo::build_model(*spec, r.shape, r.shard);
}

}  // namespace tessera
