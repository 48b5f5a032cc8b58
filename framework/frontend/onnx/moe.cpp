#include "framework/frontend/onnx/moe.hpp"

#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include "framework/frontend/onnx/attributes.hpp"
#include "framework/frontend/onnx/patterns.hpp"

namespace tessera::onnx_import {

namespace {

// A block far larger than any exported MoE layer (Mixtral's loop form is a few hundred nodes
// per 8 experts) is not searched further: the walk stays linear in the graph.
constexpr size_t kMaxBlockNodes = 20000;

struct Expert {
  std::vector<int> in;  // gate, up (gated) or up: node indices
  int down = -1;
  std::string activation;
};

struct Block {
  std::string x, router_weight, y;
  int64_t top_k = 0;
  std::set<int> nodes;
  std::vector<Expert> routed, shared;
};

class MoeFinder {
 public:
  explicit MoeFinder(const PreparedModel& pm) : pm_(pm), nodes_(pm.model.graph().node()) {
    for (int i = 0; i < nodes_.size(); ++i) {
      for (const auto& out : nodes_[i].output()) producer_[out] = i;
      for (const auto& in : nodes_[i].input()) consumers_[in].push_back(i);
    }
    for (const auto& out : pm.model.graph().output()) graph_outputs_.insert(out.name());
  }

  std::optional<Block> find(int topk) const {
    Block b;
    const auto& t = nodes_[topk];
    if (!is(t, "TopK") || t.input_size() < 2 || !last_axis(t)) return std::nullopt;
    auto k = pm_.constants.find(t.input(1));
    if (k == pm_.constants.end() || k->second.size() != 1 || !k->second.as_int(0))
      return std::nullopt;
    b.top_k = *k->second.as_int(0);
    auto router = router_of(t.input(0));
    if (!router) return std::nullopt;
    const auto& r = nodes_[*router];
    b.x = r.input(0);
    b.router_weight = r.input(1);
    auto x_dims = dims(b.x);
    auto w_dims = dims(b.router_weight);
    if (!x_dims || x_dims->size() < 2 || x_dims->size() > 3 || !w_dims || w_dims->size() != 2 ||
        w_dims->at(0) != x_dims->back() || b.top_k < 1 || b.top_k > w_dims->at(1))
      return std::nullopt;
    // The block ends at the last value where the walk from the TopK narrows to one value and
    // what precedes it is a whole block: the gates alone, or the routed experts' sum before
    // the shared experts are added, are such values too.
    std::optional<Block> best;
    forward(topk, b, [&](const Block& candidate) {
      Block c = candidate;
      bool whole = elements(c.y) == elements(c.x) && backward(c) && closed(c) &&
                   experts(*router, c) && static_cast<int64_t>(c.routed.size()) == w_dims->at(1);
      if (whole) best = std::move(c);
      return whole || !best;  // past the block once one is found and a value is not
    });
    return best;
  }

  onnx::NodeProto fused(const Block& b) const {
    onnx::NodeProto n;
    n.set_op_type(kMoeOpType);
    n.set_domain(kFusedDomain);
    n.set_name(common_prefix(b) + "moe");
    n.add_input(b.x);
    n.add_input(b.router_weight);
    for (const auto* group : {&b.routed, &b.shared})
      for (const Expert& e : *group) {
        for (int p : e.in) n.add_input(nodes_[p].input(1));
        n.add_input(nodes_[e.down].input(1));
      }
    n.add_output(b.y);
    add_int(n, "top_k", b.top_k);
    add_int(n, "shared_experts", static_cast<int64_t>(b.shared.size()));
    add_int(n, "gated", b.routed.front().in.size() == 2 ? 1 : 0);
    auto* a = n.add_attribute();
    a->set_name("activation");
    a->set_type(onnx::AttributeProto::STRING);
    a->set_s(b.routed.front().activation);
    return n;
  }

  int producer(const std::string& value) const {
    auto it = producer_.find(value);
    return it == producer_.end() ? -1 : it->second;
  }

 private:
  static bool is(const onnx::NodeProto& n, const char* op) {
    return (n.domain().empty() || n.domain() == "ai.onnx") && n.op_type() == op;
  }
  std::optional<std::vector<int64_t>> dims(const std::string& value) const {
    auto it = pm_.types.find(value);
    return it == pm_.types.end() ? std::nullopt : it->second.dims;
  }
  bool last_axis(const onnx::NodeProto& t) const {
    auto d = dims(t.input(0));
    int64_t axis = attr_int(t, "axis", -1);
    return d && (axis == -1 || axis == static_cast<int64_t>(d->size()) - 1);
  }
  bool weight(const std::string& value) const { return pm_.weights.count(value) > 0; }
  bool projection(const onnx::NodeProto& n) const {
    auto w = n.input_size() == 2 ? dims(n.input(1)) : std::nullopt;
    return is(n, "MatMul") && weight(n.input(1)) && w && w->size() == 2;
  }

