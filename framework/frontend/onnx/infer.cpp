#include "framework/frontend/onnx/infer.hpp"

#include <onnx/shape_inference/implementation.h>

#include <set>

#include "framework/frontend/onnx/attributes.hpp"
#include "framework/frontend/onnx/einsum_equation.hpp"

namespace tessera::onnx_import {

namespace {

void record_type(PreparedModel& pm, const onnx::ValueInfoProto& v) {
  auto& types = pm.types;
  if (!v.type().has_tensor_type()) {
    if (v.has_type()) pm.non_tensors.insert(v.name());
    return;
  }
  const auto& t = v.type().tensor_type();
  ValueType vt{t.elem_type(), std::nullopt};
  if (t.has_shape()) {
    std::vector<int64_t> dims;
    for (const auto& d : t.shape().dim()) {
      if (!d.has_dim_value() || d.dim_value() < 0) return void(types[v.name()] = vt);
      dims.push_back(d.dim_value());
    }
    vt.dims = dims;
  }
  types[v.name()] = vt;
}

void collect_types(PreparedModel& pm) {
  const auto& g = pm.model.graph();
  pm.types.clear();
  for (const auto& v : g.input()) record_type(pm, v);
  for (const auto& v : g.value_info()) record_type(pm, v);
  for (const auto& v : g.output()) record_type(pm, v);
  for (const auto& init : g.initializer())  // the data itself is authoritative
    pm.types[init.name()] = {init.data_type(),
                             std::vector<int64_t>(init.dims().begin(), init.dims().end())};
}

// Shapes computed here for what libonnx's inference leaves open go back into the graph as
// value_info, so inference carries them on to the nodes downstream.
void add_completed_shapes(PreparedModel& pm) {
  auto* graph = pm.model.mutable_graph();
  for (const auto& [name, dims] : pm.completed_shapes) {
    auto t = pm.types.find(name);
    if (t == pm.types.end()) continue;
    auto* v = graph->add_value_info();
    v->set_name(name);
    auto* tensor = v->mutable_type()->mutable_tensor_type();
    tensor->set_elem_type(t->second.elem_type);
    auto* shape = tensor->mutable_shape();
    for (int64_t d : dims) shape->add_dim()->set_dim_value(d);
  }
}

// Inputs whose rank libonnx's inference trusts: it reads a convolution weight's dims and an
// STFT signal's dims past their end when the rank is lower (found by fuzzing).
struct RankGuard {
  const char* op;
  int input;
  size_t min_rank, max_rank;
  const char* what;
};

constexpr RankGuard kRankGuards[] = {
    {"Conv", 1, 3, 64, "weight must have rank >= 3"},
    {"ConvTranspose", 1, 3, 64, "weight must have rank >= 3"},
    {"ConvInteger", 1, 3, 64, "weight must have rank >= 3"},
    {"QLinearConv", 3, 3, 64, "weight must have rank >= 3"},
    {"STFT", 0, 3, 3, "the signal must have rank 3 ([batch, length, 1 or 2])"},
};

const RankGuard* rank_guard(const onnx::NodeProto& n) {
  for (const auto& g : kRankGuards)
    if (n.op_type() == g.op && g.input < n.input_size()) return &g;
  return nullptr;
}

// Guarded nodes whose guarded input has no known rank yet: such a node waits for an inference
// pass without it to type that input. A known rank out of range is an error.
Result<std::set<int>> waiting_for_ranks(const PreparedModel& pm) {
  std::set<int> waiting;
  const auto& nodes = pm.model.graph().node();
  for (int i = 0; i < nodes.size(); ++i) {
    const RankGuard* guard = rank_guard(nodes[i]);
    if (guard == nullptr) continue;
    auto t = pm.types.find(nodes[i].input(guard->input));
    if (t == pm.types.end() || !t->second.dims) {
      waiting.insert(i);
      continue;
    }
    if (t->second.dims->size() < guard->min_rank || t->second.dims->size() > guard->max_rank)
      return input_error(pm.file + ": " + describe_node(nodes[i], i, pm.opset) + ": " +
                         guard->what);
  }
  return waiting;
}

// One libonnx inference pass over the graph without the nodes in `skip`.
Status infer_without(PreparedModel& pm, const std::set<int>& skip) {
  auto* nodes = pm.model.mutable_graph()->mutable_node();
  google::protobuf::RepeatedPtrField<onnx::NodeProto> all;
  all.Swap(nodes);
  for (int i = 0; i < all.size(); ++i)
    if (!skip.count(i)) *nodes->Add() = all[i];
  Status status = ok_status();
  try {
    onnx::ShapeInferenceOptions options(false, 0, false);  // no data propagation: infer.hpp
    onnx::shape_inference::InferShapes(pm.model, onnx::OpSchemaRegistry::Instance(), options);
  } catch (const std::exception& e) {
    status = input_error(pm.file + ": " + "ONNX shape inference failed: " + one_line(e.what()));
  }
  nodes->Swap(&all);
  collect_types(pm);
  return status;
}

}  // namespace

// Passes until every guarded input is typed (one pass when all convolution weights are
// initializers, as in most models) or no waiting one gets typed.
Status infer_shapes(PreparedModel& pm) {
  pm.model.mutable_graph()->clear_value_info();  // entries of folded nodes would be stale
  add_completed_shapes(pm);
  collect_types(pm);
  for (;;) {
    auto waiting = waiting_for_ranks(pm);
    if (!waiting) return waiting.error();
    if (auto s = infer_without(pm, *waiting); !s) return s;
    auto still = waiting_for_ranks(pm);
    if (!still) return still.error();
    if (waiting->empty() || still->size() == waiting->size()) return ok_status();
  }
}

// libonnx 1.12 infers only the rank of an Einsum's output; its shape follows from the equation.
bool complete_shapes(PreparedModel& pm) {
  bool changed = false;
  for (const auto& node : pm.model.graph().node()) {
    if (node.op_type() != "Einsum" || node.output_size() != 1) continue;
    auto out = pm.types.find(node.output(0));
    if (out == pm.types.end() || out->second.dims) continue;
    std::vector<std::vector<int64_t>> shapes;
    for (const auto& in : node.input()) {
      auto t = pm.types.find(in);
      if (t == pm.types.end() || !t->second.dims) break;
      shapes.push_back(*t->second.dims);
    }
    if (shapes.size() != static_cast<size_t>(node.input_size())) continue;
    const auto* eq = find_attr(node, "equation");
    if (eq == nullptr) continue;
    auto parsed = parse_einsum(eq->s(), shapes);
    if (const auto* e = std::get_if<EinsumEquation>(&parsed)) {
      out->second.dims = e->output_shape();
      pm.completed_shapes[node.output(0)] = e->output_shape();
      changed = true;
    }
  }
  return changed;
}

}  // namespace tessera::onnx_import
