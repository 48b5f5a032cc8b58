#include "framework/frontend/onnx/patterns.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "framework/frontend/onnx/attributes.hpp"

namespace tessera::onnx_import {

namespace {

// A pattern is a tree of ops over leaves: X (the fused op's input, the same value wherever it
// appears), C (a constant scalar), K (any constant: a shape), V (any value: scale, bias, mask)
// and MEAN(p) (ReduceMean over the last axis, keepdims). Add and Mul match either operand order.
struct Pattern {
  std::string op;  // an op type, or "X", "C", "V"
  std::vector<Pattern> args;
  int slot = -1;       // V: which input of the fused node it becomes
  double value = NAN;  // C: the constant's value, when it matters (an exponent)
};

Pattern op(std::string name, std::vector<Pattern> args) {
  return Pattern{std::move(name), std::move(args), -1, NAN};
}
const Pattern X{"X", {}, -1, NAN};
const Pattern C{"C", {}, -1, NAN};
const Pattern K{"K", {}, -1, NAN};
Pattern constant_of(double value) {
  return Pattern{"C", {}, -1, value};
}
Pattern V(int slot) {
  return Pattern{"V", {}, slot, NAN};
}
Pattern mean(Pattern p) {
  return op("ReduceMean", {std::move(p)});
}

struct Match {
  std::string x;
  std::map<int, std::string> values;  // V slots
  std::set<const onnx::NodeProto*> nodes;
};

class Matcher {
 public:
  explicit Matcher(const PreparedModel& pm) : pm_(pm) {
    for (const auto& n : pm.model.graph().node()) {
      for (const auto& out : n.output()) producer_[out] = &n;
      for (const auto& in : n.input()) ++uses_[in];
    }
    for (const auto& out : pm.model.graph().output()) uses_[out.name()] += 1 << 20;
  }

  bool match(const Pattern& p, const std::string& value, Match& m) const {
    if (p.op == "X") {
      if (m.x.empty()) m.x = value;
      return m.x == value;
    }
    if (p.op == "C") {
      auto c = pm_.constants.find(value);
      return c != pm_.constants.end() && c->second.size() == 1 &&
             (std::isnan(p.value) || c->second.as_double(0) == p.value);
    }
    if (p.op == "K") return pm_.constants.count(value) > 0;
    if (p.op == "V") {
      m.values[p.slot] = value;
      return true;
    }
    auto it = producer_.find(value);
    if (it == producer_.end() || !same_op(*it->second, p)) return false;
    const onnx::NodeProto& n = *it->second;
    if (m.nodes.count(&n)) return true;  // a shared subexpression, matched before
    bool commutes = p.op == "Add" || p.op == "Mul";
    for (int order = 0; order < (commutes ? 2 : 1); ++order) {
      Match trial = m;
      trial.nodes.insert(&n);
      bool ok = true;
      for (size_t i = 0; i < p.args.size() && ok; ++i) {
        size_t j = order == 0 ? i : p.args.size() - 1 - i;
        ok = match(p.args[i], n.input(static_cast<int>(j)), trial);
      }
      if (ok) {
        m = std::move(trial);
        return true;
      }
    }
    return false;
  }

  // Every value a match computes, but its root's, is read only inside the match.
  bool closed(const Match& m, const onnx::NodeProto& root) const {
    std::map<std::string, int> inner;
    for (const auto* n : m.nodes)
      for (const auto& in : n->input()) ++inner[in];
    for (const auto* n : m.nodes) {
      if (n == &root) continue;
      for (const auto& out : n->output())
        if (uses(out) != inner[out]) return false;
    }
    return true;
  }

 private:
  int uses(const std::string& v) const {
    auto it = uses_.find(v);
    return it == uses_.end() ? 0 : it->second;
  }

  bool same_op(const onnx::NodeProto& n, const Pattern& p) const {
    bool default_domain = n.domain().empty() || n.domain() == "ai.onnx";
    if (!default_domain || n.op_type() != p.op || n.input_size() != static_cast<int>(p.args.size()))
      return false;
    if (p.op != "ReduceMean") return true;
    auto axes = attr_ints(n, "axes");
    return attr_int(n, "keepdims", 1) == 1 && axes.size() == 1 &&
           (axes[0] == -1 || last_axis(n, axes[0]));
  }

  bool last_axis(const onnx::NodeProto& n, int64_t axis) const {
    auto t = pm_.types.find(n.input(0));
    return t != pm_.types.end() && t->second.dims &&
           axis == static_cast<int64_t>(t->second.dims->size()) - 1;
  }