  // The router MatMul the TopK ranks, through a Softmax and Casts.
  std::optional<int> router_of(std::string value) const {
    for (int hops = 0; hops < 4; ++hops) {
      int p = producer(value);
      if (p < 0) return std::nullopt;
      const auto& n = nodes_[p];
      if (projection(n)) return p;
      if (!is(n, "Softmax") && !is(n, "Cast")) return std::nullopt;
      value = n.input(0);
    }
    return std::nullopt;
  }

  // The nodes reachable from the TopK in node (topological) order: the values reached whose
  // readers are not all reached yet are open; where one value alone is open, every path from the
  // TopK passes it, and `candidate` is called with the nodes so far and that value as y, until it
  // returns false. A graph output read from the block never closes.
  template <typename Candidate>
  void forward(int topk, Block b, Candidate candidate) const {
    std::map<std::string, size_t> open;
    auto produce = [&](int i) {
      for (const auto& out : nodes_[i].output()) {
        auto c = consumers_.find(out);
        size_t readers = c == consumers_.end() ? 0 : c->second.size();
        if (graph_outputs_.count(out)) readers += kMaxBlockNodes;
        if (readers > 0) open[out] = readers;
      }
    };
    b.nodes.insert(topk);
    produce(topk);
    for (int i = topk + 1; i < nodes_.size() && b.nodes.size() < kMaxBlockNodes; ++i) {
      bool reached = false;
      for (const auto& in : nodes_[i].input()) {
        auto it = open.find(in);
        if (it == open.end()) continue;
        reached = true;
        if (--it->second == 0) open.erase(it);
      }
      if (!reached) continue;
      b.nodes.insert(i);
      produce(i);
      if (open.size() == 1 && producer(open.begin()->first) == i && nodes_[i].output_size() == 1) {
        b.y = open.begin()->first;
        if (!candidate(b)) return;
      }
    }
  }

  int64_t elements(const std::string& value) const {
    auto d = dims(value);
    if (!d) return -1;
    int64_t n = 1;
    for (int64_t e : *d) n *= e;
    return n;
  }

  // Adds what the forward nodes read that computes from x, initializers and constants alone.
  bool backward(Block& b) const {
    std::vector<std::string> pending;
    for (int i : b.nodes)
      for (const auto& in : nodes_[i].input()) pending.push_back(in);
    while (!pending.empty()) {
      std::string v = pending.back();
      pending.pop_back();
      if (v.empty() || v == b.x || weight(v) || pm_.constants.count(v)) continue;
      // Another input, or a value made before x (the block computes from x): not a block.
      int p = producer(v);
      if (p < 0 || p < producer(b.x) || b.nodes.size() >= kMaxBlockNodes) return false;
      if (!b.nodes.insert(p).second) continue;
      for (const auto& in : nodes_[p].input()) pending.push_back(in);
    }
    return true;
  }

  // Nothing outside the block reads a value made inside it (but y), and the block holds no
  // initializer but the projections' weights.
  bool closed(const Block& b) const {
    for (int i : b.nodes) {
      const auto& n = nodes_[i];
      for (const auto& out : n.output()) {
        if (out == b.y) continue;
        if (graph_outputs_.count(out)) return false;
        auto c = consumers_.find(out);
        if (c != consumers_.end())
          for (int reader : c->second)
            if (!b.nodes.count(reader)) return false;
      }
      for (int k = 0; k < n.input_size(); ++k)
        if (weight(n.input(k)) && !(projection(n) && k == 1)) return false;
    }
    return true;
  }

  // The projections of the block whose input computes from projection `p`'s, through non-
  // projections of the block (the router is a boundary).
  std::vector<int> feeding(int p, int router, const Block& b) const {
    std::vector<int> found;
    std::set<int> seen;
    std::vector<std::string> pending{nodes_[p].input(0)};
    while (!pending.empty()) {
      int q = producer(pending.back());
      pending.pop_back();
      if (q < 0 || q == router || !b.nodes.count(q) || !seen.insert(q).second) continue;
      if (projection(nodes_[q])) {
        found.push_back(q);
        continue;
      }
      for (const auto& in : nodes_[q].input()) pending.push_back(in);
    }
    std::sort(found.begin(), found.end());
    return found;
  }

