#include "framework/frontend/onnx/stacked_cache.hpp"

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "framework/frontend/onnx/attributes.hpp"
#include "framework/frontend/onnx/fold.hpp"

namespace tessera::onnx_import {

namespace {

using Dims = std::vector<int64_t>;

// Who writes and who reads each value of the graph (a node whose subgraph reads a value counts as
// its reader), and the constants written in it.
class GraphIndex {
 public:
  GraphIndex(const onnx::GraphProto& graph, int opset) : graph_(graph), opset_(opset) {
    for (const auto& init : graph.initializer()) initializers_[init.name()] = &init;
    for (const auto& in : graph.input()) names_.insert(in.name());
    for (const auto& out : graph.output()) outputs_.insert(out.name());
    for (int i = 0; i < graph.node_size(); ++i) {
      for (const auto& out : graph.node(i).output()) producer_[out] = i;
      note_reads(graph.node(i), i);
    }
  }

  const onnx::NodeProto& node(int i) const { return graph_.node(i); }
  int opset() const { return opset_; }
  bool is_output(const std::string& name) const { return outputs_.count(name) > 0; }
  bool is_initializer(const std::string& name) const { return initializers_.count(name) > 0; }
  bool taken(const std::string& name) const {
    return names_.count(name) || outputs_.count(name) || producer_.count(name) ||
           initializers_.count(name) || readers_.count(name);
  }
  const std::vector<int>& readers(const std::string& name) const {
    static const std::vector<int> none;
    auto it = readers_.find(name);
    return it == readers_.end() ? none : it->second;
  }
  // The one node that reads `name`, or -1 (several, none, or a graph output too).
  int only_reader(const std::string& name) const {
    const auto& r = readers(name);
    return r.size() == 1 && !is_output(name) ? r[0] : -1;
  }
  // An initializer's value or a Constant node's, or nullopt.
  std::optional<ConstTensor> constant(const std::string& name) const {
    if (auto it = initializers_.find(name); it != initializers_.end())
      return decode_tensor(*it->second);
    auto p = producer_.find(name);
    if (p == producer_.end() || graph_.node(p->second).op_type() != "Constant") return std::nullopt;
    auto values = fold_node(graph_.node(p->second), opset_, {});
    if (!values || values->size() != 1) return std::nullopt;
    return std::move((*values)[0]);
  }
  // A Squeeze's or Unsqueeze's axes in [0, rank) (an attribute before opset 13, then input 1).
  Dims axes(const onnx::NodeProto& n, int64_t rank) const {
    Dims axes = attr_ints(n, "axes");
    if (opset_ >= 13) {
      auto c = n.input_size() > 1 ? constant(n.input(1)) : std::nullopt;
      axes = c && !c->is_float() ? c->ints : Dims{};
    }
    for (int64_t& a : axes) a = normalize_axis(a, rank);
    return axes;
  }

 private:
  void note_reads(const onnx::NodeProto& n, int reader) {
    for (const auto& in : n.input())
      if (!in.empty()) readers_[in].push_back(reader);
    for (const auto& a : n.attribute()) {
      for (const auto& sub : a.graphs())
        for (const auto& s : sub.node()) note_reads(s, reader);
      if (a.has_g())
        for (const auto& s : a.g().node()) note_reads(s, reader);
    }
  }

