#include "framework/frontend/onnx/prepare.hpp"

#include <onnx/checker.h>

#include <algorithm>

#include "framework/common/user_text.hpp"
#include "framework/frontend/onnx/attributes.hpp"
#include "framework/frontend/onnx/fold.hpp"
#include "framework/frontend/onnx/infer.hpp"
#include "framework/frontend/onnx/inline_if.hpp"
#include "framework/frontend/onnx/moe.hpp"
#include "framework/frontend/onnx/patterns.hpp"
#include "framework/frontend/onnx/prune.hpp"
#include "framework/frontend/onnx/stacked_cache.hpp"

namespace tessera::onnx_import {

namespace {

// Inference and folding alternate once per level of shapes computed from shapes (a decoder layer
// each): bounded only against a graph that never settles.
constexpr int kMaxRounds = 512;
// Folded values above kMaxFoldElements count against this many elements per model (128 MiB as
// int64 or double); past it only small values fold. Shape arithmetic is small and always folds;
// a few large masks fit (swin_t's: 154k elements), a graph of thousands of large constant
// expressions does not grow the import to gigabytes.
constexpr int64_t kLargeFoldBudget = int64_t{1} << 24;

Error model_error(const std::string& file, const std::string& what) {
  return input_error(file + ": " + what);
}

Result<int> default_opset(const onnx::ModelProto& model, const std::string& file) {
  for (const auto& o : model.opset_import())
    if (o.domain().empty() || o.domain() == "ai.onnx") return static_cast<int>(o.version());
  return model_error(file, "the model imports no version of the default ONNX operator set");
}

// Only shapes matter: weights kept in external files become typed inputs, so neither the checker
// nor anything else looks for the files.
void detach_external_data(onnx::GraphProto& graph) {
  google::protobuf::RepeatedPtrField<onnx::TensorProto> kept;
  for (auto& init : *graph.mutable_initializer()) {
    if (init.data_location() != onnx::TensorProto::EXTERNAL) {
      kept.Add()->Swap(&init);
      continue;
    }
    auto* input = graph.add_input();
    input->set_name(init.name());
    auto* type = input->mutable_type()->mutable_tensor_type();
    type->set_elem_type(init.data_type());
    auto* shape = type->mutable_shape();
    for (int64_t d : init.dims()) shape->add_dim()->set_dim_value(d);
  }
  graph.mutable_initializer()->Swap(&kept);
}

// Messages and op names need a name for every node; folding removes nodes, so positions would not
// do. An unnamed node is called OpType_N after its position in the file.
void name_unnamed_nodes(onnx::GraphProto& graph) {
  for (int i = 0; i < graph.node_size(); ++i)
    if (graph.node(i).name().empty())
      graph.mutable_node(i)->set_name(graph.node(i).op_type() + "_" + std::to_string(i));
}

// libonnx trusts stored tensors and does not recurse safely into malformed control flow: both are
// checked before the model reaches it. An If's branches are checked alike (they are inlined
// once the condition folds); any other subgraph is refused.
Status check_graph_data(const PreparedModel& pm, const onnx::GraphProto& g,
                        const std::string& scope) {
  if (g.sparse_initializer_size() > 0)
    return model_error(pm.file, scope + "sparse initializers are not supported");
  for (const auto& init : g.initializer())
    if (auto why = tensor_data_problem(init); !why.empty())
      return model_error(pm.file, scope + "initializer " + in_quotes(init.name()) + " " + why +
                                      " (is the file truncated?)");
  for (int i = 0; i < g.node_size(); ++i) {
    for (const auto& a : g.node(i).attribute()) {
      std::string where =
          scope + describe_node(g.node(i), i, pm.opset) + ": attribute " + in_quotes(a.name());
      if (is_if_branch(g.node(i), a)) {
        if (auto s = check_graph_data(pm, a.g(), where + ": "); !s) return s;
        continue;
      }
      if (a.type() == onnx::AttributeProto::GRAPH || a.type() == onnx::AttributeProto::GRAPHS ||
          a.has_g() || a.graphs_size() > 0)
        return model_error(pm.file, where + " is a subgraph; control flow is not supported");
      if (a.type() == onnx::AttributeProto::SPARSE_TENSOR || a.has_sparse_tensor())
        return model_error(pm.file, where + ": sparse tensors are not supported");
      for (const auto& t : a.tensors())
        if (auto why = tensor_data_problem(t); !why.empty())
          return model_error(pm.file, where + " " + why);
      if (a.has_t())
        if (auto why = tensor_data_problem(a.t()); !why.empty())
          return model_error(pm.file, where + " " + why);
    }
  }
  return ok_status();
}

// libonnx's shape inference trusts window attributes (a zero stride divides by zero), so they are
// checked first: every window size, stride and dilation positive, no negative padding.
Status check_window_attributes(const PreparedModel& pm) {
  const auto& nodes = pm.model.graph().node();
  for (int i = 0; i < nodes.size(); ++i) {
    for (const auto& a : nodes[i].attribute()) {
      bool positive = a.name() == "strides" || a.name() == "dilations" ||
                      a.name() == "kernel_shape" || a.name() == "group";
      if (!positive && a.name() != "pads") continue;
      std::vector<int64_t> values(a.ints().begin(), a.ints().end());
      if (a.type() == onnx::AttributeProto::INT) values.push_back(a.i());
      for (int64_t v : values)
        if (v < (positive ? 1 : 0))
          return model_error(pm.file, describe_node(nodes[i], i, pm.opset) + ": attribute '" +
                                          a.name() + "' must be " +
                                          (positive ? "positive" : "non-negative") + ", got " +
                                          std::to_string(v));
    }
  }
  return ok_status();
}

// Ranks known before inference: model inputs and initializers.
std::map<std::string, int> known_ranks(const onnx::GraphProto& g) {
  std::map<std::string, int> ranks;
  for (const auto& v : g.input())
    if (v.type().has_tensor_type() && v.type().tensor_type().has_shape())
      ranks[v.name()] = v.type().tensor_type().shape().dim_size();
  for (const auto& init : g.initializer()) ranks[init.name()] = init.dims_size();
  return ranks;
}

// libonnx's convolution and pooling inference indexes the input's dims by the weight's rank and
// the window attributes' lengths without checking them: check what is known beforehand.
Status check_window_ranks(const PreparedModel& pm) {
  static const std::set<std::string> windowed = {"Conv",        "ConvTranspose", "ConvInteger",
                                                 "QLinearConv", "MaxPool",       "AveragePool",
                                                 "LpPool",      "MaxUnpool",     "MaxRoiPool"};
  const auto& g = pm.model.graph();
  auto ranks = known_ranks(g);
  auto rank_of = [&](const onnx::NodeProto& n, int i) {
    auto it = i < n.input_size() ? ranks.find(n.input(i)) : ranks.end();
    return it == ranks.end() ? -1 : it->second;
  };
  for (int i = 0; i < g.node_size(); ++i) {
    const auto& n = g.node(i);
    if (!windowed.count(n.op_type())) continue;
    int x = rank_of(n, 0);
    int w = n.op_type().find("Conv") != std::string::npos
                ? rank_of(n, n.op_type() == "QLinearConv" ? 3 : 1)
                : -1;
    int spatial = x >= 0 ? x - 2 : (w >= 0 ? w - 2 : -1);
    std::string why;
    if (x >= 0 && x < 3) why = "input must have rank >= 3";
    if (x >= 0 && w >= 0 && x != w) why = "input and weight ranks differ";
    for (const auto& a : n.attribute()) {
      size_t per_dim = a.name() == "pads" ? 2 : 1;
      bool window = a.name() == "pads" || a.name() == "strides" || a.name() == "dilations" ||
                    a.name() == "kernel_shape" || a.name() == "output_padding";
      if (window && spatial >= 0 && a.ints_size() != static_cast<int>(per_dim * spatial))
        why = "attribute " + in_quotes(a.name()) + " does not have " +
              (per_dim == 2 ? "two values" : "one value") + " per spatial dimension";
    }
    if (!why.empty()) return model_error(pm.file, describe_node(n, i, pm.opset) + ": " + why);
  }
  return ok_status();
}

// Symbolic input dimensions -> values from --dim (and --seq for past lengths); every one must be
// bound, every --dim used.
Status bind_dims(onnx::GraphProto& graph, const std::string& file,
                 const std::map<std::string, int64_t>& bound, const std::set<std::string>& past) {
  std::set<std::string> initializers;
  for (const auto& init : graph.initializer()) initializers.insert(init.name());
  std::set<std::string> symbols;
  for (auto& input : *graph.mutable_input()) {
    if (initializers.count(input.name()) || !input.type().has_tensor_type()) continue;
    auto* shape = input.mutable_type()->mutable_tensor_type()->mutable_shape();
    for (int d = 0; d < shape->dim_size(); ++d) {
      auto* dim = shape->mutable_dim(d);
      if (dim->has_dim_value()) continue;
      std::string where = "input " + in_quotes(input.name()) + " dimension " + std::to_string(d);
      if (!dim->has_dim_param() || dim->dim_param().empty())
        return model_error(file, where + " has no size and no name to bind it by");
      auto it = bound.find(dim->dim_param());
      symbols.insert(dim->dim_param());
      if (it == bound.end())
        return model_error(
            file,
            where + " is the symbolic dimension '" + dim->dim_param() +
                "', which is not bound; pass --dim " + dim->dim_param() + "=VALUE" +
                (past.count(dim->dim_param()) ? " (or --seq VALUE: the past length of this decode "
                                                "graph)"
                                              : ""));
      dim->set_dim_value(it->second);
    }
  }
  for (const auto& [name, value] : bound) {
    if (symbols.count(name)) continue;
    std::string all;
    for (const auto& s : symbols) all += (all.empty() ? "" : ", ") + s;
    return model_error(file, "--dim " + name + "=" + std::to_string(value) +
                                 ": the model has no symbolic input dimension " + in_quotes(name) +
                                 (all.empty() ? " (it has none)" : " (it has: " + all + ")"));
  }
  // Inferred shapes replace the exporter's symbolic ones.
  graph.clear_value_info();
  for (auto& output : *graph.mutable_output())
    if (output.type().has_tensor_type())
      output.mutable_type()->mutable_tensor_type()->clear_shape();
  return ok_status();
}

std::vector<FoldInput> fold_inputs(const PreparedModel& pm, const onnx::NodeProto& node) {
  std::vector<FoldInput> in;
  for (const auto& name : node.input()) {
    FoldInput f;
    if (auto c = pm.constants.find(name); c != pm.constants.end()) f.value = &c->second;
    if (auto t = pm.types.find(name); t != pm.types.end() && t->second.dims)
      f.shape = &*t->second.dims;
    in.push_back(f);
  }
  return in;
}

// Shape arithmetic is folded; computations on weights stay ops, so weights keep their size and
// reading them stays visible (a slice of a rotary table, a gather from a position table). A
// scatter into a computed constant folds whatever its updates are (swin_t's window mask: a few
// numbers written into zeros).
bool foldable(const PreparedModel& pm, const onnx::NodeProto& node) {
  if (node.op_type() == "Constant" || node.op_type() == "Shape" || node.op_type() == "Size")
    return true;
  bool int_outputs = true;
  for (const auto& out : node.output()) {
    auto t = pm.types.find(out);
    int_outputs = int_outputs && t != pm.types.end() && is_int_type(t->second.elem_type);
  }
  if (int_outputs) return true;
  bool scatter = node.op_type() == "ScatterND" || node.op_type() == "ScatterElements" ||
                 node.op_type() == "Scatter";
  for (int i = 0; i < (scatter ? std::min(node.input_size(), 1) : node.input_size()); ++i)
    if (pm.weights.count(node.input(i))) return false;
  return true;
}

// Whether every output of the node whose shape inference knows is at most `max_elements`: a
// node the budget rules out is not computed only to be dropped.
bool outputs_within(const PreparedModel& pm, const onnx::NodeProto& node, int64_t max_elements) {
  for (const auto& out : node.output()) {
    auto t = pm.types.find(out);
    if (t != pm.types.end() && t->second.dims && !small_count(*t->second.dims, max_elements))
      return false;
  }
  return true;
}

// One pass of folding in node order; folded nodes leave the graph, their values become
// initializers. Returns whether anything was folded.
bool fold_pass(PreparedModel& pm) {
  auto* graph = pm.model.mutable_graph();
  google::protobuf::RepeatedPtrField<onnx::NodeProto> kept;
  bool changed = false;
  for (auto& node : *graph->mutable_node()) {
    int64_t max_elements =
        pm.large_folded_elements < kLargeFoldBudget ? kMaxComputedElements : kMaxFoldElements;
    auto values = foldable(pm, node) && outputs_within(pm, node, max_elements)
                      ? fold_node(node, pm.opset, fold_inputs(pm, node), max_elements)
                      : std::nullopt;
    if (!values || static_cast<int>(values->size()) != node.output_size()) {
      kept.Add()->Swap(&node);
      continue;
    }
    for (int i = 0; i < node.output_size(); ++i) {
      const std::string& name = node.output(i);
      if ((*values)[i].size() > kMaxFoldElements) pm.large_folded_elements += (*values)[i].size();
      *graph->add_initializer() = encode_tensor((*values)[i], name);
      pm.types[name] = {(*values)[i].elem_type, (*values)[i].dims};
      pm.folded.insert(name);
      pm.constants[name] = std::move((*values)[i]);
    }
    changed = true;
  }
  graph->mutable_node()->Swap(&kept);
  return changed;
}

// Inlines the If nodes whose condition has folded; their branches' initializers join the
// model's weights, and the inlined nodes get the window checks the others had.
Result<bool> inline_if_branches(PreparedModel& pm) {
  auto added = inline_known_ifs(*pm.model.mutable_graph(), pm.constants);
  if (added.empty()) return false;
  for (const auto& init : pm.model.graph().initializer()) {
    if (std::find(added.begin(), added.end(), init.name()) == added.end()) continue;
    pm.weights.insert(init.name());
    if (auto value = decode_tensor(init)) pm.constants[init.name()] = std::move(*value);
  }
  if (auto s = check_window_attributes(pm); !s) return s.error();
  if (auto s = check_window_ranks(pm); !s) return s.error();
  return true;
}

}  // namespace

std::string one_line(const std::string& text) {
  std::string out;
  for (char c : text) {
    bool space = c == '\n' || c == '\r' || c == ' ';
    if (space && (out.empty() || out.back() == ' ')) continue;
    out += space ? ' ' : c;
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

std::string describe_node(const onnx::NodeProto& node, int index, int opset) {
  std::string type = node.op_type();
  if (!node.domain().empty() && node.domain() != "ai.onnx") type = node.domain() + "." + type;
  std::string who =
      node.name().empty() ? "node #" + std::to_string(index) : "node " + in_quotes(node.name());
  return who + " (" + type + ", opset " + std::to_string(opset) + ")";
}

Result<PreparedModel> prepare_model(const std::string& bytes, const std::string& file,
                                    const OnnxOptions& options) {
  PreparedModel pm;
  pm.file = file;
  if (bytes.empty()) return model_error(file, "the file is empty; expected an ONNX model");
  if (!pm.model.ParseFromString(bytes) || !pm.model.has_graph())
    return model_error(file,
                       "not an ONNX model (it does not parse as an ONNX ModelProto; is it "
                       "truncated, or another format?)");
  auto opset = default_opset(pm.model, file);
  if (!opset) return opset.error();
  pm.opset = *opset;
  for (const auto& init : pm.model.graph().initializer()) pm.weights.insert(init.name());
  detach_external_data(*pm.model.mutable_graph());
  name_unnamed_nodes(*pm.model.mutable_graph());
  if (auto s = check_graph_data(pm, pm.model.graph(), ""); !s) return s.error();
  try {
    onnx::checker::check_model(pm.model);
  } catch (const std::exception& e) {
    return model_error(file, "invalid ONNX model: " + one_line(e.what()));
  }
  if (auto s = check_window_attributes(pm); !s) return s.error();
  if (auto s = check_window_ranks(pm); !s) return s.error();
  unstack_kv_caches(*pm.model.mutable_graph(), pm.opset);
  pm.kv_caches = find_kv_caches(pm.model.graph());
  auto bound = bind_past_length(pm.kv_caches, options, file);
  if (!bound) return bound.error();
  if (auto s = bind_dims(*pm.model.mutable_graph(), file, *bound, past_symbols(pm.kv_caches)); !s)
    return s.error();
  for (const auto& init : pm.model.graph().initializer())
    if (auto value = decode_tensor(init)) pm.constants[init.name()] = std::move(*value);
  for (int round = 0; round < kMaxRounds; ++round) {
    if (auto s = infer_shapes(pm); !s) return s.error();
    bool completed = complete_shapes(pm);
    bool folded = fold_pass(pm);
    auto inlined = inline_if_branches(pm);
    if (!inlined) return inlined.error();
    if (!folded && !completed && !*inlined) break;
  }
  prune_unused(*pm.model.mutable_graph(), pm.opset);
  fuse_patterns(pm);
  recognise_moe(pm);
  return pm;
}

}  // namespace tessera::onnx_import