  // The activation the gate projection's output goes through; empty when none is known.
  std::string activation_after(int gate) const {
    auto c = consumers_.find(nodes_[gate].output(0));
    if (c == consumers_.end()) return "";
    for (int reader : c->second) {
      const auto& n = nodes_[reader];
      if (is(n, "Sigmoid")) return "silu";
      if (is(n, "Relu")) return "relu";
      if (n.op_type() == "Gelu")
        return attr_string(n, "approximate", "none") == "tanh" ? "gelu_tanh" : "gelu";
    }
    return "";
  }

  bool experts(int router, Block& b) const {
    std::set<int> inputs_used;
    std::vector<int> projections;
    for (int i : b.nodes)
      if (i != router && projection(nodes_[i])) projections.push_back(i);
    for (int p : projections) {
      std::vector<int> in = feeding(p, router, b);
      if (in.empty()) continue;
      if (in.size() > 2) return false;
      Expert e{in, p, ""};
      if (in.size() == 2) {  // the gate is the one activated; the up projection multiplies it
        if (activation_after(in[0]).empty()) std::swap(e.in[0], e.in[1]);
      }
      e.activation = activation_after(e.in[0]);
      if (e.activation.empty()) return false;
      for (int q : in)
        if (!inputs_used.insert(q).second) return false;
      auto c = consumers_.find(nodes_[p].output(0));
      bool shared =
          c != consumers_.end() && c->second.size() == 1 && is(nodes_[c->second.front()], "Add");
      (shared ? b.shared : b.routed).push_back(e);
    }
    if (b.routed.empty() ||
        inputs_used.size() + b.routed.size() + b.shared.size() != projections.size())
      return false;
    return consistent(b);
  }

  // Every routed expert has one form and width, every shared one the router's hidden size.
  bool consistent(const Block& b) const {
    const int64_t hidden = dims(b.router_weight)->at(0);
    const Expert& first = b.routed.front();
    auto width = [&](const Expert& e) { return dims(nodes_[e.down].input(1))->at(0); };
    for (const auto* group : {&b.routed, &b.shared})
      for (const Expert& e : *group) {
        if (e.in.size() != first.in.size() || e.activation != first.activation) return false;
        for (int p : e.in)
          if (*dims(nodes_[p].input(1)) != std::vector<int64_t>{hidden, width(e)}) return false;
        if (dims(nodes_[e.down].input(1))->at(1) != hidden) return false;
        if (group == &b.routed && width(e) != width(first)) return false;
        if (group == &b.shared && width(e) != width(b.shared.front())) return false;
      }
    return true;
  }

  // "/layers.0/mlp/" of the block's node names.
  std::string common_prefix(const Block& b) const {
    std::string prefix = nodes_[*b.nodes.begin()].name();
    for (int i : b.nodes) {
      const std::string& name = nodes_[i].name();
      size_t k = 0;
      while (k < prefix.size() && k < name.size() && prefix[k] == name[k]) ++k;
      prefix.resize(k);
    }
    size_t slash = prefix.rfind('/');
    return slash == std::string::npos ? "" : prefix.substr(0, slash + 1);
  }

  static void add_int(onnx::NodeProto& n, const char* name, int64_t value) {
    auto* a = n.add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::INT);
    a->set_i(value);
  }

  const PreparedModel& pm_;
  const google::protobuf::RepeatedPtrField<onnx::NodeProto>& nodes_;
  std::map<std::string, int> producer_;
  std::map<std::string, std::vector<int>> consumers_;
  std::set<std::string> graph_outputs_;
};

}  // namespace

void recognise_moe(PreparedModel& pm) {
  MoeFinder finder(pm);
  const auto& nodes = pm.model.graph().node();
  std::map<int, onnx::NodeProto> replaced;  // y's producer -> the fused node
  std::set<int> removed;
  for (int i = 0; i < nodes.size(); ++i) {
    if (removed.count(i)) continue;
    auto block = finder.find(i);
    if (!block || std::any_of(block->nodes.begin(), block->nodes.end(),
                              [&](int n) { return removed.count(n) > 0; }))
      continue;
    replaced[finder.producer(block->y)] = finder.fused(*block);
    removed.insert(block->nodes.begin(), block->nodes.end());
  }
  if (replaced.empty()) return;
  google::protobuf::RepeatedPtrField<onnx::NodeProto> kept;
  for (int i = 0; i < nodes.size(); ++i) {
    if (auto it = replaced.find(i); it != replaced.end())
      *kept.Add() = it->second;
    else if (!removed.count(i))
      *kept.Add() = nodes[i];
  }
  pm.model.mutable_graph()->mutable_node()->Swap(&kept);
}

}  // namespace tessera::onnx_import