  const PreparedModel& pm_;
  std::map<std::string, const onnx::NodeProto*> producer_;
  std::map<std::string, int> uses_;
};

struct Fusion {
  std::string op_type;
  Pattern pattern;
  int slots;  // V inputs after X
  std::vector<std::pair<std::string, std::string>> string_attrs;
};

std::vector<Fusion> fusions() {
  Pattern centred = op("Sub", {X, mean(X)});
  Pattern normalised = op(
      "Div", {centred, op("Sqrt", {op("Add", {mean(op("Pow", {centred, constant_of(2)})), C})})});
  Pattern inv_rms = op("Sqrt", {op("Add", {mean(op("Pow", {X, constant_of(2)})), C})});
  Pattern rms_div = op("Mul", {X, op("Div", {C, inv_rms})});
  Pattern rms_rec = op("Mul", {X, op("Reciprocal", {inv_rms})});
  Pattern erf_core = op("Mul", {X, op("Add", {op("Erf", {op("Div", {X, C})}), C})});
  Pattern cube = op("Mul", {X, op("Mul", {X, X})});
  Pattern inner = op("Mul", {op("Add", {X, op("Mul", {cube, C})}), C});
  Pattern tanh_core = op("Mul", {X, op("Add", {op("Tanh", {inner}), C})});
  Pattern tanh_pow = op(
      "Mul",
      {X, op("Add",
             {op("Tanh",
                 {op("Mul", {op("Add", {X, op("Mul", {op("Pow", {X, constant_of(3)}), C})}), C})}),
              C})});
  // torch before opset 18: GroupNorm is InstanceNorm over [N, groups, -1], reshaped back.
  Pattern grouped = op("Reshape", {op("InstanceNormalization", {op("Reshape", {X, K}), K, K}), K});
  return {
      {"LayerNormalization", op("Add", {op("Mul", {normalised, V(1)}), V(2)}), 2, {}},
      {"GroupNormalization", op("Add", {op("Mul", {grouped, V(1)}), V(2)}), 2, {}},
      {"LayerNormalization", op("Mul", {normalised, V(1)}), 1, {}},
      {"RMSNormalization", op("Mul", {rms_div, V(1)}), 1, {}},
      {"RMSNormalization", op("Mul", {rms_rec, V(1)}), 1, {}},
      {"Gelu", op("Mul", {erf_core, C}), 0, {}},
      {"Gelu", op("Mul", {tanh_core, C}), 0, {{"approximate", "tanh"}}},
      {"Gelu", op("Mul", {tanh_pow, C}), 0, {{"approximate", "tanh"}}},
      {"Softmax", op("Softmax", {op("Add", {op("Div", {X, V(1)}), V(2)})}), 2, {}},
  };
}

// "/blocks.0/ln1/" of the matched nodes' names, then the fused op type.
std::string fused_name(const Match& m, const std::string& op_type) {
  std::string prefix;
  bool first = true;
  for (const auto* n : m.nodes) {
    if (first) prefix = n->name(), first = false;
    size_t k = 0;
    while (k < prefix.size() && k < n->name().size() && prefix[k] == n->name()[k]) ++k;
    prefix.resize(k);
  }
  prefix.resize(prefix.rfind('/') == std::string::npos ? 0 : prefix.rfind('/') + 1);
  return prefix + op_type;
}

onnx::NodeProto fused_node(const Fusion& f, const Match& m, const onnx::NodeProto& root) {
  onnx::NodeProto n;
  n.set_op_type(f.op_type);
  n.set_domain(kFusedDomain);
  n.set_name(fused_name(m, f.op_type));
  n.add_input(m.x);
  for (int s = 1; s <= f.slots; ++s) n.add_input(m.values.at(s));
  n.add_output(root.output(0));
  if (root.op_type() == "Softmax") *n.mutable_attribute() = root.attribute();
  for (const auto& [key, value] : f.string_attrs) {
    auto* a = n.add_attribute();
    a->set_name(key);
    a->set_type(onnx::AttributeProto::STRING);
    a->set_s(value);
  }
  return n;
}

}  // namespace

void fuse_patterns(PreparedModel& pm) {
  static const std::vector<Fusion> all = fusions();
  Matcher matcher(pm);
  std::map<const onnx::NodeProto*, onnx::NodeProto> replaced;  // root -> fused node
  std::set<const onnx::NodeProto*> removed;
  const auto& nodes = pm.model.graph().node();
  for (int i = nodes.size() - 1; i >= 0; --i) {
    const onnx::NodeProto& root = nodes[i];
    if (removed.count(&root) || root.output_size() != 1) continue;
    for (const auto& f : all) {
      Match m;
      if (!matcher.match(f.pattern, root.output(0), m) || !matcher.closed(m, root)) continue;
      if (std::any_of(m.nodes.begin(), m.nodes.end(), [&](auto* n) { return removed.count(n); }))
        continue;
      replaced[&root] = fused_node(f, m, root);
      removed.insert(m.nodes.begin(), m.nodes.end());
      break;
    }
  }
  google::protobuf::RepeatedPtrField<onnx::NodeProto> kept;
  for (const auto& n : nodes) {
    if (auto it = replaced.find(&n); it != replaced.end())
      *kept.Add() = it->second;
    else if (!removed.count(&n))
      *kept.Add() = n;
  }
  pm.model.mutable_graph()->mutable_node()->Swap(&kept);
}

}  // namespace tessera::onnx_import