  const onnx::GraphProto& graph_;
  int opset_;
  std::map<std::string, const onnx::TensorProto*> initializers_;
  std::set<std::string> names_, outputs_;
  std::map<std::string, int> producer_;
  std::map<std::string, std::vector<int>> readers_;
};

// Static dimensions of a value, -1 for a symbolic one; empty without a shape.
Dims dims_of(const onnx::ValueInfoProto& v) {
  Dims dims;
  if (!v.type().has_tensor_type() || !v.type().tensor_type().has_shape()) return dims;
  for (const auto& d : v.type().tensor_type().shape().dim())
    dims.push_back(d.has_dim_value() ? d.dim_value() : -1);
  return dims;
}

// The stack position a Gather or Slice of the past takes, on which axis, and whether the slice
// keeps that axis (extent 1) or drops it.
struct Pick {
  int64_t axis = -1, index = -1;
  bool keeps_axis = true;
};

std::optional<Pick> in_stack(int64_t axis, int64_t index, const Dims& past, bool keeps_axis) {
  if (axis < 0 || past[axis] < 1) return std::nullopt;  // a symbolic number of layers
  if (index < 0) index += past[axis];
  if (index < 0 || index >= past[axis]) return std::nullopt;
  return Pick{axis, index, keeps_axis};
}

// Gather at a constant scalar index drops the axis; at a one-element vector it keeps it.
std::optional<Pick> gather_pick(const GraphIndex& gi, const onnx::NodeProto& n, const Dims& past) {
  int64_t axis = normalize_axis(attr_int(n, "axis", 0), static_cast<int64_t>(past.size()));
  auto idx = n.input_size() == 2 ? gi.constant(n.input(1)) : std::nullopt;
  if (!idx || idx->is_float() || idx->size() != 1 || idx->dims.size() > 1) return std::nullopt;
  return in_stack(axis, idx->ints[0], past, idx->dims.size() == 1);
}

// Slice [k, k + 1) of one axis, step 1.
std::optional<Pick> slice_pick(const GraphIndex& gi, const onnx::NodeProto& n, const Dims& past) {
  std::vector<std::optional<ConstTensor>> values;
  for (const auto& in : n.input()) values.push_back(in.empty() ? std::nullopt : gi.constant(in));
  std::vector<const ConstTensor*> known;
  for (const auto& v : values) known.push_back(v ? &*v : nullptr);
  auto b = slice_bounds(n, gi.opset(), known);
  if (!b || b->starts.size() != 1 || b->ends.size() != 1 || b->axes.size() > 1 ||
      (!b->steps.empty() && b->steps != Dims{1}))
    return std::nullopt;
  int64_t axis =
      normalize_axis(b->axes.empty() ? 0 : b->axes[0], static_cast<int64_t>(past.size()));
  auto pick = in_stack(axis, b->starts[0], past, true);
  if (!pick) return std::nullopt;
  int64_t end = b->ends[0] < 0 ? b->ends[0] + past[axis] : std::min(b->ends[0], past[axis]);
  return end == pick->index + 1 ? pick : std::nullopt;
}

// One layer of a stacked cache: the nodes that slice its past out and restack its present (both
// removed), the node that appends to the past, which of its inputs the past is, and what the
// restacking Concat reads for the layer.
struct Layer {
  Pick pick;
  std::vector<int> removed;
  int update = -1, past_input = -1, restack = -1;
  std::string restacked;
};

bool restacks(const GraphIndex& gi, const onnx::NodeProto& n, int64_t axis, int64_t rank) {
  return n.op_type() == "Concat" && normalize_axis(attr_int(n, "axis", 0), rank) == axis &&
         n.output_size() == 1 && gi.is_output(n.output(0)) && gi.readers(n.output(0)).empty();
}

// The restacking Concat of the layer's present: its reader when the present kept the layer axis,
// else the one reader of its Unsqueeze on that axis.
bool find_restack(const GraphIndex& gi, Layer& layer, int64_t rank) {
  const std::string& present = gi.node(layer.update).output(0);
  if (gi.is_output(present)) return false;
  int64_t axis = layer.pick.axis;
  for (int r : gi.readers(present)) {
    const auto& n = gi.node(r);
    if (layer.pick.keeps_axis && restacks(gi, n, axis, rank)) {
      layer.restack = r;
      layer.restacked = present;
      return true;
    }
    if (layer.pick.keeps_axis || n.op_type() != "Unsqueeze" || gi.axes(n, rank) != Dims{axis})
      continue;
    int concat = gi.only_reader(n.output(0));
    if (concat < 0 || !restacks(gi, gi.node(concat), axis, rank)) continue;
    layer.removed.push_back(r);
    layer.restack = concat;
    layer.restacked = n.output(0);
    return true;
  }
  return false;
}

// A layer starting at `first`, a reader of the past: a Gather or Slice of one position, an
// optional Squeeze of the layer axis, then the one node that appends to it.
std::optional<Layer> match_layer(const GraphIndex& gi, int first, const std::string& past,
                                 const Dims& dims) {
  const auto& n = gi.node(first);
  if (n.input_size() < 1 || n.input(0) != past || n.output_size() != 1) return std::nullopt;
  auto pick = n.op_type() == "Gather"  ? gather_pick(gi, n, dims)
              : n.op_type() == "Slice" ? slice_pick(gi, n, dims)
                                       : std::nullopt;
  if (!pick) return std::nullopt;
  auto rank = static_cast<int64_t>(dims.size());
  Layer layer{*pick, {first}, -1, -1, -1, ""};
  std::string value = n.output(0);
  int next = gi.only_reader(value);
  if (next >= 0 && pick->keeps_axis && gi.node(next).op_type() == "Squeeze" &&
      gi.axes(gi.node(next), rank) == Dims{pick->axis}) {
    layer.pick.keeps_axis = false;
    layer.removed.push_back(next);
    value = gi.node(next).output(0);
    next = gi.only_reader(value);
  }
  if (next < 0) return std::nullopt;
  const auto& u = gi.node(next);
  bool appends = u.op_type() == "Concat" || (u.op_type() == "ScatterND" && u.input(0) == value);
  if (!appends || u.output_size() != 1) return std::nullopt;
  layer.update = next;
  for (int i = 0; i < u.input_size(); ++i)
    if (u.input(i) == value) layer.past_input = i;
  return find_restack(gi, layer, rank) ? std::optional<Layer>(layer) : std::nullopt;
}

// A stacked cache: every reader of the past is a layer, the layers share the axis and the
// restacking Concat, and position k of the stack goes back to position k.
struct Stack {
  const onnx::ValueInfoProto* past = nullptr;
  std::vector<Layer> layers;  // by position
};

std::optional<Stack> match_stack(const GraphIndex& gi, const onnx::ValueInfoProto& past) {
  Dims dims = dims_of(past);
  if (dims.size() < 2 || gi.is_initializer(past.name()) || gi.is_output(past.name()) ||
      gi.readers(past.name()).empty())
    return std::nullopt;
  Stack s{&past, {}};
  for (int r : gi.readers(past.name())) {
    auto layer = match_layer(gi, r, past.name(), dims);
    if (!layer) return std::nullopt;
    s.layers.push_back(std::move(*layer));
  }
  std::sort(s.layers.begin(), s.layers.end(),
            [](const Layer& a, const Layer& b) { return a.pick.index < b.pick.index; });
  const Layer& first = s.layers.front();
  const auto& concat = gi.node(first.restack);
  auto count = static_cast<int64_t>(s.layers.size());
  if (dims[first.pick.axis] != count || concat.input_size() != count) return std::nullopt;
  for (int64_t k = 0; k < count; ++k) {
    const Layer& l = s.layers[static_cast<size_t>(k)];
    if (l.pick.index != k || l.pick.axis != first.pick.axis || l.restack != first.restack ||
        l.pick.keeps_axis != first.pick.keeps_axis ||
        concat.input(static_cast<int>(k)) != l.restacked)
      return std::nullopt;
  }
  return s;
}

// Reads of `from` in `n` (and in its subgraphs) become reads of `to`.
void rename_reads(onnx::NodeProto& n, const std::string& from, const std::string& to) {
  for (auto& in : *n.mutable_input())
    if (in == from) in = to;
  for (auto& a : *n.mutable_attribute()) {
    for (auto& sub : *a.mutable_graphs())
      for (auto& s : *sub.mutable_node()) rename_reads(s, from, to);
    if (a.has_g())
      for (auto& s : *a.mutable_g()->mutable_node()) rename_reads(s, from, to);
  }
}

// The per-layer value beside a stacked one: its name, and its shape without the layer axis (or
// with extent 1 there), symbolic dimensions kept; an output's shape is left to inference.
onnx::ValueInfoProto layer_value(const onnx::ValueInfoProto& stacked, const std::string& name,
                                 const Pick& pick, bool input) {
  onnx::ValueInfoProto v = stacked;
  v.set_name(name);
  auto* type = v.mutable_type()->mutable_tensor_type();
  if (!input) {
    type->clear_shape();
    return v;
  }
  auto* dims = type->mutable_shape()->mutable_dim();
  if (!pick.keeps_axis) {
    dims->DeleteSubrange(static_cast<int>(pick.axis), 1);
    return v;
  }
  dims->Mutable(static_cast<int>(pick.axis))->Clear();
  dims->Mutable(static_cast<int>(pick.axis))->set_dim_value(1);
  return v;
}

using Values = google::protobuf::RepeatedPtrField<onnx::ValueInfoProto>;
using Split = std::map<std::string, std::vector<onnx::ValueInfoProto>>;

std::string layer_name(const std::string& stacked, size_t layer) {
  return stacked + "." + std::to_string(layer);
}

// Whether the names the rewrite gives are free (`fresh` holds those given to earlier stacks).
bool names_free(const GraphIndex& gi, const Stack& s, std::set<std::string>& fresh) {
  std::string present = gi.node(s.layers.front().restack).output(0);
  for (size_t k = 0; k < s.layers.size(); ++k)
    for (const auto& name : {layer_name(s.past->name(), k), layer_name(present, k)})
      if (gi.taken(name) || !fresh.insert(name).second) return false;
  return true;
}

// Whether no node of the stack belongs to an earlier one (one node appending to the layers of
// two stacks); `claimed` holds the earlier stacks' nodes.
bool claim_nodes(const Stack& s, std::set<int>& claimed) {
  std::vector<int> nodes{s.layers.front().restack};
  for (const Layer& l : s.layers) {
    nodes.push_back(l.update);
    nodes.insert(nodes.end(), l.removed.begin(), l.removed.end());
  }
  for (int n : nodes)
    if (claimed.count(n)) return false;
  claimed.insert(nodes.begin(), nodes.end());
  return true;
}

const onnx::ValueInfoProto& output_info(const onnx::GraphProto& graph, const std::string& name) {
  for (const auto& out : graph.output())
    if (out.name() == name) return out;
  throw std::logic_error("stacked_cache: the restacked value is no graph output");
}

// Each layer's update reads its own past input and writes its own present output (read under
// that name by what read it before); the nodes that sliced and restacked go into `removed`.
void split_stack(onnx::GraphProto& graph, const GraphIndex& gi, const Stack& s,
                 std::set<int>& removed, Split& inputs, Split& outputs) {
  int restack = s.layers.front().restack;
  std::string present = graph.node(restack).output(0);
  const onnx::ValueInfoProto& stacked_out = output_info(graph, present);
  removed.insert(restack);
  for (size_t k = 0; k < s.layers.size(); ++k) {
    const Layer& l = s.layers[k];
    std::string past_k = layer_name(s.past->name(), k), present_k = layer_name(present, k);
    onnx::NodeProto& update = *graph.mutable_node(l.update);
    std::string old_present = update.output(0);
    update.set_input(l.past_input, past_k);
    for (int r : gi.readers(old_present))
      rename_reads(*graph.mutable_node(r), old_present, present_k);
    update.set_output(0, present_k);
    removed.insert(l.removed.begin(), l.removed.end());
    inputs[s.past->name()].push_back(layer_value(*s.past, past_k, l.pick, true));
    outputs[present].push_back(layer_value(stacked_out, present_k, l.pick, false));
  }
}

// A stacked value gives way to its layers' values, in its place.
void replace_values(Values& values, const Split& split) {
  Values kept;
  for (auto& v : values) {
    auto it = split.find(v.name());
    if (it == split.end()) {
      kept.Add()->Swap(&v);
      continue;
    }
    for (const auto& layer : it->second) *kept.Add() = layer;
  }
  values.Swap(&kept);
}

}  // namespace

void unstack_kv_caches(onnx::GraphProto& graph, int opset) {
  std::vector<Stack> stacks;
  std::set<int> removed;
  Split inputs, outputs;
  {
    GraphIndex gi(graph, opset);
    std::set<std::string> fresh;
    std::set<int> claimed;
    for (const auto& in : graph.input())
      if (auto s = match_stack(gi, in); s && names_free(gi, *s, fresh) && claim_nodes(*s, claimed))
        stacks.push_back(*s);
    for (const auto& s : stacks) split_stack(graph, gi, s, removed, inputs, outputs);
  }
  if (stacks.empty()) return;
  google::protobuf::RepeatedPtrField<onnx::NodeProto> kept;
  for (int i = 0; i < graph.node_size(); ++i)
    if (!removed.count(i)) kept.Add()->Swap(graph.mutable_node(i));
  graph.mutable_node()->Swap(&kept);
  replace_values(*graph.mutable_output(), outputs);
  replace_values(*graph.mutable_input(), inputs);
}

}  // namespace tessera::onnx_import
