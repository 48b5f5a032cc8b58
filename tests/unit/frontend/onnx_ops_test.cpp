// Hand-built ONNX graphs for shape folding, If inlining, decode graphs and the converters of
// today's ops: the Einsum each op becomes (so its FLOPs and bytes), and the exact errors.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>
#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/spdlog.h>

#include <functional>
#include <map>
#include <optional>
#include <sstream>

#include "framework/frontend/onnx/importer.hpp"
#include "framework/ir/analysis.hpp"
#include "framework/ir/repeats.hpp"

namespace tessera::onnx_import {
namespace {

using onnx::TensorProto;

class Model {
 public:
  explicit Model(int opset) {
    m_.set_ir_version(8);
    m_.add_opset_import()->set_version(opset);
    g_ = m_.mutable_graph();
    g_->set_name("g");
  }
  void input(const std::string& name, const std::vector<std::string>& dims,
             int32_t type = TensorProto::FLOAT) {
    value(g_->add_input(), name, dims, type);
  }
  void output(const std::string& name, int32_t type = TensorProto::FLOAT) {
    value(g_->add_output(), name, {}, type);
  }
  void ints(const std::string& name, const std::vector<int64_t>& dims,
            const std::vector<int64_t>& values) {
    auto* t = tensor(name, dims, TensorProto::INT64);
    for (int64_t v : values) t->add_int64_data(v);
  }
  void floats(const std::string& name, const std::vector<int64_t>& dims) {
    auto* t = tensor(name, dims, TensorProto::FLOAT);
    int64_t n = 1;
    for (int64_t d : dims) n *= d;
    for (int64_t i = 0; i < n; ++i) t->add_float_data(0.5f);
  }
  onnx::NodeProto& node(const std::string& op, const std::vector<std::string>& in,
                        const std::vector<std::string>& out, onnx::GraphProto* graph = nullptr) {
    auto* n = (graph ? graph : g_)->add_node();
    n->set_op_type(op);
    n->set_name(out.empty() ? op : out[0] + "_node");
    for (const auto& i : in) n->add_input(i);
    for (const auto& o : out) n->add_output(o);
    return *n;
  }
  Result<ir::Graph> import(OnnxOptions options = {}) const {
    return import_onnx_bytes(m_.SerializeAsString(), "m.onnx", options);
  }
  std::string error(OnnxOptions options = {}) const {
    auto r = import(std::move(options));
    EXPECT_FALSE(r);
    return r ? "" : r.error().message;
  }
  onnx::GraphProto* graph() { return g_; }

 private:
  static void value(onnx::ValueInfoProto* v, const std::string& name,
                    const std::vector<std::string>& dims, int32_t type) {
    v->set_name(name);
    auto* t = v->mutable_type()->mutable_tensor_type();
    t->set_elem_type(type);
    auto* shape = t->mutable_shape();
    for (const auto& d : dims) {
      if (std::isdigit(static_cast<unsigned char>(d[0])))
        shape->add_dim()->set_dim_value(std::stoll(d));
      else
        shape->add_dim()->set_dim_param(d);
    }
  }
  TensorProto* tensor(const std::string& name, const std::vector<int64_t>& dims, int32_t type) {
    auto* t = g_->add_initializer();
    t->set_name(name);
    t->set_data_type(type);
    for (int64_t d : dims) t->add_dims(d);
    return t;
  }

  onnx::ModelProto m_;
  onnx::GraphProto* g_;
};

void set_int(onnx::NodeProto& n, const std::string& name, int64_t v) {
  auto* a = n.add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INT);
  a->set_i(v);
}

void set_ints(onnx::NodeProto& n, const std::string& name, const std::vector<int64_t>& v) {
  auto* a = n.add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INTS);
  for (int64_t x : v) a->add_ints(x);
}

void set_string(onnx::NodeProto& n, const std::string& name, const std::string& v) {
  auto* a = n.add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::STRING);
  a->set_s(v);
}

const ir::Op& op_named(const ir::Graph& g, const std::string& name) {
  for (const auto& op : g.ops())
    if (op.name == name) return op;
  throw std::runtime_error("no op " + name);
}

// A shape vector split and put back in another order (what torch exports for repeat_interleave)
// folds: the Reshape after it is a view of a known shape.
TEST(OnnxFolding, SplitShapeVectorsFold) {
  Model m(13);
  m.input("x", {"2", "6"});
  m.node("Shape", {"x"}, {"s"});
  m.ints("halves", {2}, {1, 1});
  m.node("Split", {"s", "halves"}, {"rows", "cols"});
  m.node("Concat", {"cols", "rows"}, {"swapped"}).add_attribute()->CopyFrom([] {
    onnx::AttributeProto a;
    a.set_name("axis");
    a.set_type(onnx::AttributeProto::INT);
    a.set_i(0);
    return a;
  }());
  m.node("Reshape", {"x", "swapped"}, {"y"});
  m.node("Relu", {"y"}, {"z"});
  m.output("z");
  ir::Graph g = m.import().take();
  EXPECT_EQ(g.find_tensor("y")->shape, (std::vector<int64_t>{6, 2}));
  ASSERT_EQ(g.ops().size(), 1u);
  EXPECT_EQ(g.ops()[0].einsum.ranks_str(), "d0=6 d1=2");
}

// A shape read from a model input's values cannot be static: the error names the node that
// computes it and the input.
TEST(OnnxFolding, DataDependentShapeNamesItsInput) {
  Model m(13);
  m.input("x", {"2", "6"});
  m.input("shape", {"2"}, TensorProto::INT64);
  m.node("Reshape", {"x", "shape"}, {"y"}).set_name("r");
  m.node("Relu", {"y"}, {"z"}).set_name("relu");
  m.output("z");
  EXPECT_EQ(m.error(),
            "m.onnx: node 'r' (Reshape, opset 13): output 'y' has no static shape: node 'r' "
            "(Reshape) computes its shape from the values of 'shape', a model input; shapes "
            "computed from data are not supported (a value that holds a shape must be an "
            "initializer, a constant or computed from shapes)");
}

// If(cond): the branch taken replaces the node when cond folds (here: the input's rank is 2).
Model if_model(bool data_condition) {
  Model m(13);
  m.input("x", {"2", "6"});
  if (data_condition) {
    m.input("c", {}, TensorProto::BOOL);
  } else {
    m.node("Shape", {"x"}, {"s"});
    m.node("Size", {"s"}, {"rank"});
    m.ints("two", {}, {2});
    m.node("Equal", {"rank", "two"}, {"c"});
  }
  auto& n = m.node("If", {"c"}, {"y"});
  n.set_name("if");
  for (const char* branch : {"then_branch", "else_branch"}) {
    auto* a = n.add_attribute();
    a->set_name(branch);
    a->set_type(onnx::AttributeProto::GRAPH);
    auto* g = a->mutable_g();
    g->set_name(branch);
    m.node(std::string(branch) == "then_branch" ? "Relu" : "Neg", {"x"}, {"b"}, g);
    auto* out = g->add_output();
    out->set_name("b");
    out->mutable_type()->mutable_tensor_type()->set_elem_type(TensorProto::FLOAT);
  }
  m.output("y");
  return m;
}

TEST(OnnxFolding, IfWithAFoldedConditionIsItsBranch) {
  ir::Graph g = if_model(false).import().take();
  ASSERT_EQ(g.ops().size(), 1u);
  EXPECT_EQ(g.ops()[0].einsum.fn, "relu");
  EXPECT_EQ(g.ops()[0].name, "if/b_node");
  EXPECT_EQ(g.outputs(), (std::vector<std::string>{"y"}));
  EXPECT_EQ(if_model(true).error(),
            "m.onnx: node 'if' (If, opset 13): its condition 'c' depends on data (it is not "
            "computed from shapes and constants); control flow is not supported");
}

// GELU as torch exports it (erf form) fuses into one op, unless a value inside is read elsewhere.
Model gelu_model(bool erf_is_output) {
  Model m(13);
  m.input("x", {"2", "8"});
  m.floats("sqrt2", {});
  m.floats("one", {});
  m.floats("half", {});
  m.node("Div", {"x", "sqrt2"}, {"d"}).set_name("/mlp/Div");
  m.node("Erf", {"d"}, {"e"}).set_name("/mlp/Erf");
  m.node("Add", {"e", "one"}, {"a"}).set_name("/mlp/Add");
  m.node("Mul", {"x", "a"}, {"p"}).set_name("/mlp/Mul");
  m.node("Mul", {"p", "half"}, {"y"}).set_name("/mlp/Mul_1");
  m.output("y");
  if (erf_is_output) m.output("e");
  return m;
}

TEST(OnnxPatterns, GeluIsFusedUnlessAnInnerValueIsUsed) {
  ir::Graph g = gelu_model(false).import().take();
  ASSERT_EQ(g.ops().size(), 1u);
  EXPECT_EQ(g.ops()[0].name, "/mlp/Gelu");
  EXPECT_EQ(g.ops()[0].einsum.str(), "gelu([d0,d1])->[d0,d1]");
  EXPECT_EQ(g.ops()[0].source, "onnx Gelu");
  EXPECT_EQ(gelu_model(true).import().take().ops().size(), 5u);
}

// Past key/value inputs concatenated into present outputs: --seq binds the past length, the
// present is the KV cache in HBM and only the new position is written.
Model decode_model() {
  Model m(14);
  m.input("k", {"1", "2", "1", "8"});
  m.input("past", {"1", "2", "past_len", "8"});
  auto& cat = m.node("Concat", {"past", "k"}, {"present"});
  set_int(cat, "axis", 2);
  m.output("present");
  return m;
}

TEST(OnnxDecode, PresentIsAKvCacheWrittenAtThePastLength) {
  OnnxOptions options;
  options.past_length = 15;
  ir::Graph g = decode_model().import(options).take();
  const ir::Tensor* present = g.find_tensor("present");
  ASSERT_NE(present, nullptr);
  EXPECT_EQ(present->role, ir::TensorRole::kv_cache);
  EXPECT_EQ(present->shape, (std::vector<int64_t>{1, 2, 16, 8}));
  ASSERT_EQ(g.ops().size(), 1u);
  EXPECT_EQ(g.ops()[0].einsum.str(), "copy([d0,d1,d2,d3])->[d0,d1,d2+15,d3]");
  ir::OpCost c = ir::op_cost(g, g.ops()[0]);
  EXPECT_TRUE(c.writes_hbm);
  EXPECT_DOUBLE_EQ(c.bytes_out, 2 * 8 * 4.0);
  EXPECT_EQ(g.find_tensor("past"), nullptr);  // neither read nor copied
}

// A fixed-size cache updated by ScatterND at known positions (slot 5 of both heads) is written in
// place: the update's elements, no copy of the cache.
TEST(OnnxDecode, ScatterNdAtKnownPositionsWritesTheCacheInPlace) {
  Model m(14);
  m.input("past", {"1", "2", "8", "4"});
  m.input("k", {"1", "2", "1", "4"});
  m.ints("slots", {1, 2, 1, 3}, {0, 0, 5, 0, 1, 5});
  m.node("ScatterND", {"past", "slots", "k"}, {"present"});
  m.output("present");
  ir::Graph g = m.import().take();
  EXPECT_EQ(g.find_tensor("present")->role, ir::TensorRole::kv_cache);
  ASSERT_EQ(g.ops().size(), 1u);
  EXPECT_EQ(g.ops()[0].einsum.str(), "copy([u0,u1,u2,d3])->[0,u1,5,d3]");
  ir::OpCost c = ir::op_cost(g, g.ops()[0]);
  EXPECT_TRUE(c.writes_hbm);
  EXPECT_DOUBLE_EQ(c.bytes_out, 2 * 4 * 4.0);
  EXPECT_DOUBLE_EQ(c.hbm_bytes_in, 2 * 4 * 4.0);  // k, a model input; the cache is not read
}

TEST(OnnxDecode, SeqErrors) {
  OnnxOptions seq;
  seq.past_length = 15;
  EXPECT_EQ(decode_model().error(),
            "m.onnx: input 'past' dimension 2 is the symbolic dimension 'past_len', which is not "
            "bound; pass --dim past_len=VALUE (or --seq VALUE: the past length of this decode "
            "graph)");
  OnnxOptions both = seq;
  both.dims = {{"past_len", 15}};
  auto r = decode_model().import(both);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().kind, ErrorKind::usage);
  EXPECT_EQ(r.error().message,
            "--seq 15 and --dim past_len both bind the past length; give one of them");
  Model plain(14);
  plain.input("x", {"2"});
  plain.node("Relu", {"x"}, {"y"});
  plain.output("y");
  r = plain.import(seq);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message,
            "--seq 15: --seq binds the past length of a decode graph (past key/value inputs that "
            "a Concat extends into present outputs), and m.onnx has none; bind its symbolic "
            "dimensions with --dim NAME=VALUE");
}

// A two-layer decode step as exporters write it: past keys and values per layer, or one past
// stacked across layers ([2, 1, 2, past_len, 8]), sliced per layer and restacked into one present
// (Gather at a scalar index or Slice + Squeeze, restacked by Unsqueeze + Concat; or Slice keeping
// the layer axis, restacked by Concat). `misordered` restacks layer 1 before layer 0.
enum class Stacking { per_layer, gather, slice_squeeze, slice_kept, misordered };

// Layer l's past key (or value) as the layer's update reads it.
std::string layer_past(Model& m, Stacking s, const std::string& kv, int l) {
  std::string past = "past_" + kv, slice = kv + "_slice" + std::to_string(l);
  if (s == Stacking::per_layer) return past + "." + std::to_string(l);
  if (s == Stacking::gather || s == Stacking::misordered) {
    m.ints(slice + "_at", {}, {l});
    m.node("Gather", {past, slice + "_at"}, {slice});
    return slice;
  }
  m.ints(slice + "_from", {1}, {l});
  m.ints(slice + "_to", {1}, {l + 1});
  m.node("Slice", {past, slice + "_from", slice + "_to", "axis0"}, {slice});
  if (s == Stacking::slice_kept) return slice;
  m.node("Squeeze", {slice, "axis0"}, {slice + "_sq"});
  return slice + "_sq";
}

// Appends layer l's new key (or value) to its past: {the present attention reads, what the
// restacking Concat reads}.
std::pair<std::string, std::string> append(Model& m, Stacking s, const std::string& kv, int l,
                                           const std::string& x) {
  std::string fresh = kv + std::to_string(l), w = "w" + fresh;
  m.floats(w, {8, 8});
  m.node("MatMul", {x, w}, {fresh});
  std::string past = layer_past(m, s, kv, l);
  std::string present =
      s == Stacking::per_layer ? "present_" + kv + "." + std::to_string(l) : "p" + fresh;
  if (s == Stacking::slice_kept) {
    m.node("Unsqueeze", {fresh, "axis0"}, {fresh + "_u"});
    set_int(m.node("Concat", {past, fresh + "_u"}, {present}), "axis", 3);
    m.node("Squeeze", {present, "axis0"}, {present + "_sq"});
    return {present + "_sq", present};
  }
  set_int(m.node("Concat", {past, fresh}, {present}), "axis", 2);
  if (s == Stacking::per_layer) return {present, present};
  m.node("Unsqueeze", {present, "axis0"}, {present + "_u"});
  return {present, present + "_u"};
}

Model stacked_decode(Stacking s) {
  Model m(14);
  m.input("x", {"1", "2", "1", "8"});
  m.ints("axis0", {1}, {0});
  for (const char* kv : {"k", "v"}) {
    if (s != Stacking::per_layer)
      m.input(std::string("past_") + kv, {"2", "1", "2", "past_len", "8"});
    for (int l = 0; s == Stacking::per_layer && l < 2; ++l)
      m.input(std::string("past_") + kv + "." + std::to_string(l), {"1", "2", "past_len", "8"});
  }
  std::string x = "x";
  std::map<std::string, std::vector<std::string>> restacked;
  for (int l = 0; l < 2; ++l) {
    auto [k, k_stack] = append(m, s, "k", l, x);
    auto [v, v_stack] = append(m, s, "v", l, x);
    restacked["k"].push_back(k_stack);
    restacked["v"].push_back(v_stack);
    std::string n = std::to_string(l);
    set_ints(m.node("Transpose", {k}, {"kt" + n}), "perm", {0, 1, 3, 2});
    m.node("MatMul", {x, "kt" + n}, {"s" + n});
    set_int(m.node("Softmax", {"s" + n}, {"p" + n}), "axis", -1);
    x = "x" + std::to_string(l + 1);
    m.node("MatMul", {"p" + n, v}, {x});
  }
  m.output(x);
  for (auto& [kv, values] : restacked) {
    if (s == Stacking::per_layer) {
      for (const auto& v : values) m.output(v);
      continue;
    }
    if (s == Stacking::misordered) std::swap(values[0], values[1]);
    set_int(m.node("Concat", values, {"present_" + kv}), "axis", 0);
    m.output("present_" + kv);
  }
  return m;
}

ir::Graph import_decode(Stacking s) {
  OnnxOptions options;
  options.past_length = 15;
  return stacked_decode(s).import(options).take();
}

// Sliced per layer and restacked, a stacked cache is the per-layer caches: the same tensors
// (each layer's present a KV cache of past + 1 positions) and the same ops, so the same plan;
// neither the stack nor the restacked present is read or copied.
TEST(OnnxDecode, StackedCachesAreThePerLayerCaches) {
  ir::Graph per_layer = import_decode(Stacking::per_layer);
  ir::Totals want = ir::totals(per_layer);
  EXPECT_EQ(want.ops, 16u);  // per layer: 2 projections, 2 cache writes, 4 attention ops
  EXPECT_DOUBLE_EQ(want.kv_cache_bytes, 2 * 2 * (2 * 16 * 8) * 4.0);  // 4096 B
  for (Stacking s : {Stacking::gather, Stacking::slice_squeeze, Stacking::slice_kept}) {
    ir::Graph g = import_decode(s);
    ir::Totals got = ir::totals(g);
    EXPECT_EQ(got.ops, want.ops);
    EXPECT_DOUBLE_EQ(got.flops, want.flops);
    EXPECT_DOUBLE_EQ(got.kv_cache_bytes, want.kv_cache_bytes);
    EXPECT_DOUBLE_EQ(got.hbm_bytes_in, want.hbm_bytes_in);
    EXPECT_DOUBLE_EQ(got.on_chip_bytes_in, want.on_chip_bytes_in);
    EXPECT_DOUBLE_EQ(got.bytes_out, want.bytes_out);
    EXPECT_DOUBLE_EQ(got.peak_live_on_chip_bytes, want.peak_live_on_chip_bytes);
    EXPECT_EQ(g.find_tensor("past_k"), nullptr);
    EXPECT_EQ(g.find_tensor("present_k"), nullptr);
    EXPECT_EQ(g.outputs(), per_layer.outputs());
    const ir::Tensor* present = g.find_tensor("present_v.1");
    ASSERT_NE(present, nullptr);
    EXPECT_EQ(present->role, ir::TensorRole::kv_cache);
    if (s == Stacking::slice_kept) continue;  // its presents keep the layer axis: [1, 1, 2, 16, 8]
    EXPECT_EQ(g.tensors(), per_layer.tensors());
    for (size_t i = 0; i < g.ops().size(); ++i)
      EXPECT_EQ(g.ops()[i].einsum, per_layer.ops()[i].einsum) << g.ops()[i].name;
  }
}

// Restacked in another order than it was sliced, the stack is not the layers' caches: the graph
// imports as the copies it spells out, with no KV cache (and no past length for --seq to bind).
TEST(OnnxDecode, AStackRestackedOutOfOrderIsCopied) {
  OnnxOptions options;
  options.dims = {{"past_len", 15}};
  ir::Graph g = stacked_decode(Stacking::misordered).import(options).take();
  EXPECT_DOUBLE_EQ(ir::totals(g).kv_cache_bytes, 0);
  ASSERT_NE(g.find_tensor("present_k"), nullptr);
  EXPECT_EQ(g.find_tensor("past_k")->role, ir::TensorRole::input);
}

// A fixed-size cache stacked across layers, each layer's slice updated by ScatterND at known
// positions: per layer, the update's elements are written in place into that layer's cache.
TEST(OnnxDecode, AStackedFixedSizeCacheIsWrittenInPlacePerLayer) {
  Model m(14);
  m.input("past", {"2", "1", "2", "8", "4"});
  m.ints("slots", {1, 2, 1, 3}, {0, 0, 5, 0, 1, 5});
  m.ints("axis0", {1}, {0});
  std::vector<std::string> restacked;
  for (int l = 0; l < 2; ++l) {
    std::string n = std::to_string(l);
    m.input("k" + n, {"1", "2", "1", "4"});
    m.ints("at" + n, {}, {l});
    m.node("Gather", {"past", "at" + n}, {"slice" + n});
    m.node("ScatterND", {"slice" + n, "slots", "k" + n}, {"p" + n});
    m.node("Unsqueeze", {"p" + n, "axis0"}, {"pu" + n});
    restacked.push_back("pu" + n);
  }
  set_int(m.node("Concat", restacked, {"present"}), "axis", 0);
  m.output("present");
  ir::Graph g = m.import().take();
  EXPECT_DOUBLE_EQ(ir::totals(g).kv_cache_bytes, 2 * (2 * 8 * 4) * 4.0);  // 512 B
  ASSERT_EQ(g.ops().size(), 2u);
  for (const auto& op : g.ops()) {
    EXPECT_EQ(op.einsum.str(), "copy([u0,u1,u2,d3])->[0,u1,5,d3]");
    EXPECT_DOUBLE_EQ(ir::op_cost(g, op).bytes_out, 2 * 4 * 4.0);
  }
  EXPECT_EQ(g.outputs(), (std::vector<std::string>{"present.0", "present.1"}));
}

// The layers of a stacked cache are inputs of their own: an unbound past length names layer 0's.
TEST(OnnxDecode, AStackedCacheNeedsItsPastLength) {
  EXPECT_EQ(stacked_decode(Stacking::gather).error(),
            "m.onnx: input 'past_k.0' dimension 2 is the symbolic dimension 'past_len', which is "
            "not bound; pass --dim past_len=VALUE (or --seq VALUE: the past length of this "
            "decode graph)");
}

// Each converter's Einsum: what it reads, where it writes, its point function.
std::string einsum_of(Model& m, const std::string& op = "") {
  ir::Graph g = m.import().take();
  const ir::Op& o = op.empty() ? g.ops().back() : op_named(g, op);
  return o.einsum.str() + " " + o.einsum.ranks_str();
}

TEST(OnnxConverters, GathersAndScatters) {
  Model ge(13);
  ge.input("x", {"4", "5"});
  ge.input("i", {"4", "2"}, TensorProto::INT64);
  set_int(ge.node("GatherElements", {"x", "i"}, {"y"}), "axis", 1);
  ge.output("y");
  EXPECT_EQ(einsum_of(ge), "copy([d0,$1],[d0,d1])->[d0,d1] d0=4 d1=2");
  Model sn(13);
  sn.input("cache", {"1", "4", "16", "8"});
  sn.input("idx", {"1", "1", "3"}, TensorProto::INT64);
  sn.input("new", {"1", "1", "8"});
  sn.node("ScatterND", {"cache", "idx", "new"}, {"y"});
  sn.output("y");
  EXPECT_EQ(einsum_of(sn),
            "scatter([d0,d1,d2,d3],[$2,$2,d3],[d0,d1,t])->[d0,d1,d2,d3] d0=1 d1=4 d2=16 d3=8 t=3");
  Model tk(13);
  tk.input("x", {"3", "8"});
  tk.ints("k", {1}, {2});
  tk.node("TopK", {"x", "k"}, {"v", "i"});
  tk.output("v");
  tk.output("i", TensorProto::INT64);
  ir::Graph g = tk.import().take();
  ASSERT_EQ(g.ops().size(), 2u);
  EXPECT_EQ(g.ops()[0].einsum.str(), "topk([d0,d1])->[d0,j]");
  EXPECT_DOUBLE_EQ(ir::op_cost(g, g.ops()[0]).flops, 3 * 8 * 2);
  EXPECT_EQ(g.ops()[1].einsum.str(), "copy([d0,d1])->[d0,d1]");
}

TEST(OnnxConverters, WindowsAndResize) {
  Model ct(13);
  ct.input("x", {"1", "4", "5", "5"});
  ct.floats("w", {4, 2, 3, 3});
  auto& n = ct.node("ConvTranspose", {"x", "w"}, {"y"});
  set_ints(n, "strides", {2, 2});
  set_ints(n, "pads", {1, 1, 1, 1});
  ct.output("y");
  ir::Graph g = ct.import().take();
  ASSERT_EQ(g.ops().size(), 2u);  // the unpadded 11 x 11 output, then the 9 x 9 crop
  EXPECT_EQ(g.ops()[0].einsum.str(), "mac([n,c,p0,p1],[c,m,r0,r1])->[n,m,2*p0+r0,2*p1+r1]");
  EXPECT_DOUBLE_EQ(ir::op_cost(g, g.ops()[0]).flops, 2.0 * 4 * 2 * 25 * 9);
  EXPECT_EQ(g.ops()[1].einsum.str(), "copy([d0,d1,d2+1,d3+1])->[d0,d1,d2,d3]");
  EXPECT_EQ(g.find_tensor("y")->shape, (std::vector<int64_t>{1, 2, 9, 9}));
  Model rs(13);
  rs.input("x", {"1", "3", "4", "4"});
  rs.floats("scales", {4});
  rs.graph()->mutable_initializer(0)->clear_float_data();
  for (float s : {1.0f, 1.0f, 2.0f, 2.0f}) rs.graph()->mutable_initializer(0)->add_float_data(s);
  set_string(rs.node("Resize", {"x", "", "scales"}, {"y"}), "mode", "linear");
  rs.output("y");
  EXPECT_EQ(einsum_of(rs),
            "interpolate([j0,j1,j2+t2,j3+t3])->[j0,j1,2*j2+r2,2*j3+r3] j0=1 j1=3 j2=4 r2=2 t2=2 "
            "j3=4 r3=2 t3=2");
  Model tile(13);
  tile.input("x", {"2", "3"});
  tile.ints("reps", {2}, {3, 1});
  tile.node("Tile", {"x", "reps"}, {"y"});
  tile.output("y");
  EXPECT_EQ(einsum_of(tile), "copy([i0,i1])->[2*r0+i0,3*r1+i1] r0=3 i0=2 r1=1 i1=3");
}

TEST(OnnxConverters, EinsumAndScan) {
  Model e(13);
  e.input("a", {"2", "3", "4"});
  e.input("b", {"2", "4", "5"});
  set_string(e.node("Einsum", {"a", "b"}, {"y"}), "equation", "bij,bjk->bik");
  e.output("y");
  EXPECT_EQ(einsum_of(e), "mac([eb,ei,ej],[eb,ej,ek])->[eb,ei,ek] eb=2 ei=3 ej=4 ek=5");
  Model c(13);
  c.input("x", {"4", "8"});
  c.ints("axis", {}, {1});
  c.node("CumSum", {"x", "axis"}, {"y"});
  c.output("y");
  EXPECT_EQ(einsum_of(c), "cumsum([d0,d1])->[d0,d1] d0=4 d1=8");
}

TEST(OnnxConverters, DetAndReverseSequence) {
  Model d(13);
  d.input("x", {"3", "4", "4"});
  d.node("Det", {"x"}, {"y"});
  d.output("y");
  ir::Graph g = d.import().take();
  EXPECT_EQ(g.ops()[0].einsum.str(), "lu([b0,i,j])->[b0]");
  EXPECT_DOUBLE_EQ(ir::op_cost(g, g.ops()[0]).flops, 3 * 2.0 / 3 * 64);
  Model r(13);
  r.input("x", {"5", "2", "3"});
  r.input("lens", {"2"}, TensorProto::INT64);
  set_int(r.node("ReverseSequence", {"x", "lens"}, {"y"}), "batch_axis", 1);
  r.output("y");
  EXPECT_EQ(einsum_of(r), "copy([-d0+4,d1,d2])->[d0,d1,d2] d0=5 d1=2 d2=3");
}

// An LSTM of T steps: one input projection, then per step the recurrent matmul (from the second
// step, or the first with initial_h) and the cell; Y collects the steps.
TEST(OnnxConverters, LstmIsARecurrenceOverTimeSteps) {
  const int64_t T = 3, B = 2, I = 5, H = 4;
  Model m(14);
  m.input("x", {"3", "2", "5"});
  m.floats("w", {1, 4 * H, I});
  m.floats("r", {1, 4 * H, H});
  auto& n = m.node("LSTM", {"x", "w", "r"}, {"y", "y_h"});
  set_int(n, "hidden_size", H);
  m.output("y");
  m.output("y_h");
  ir::Graph g = m.import().take();
  EXPECT_EQ(g.ops().size(), static_cast<size_t>(1 + T + (T - 1) + 2));
  double mac = 0;
  for (const auto& op : g.ops())
    if (op.einsum.fn == "mac") mac += 2 * op.einsum.points();
  EXPECT_DOUBLE_EQ(mac, 2.0 * T * B * 4 * H * I + 2.0 * (T - 1) * B * 4 * H * H);
  EXPECT_EQ(op_named(g, "y_node.cell.0.2").einsum.str(),
            "lstm_cell([b,h],[b,h+4],[b,h+8],[b,h+12],[0,0,1,b,h])->[0,0,s,b,h]");
  EXPECT_EQ(g.find_tensor("y")->shape, (std::vector<int64_t>{T, 1, B, H}));
}

// Every step is unrolled into ops of its own, so the steps are bounded: 2^24 of them would take
// gigabytes before any plan.
TEST(OnnxConverters, LstmOverTooManyStepsIsRefused) {
  const int64_t H = 1;
  Model m(14);
  m.input("x", {"16777216", "1", "1"});
  m.floats("w", {1, 4 * H, 1});
  m.floats("r", {1, 4 * H, H});
  set_int(m.node("LSTM", {"x", "w", "r"}, {"y"}), "hidden_size", H);
  m.output("y");
  EXPECT_EQ(m.error(),
            "m.onnx: node 'y_node' (LSTM, opset 14): 16777216 time steps x 1 direction(s) unroll "
            "to more than the 65536 steps Tessera builds ops for; export the model over fewer "
            "time steps (a shorter sequence, or bind its length with a smaller --dim)");
}

// Quantised contractions compute in their narrow type: int8 reaches the cost model's
// tessera_dtype; uint8 has no ABI type yet.
TEST(OnnxConverters, QuantisedOpsCarryTheNarrowType) {
  Model m(13);
  m.input("x", {"4", "8"});
  m.floats("scale", {});
  m.ints("zp", {}, {0});
  m.graph()->mutable_initializer(1)->set_data_type(TensorProto::INT8);
  m.graph()->mutable_initializer(1)->clear_int64_data();
  m.graph()->mutable_initializer(1)->add_int32_data(0);
  m.node("QuantizeLinear", {"x", "scale", "zp"}, {"q"});
  auto* w = m.graph()->add_initializer();
  w->set_name("w");
  w->set_data_type(TensorProto::INT8);
  w->add_dims(8);
  w->add_dims(3);
  for (int i = 0; i < 24; ++i) w->add_int32_data(1);
  m.node("MatMulInteger", {"q", "w"}, {"y"});
  m.output("y", TensorProto::INT32);
  ir::Graph g = m.import().take();
  ASSERT_EQ(g.ops().size(), 2u);
  EXPECT_EQ(g.ops()[0].einsum.fn, "quantize");
  EXPECT_EQ(g.find_tensor("q")->dtype, ir::DType::int8);
  EXPECT_EQ(ir::to_abi(g.find_tensor("q")->dtype), TESSERA_DTYPE_INT8);
  EXPECT_EQ(g.ops()[1].einsum.str(), "mac([m,k],[k,n])->[m,n]");
  EXPECT_DOUBLE_EQ(ir::op_cost(g, g.ops()[1]).hbm_bytes_in, 24.0);
  EXPECT_FALSE(ir::to_abi(ir::DType::uint8));
}

// What the importer writes to the log while `run` runs, one line per warning.
std::string logged(const std::function<void()>& run) {
  std::ostringstream text;
  auto sink = std::make_shared<spdlog::sinks::ostream_sink_mt>(text);
  sink->set_pattern("%v");
  spdlog::default_logger()->sinks().push_back(sink);
  run();
  spdlog::default_logger()->sinks().pop_back();
  return text.str();
}

// torchvision exports swin_t's Dropout in training mode with its mask: the mask nothing reads is
// left out, Dropout is the identity (with a note), and a node nothing reads is no op.
TEST(OnnxAsExported, UnusedOutputsAndTrainingModeDropoutLeaveNoOp) {
  Model m(13);
  m.input("x", {"2", "4"});
  m.floats("ratio", {});
  auto* training = m.graph()->add_initializer();
  training->set_name("training");
  training->set_data_type(TensorProto::BOOL);
  training->add_int32_data(1);
  m.node("Dropout", {"x", "ratio", "training"}, {"y", "mask"});
  m.node("Relu", {"x"}, {"unread"});
  m.node("Relu", {"y"}, {"z"});
  m.output("z");
  std::optional<ir::Graph> g;
  EXPECT_EQ(logged([&] { g = m.import().take(); }),
            "m.onnx: node 'y_node' (Dropout, opset 13): training-mode Dropout imported as "
            "identity (inference keeps every element)\n");
  ASSERT_EQ(g->ops().size(), 1u);
  EXPECT_EQ(g->ops()[0].name, "z_node");
  EXPECT_EQ(g->find_tensor("mask"), nullptr);
  EXPECT_EQ(g->find_tensor("unread"), nullptr);
}

// Scatters over constants fold (swin_t's shifted-window mask): written into shapes here, so the
// views show the values: ScatterND writes [4, 4] over [16, 1], ScatterElements [8, 2].
TEST(OnnxAsExported, ScattersOverConstantsFold) {
  Model m(13);
  m.input("x", {"2", "8"});
  m.ints("base", {2}, {16, 1});
  m.ints("nd_idx", {2, 1}, {0, 1});
  m.ints("nd_new", {2}, {4, 4});
  m.ints("el_idx", {2}, {1, 0});
  m.ints("el_new", {2}, {2, 8});
  m.node("ScatterND", {"base", "nd_idx", "nd_new"}, {"square"});
  m.node("ScatterElements", {"base", "el_idx", "el_new"}, {"tall"});
  m.node("Reshape", {"x", "square"}, {"a"});
  m.node("Reshape", {"a", "tall"}, {"b"});
  m.node("Relu", {"b"}, {"z"});
  m.output("z");
  ir::Graph g = m.import().take();
  EXPECT_EQ(g.find_tensor("a")->shape, (std::vector<int64_t>{4, 4}));
  EXPECT_EQ(g.find_tensor("b")->shape, (std::vector<int64_t>{8, 2}));
  ASSERT_EQ(g.ops().size(), 1u);
}

// A float mask scattered into zeros (its updates weights), compared and negated (Not over bool)
// folds to a constant: only the multiplication by it stays an op.
TEST(OnnxAsExported, ABoolMaskBuiltByScatterNdFolds) {
  Model m(13);
  m.input("x", {"2", "3"});
  m.ints("idx", {2, 2}, {0, 1, 1, 2});
  m.floats("halves", {2});
  m.floats("half", {});
  m.node("Shape", {"x"}, {"shape"});
  m.node("ConstantOfShape", {"shape"}, {"zeros"});
  m.node("ScatterND", {"zeros", "idx", "halves"}, {"marked"});
  m.node("Equal", {"marked", "half"}, {"hit"});
  m.node("Not", {"hit"}, {"mask"});
  set_int(m.node("Cast", {"mask"}, {"keep"}), "to", TensorProto::FLOAT);
  m.node("Mul", {"x", "keep"}, {"z"});
  m.output("z");
  ir::Graph g = m.import().take();
  ASSERT_EQ(g.ops().size(), 1u);
  EXPECT_EQ(g.ops()[0].name, "z_node");
  EXPECT_EQ(g.find_tensor("keep")->role, ir::TensorRole::constant);
}

onnx::NodeProto& constant_ints(Model& m, const std::string& name, const std::vector<int64_t>& v) {
  auto& n = m.node("Constant", {}, {name});
  set_ints(n, "value_ints", v);
  return n;
}

onnx::NodeProto& constant_int(Model& m, const std::string& name, int64_t v) {
  auto& n = m.node("Constant", {}, {name});
  set_int(n, "value_int", v);
  return n;
}

// swin_t's shifted-window mask at 224x224: positions of 64 windows of 7x7 differenced pairwise
// ([64, 49, 49], 153,664 elements, past the 65,536 of shape arithmetic), compared, negated and
// cast, all from shapes. It folds to one constant the Add reads; as ops, the Not would compute in
// bool, which no core does.
TEST(OnnxAsExported, AMaskComputedFromShapesFoldsPastShapeArithmeticSize) {
  Model m(17);
  m.input("x", {"1", "64", "49", "49"});
  constant_int(m, "start", 0);
  constant_int(m, "limit", 64 * 49);
  constant_int(m, "delta", 1);
  m.node("Range", {"start", "limit", "delta"}, {"positions"});
  set_int(m.node("Cast", {"positions"}, {"real"}), "to", TensorProto::FLOAT);
  constant_ints(m, "rows", {64, 1, 49});
  constant_ints(m, "cols", {64, 49, 1});
  m.node("Reshape", {"real", "rows"}, {"a"});
  m.node("Reshape", {"real", "cols"}, {"b"});
  m.node("Sub", {"a", "b"}, {"diff"});
  constant_int(m, "zero_int", 0);
  set_int(m.node("Cast", {"zero_int"}, {"zero"}), "to", TensorProto::FLOAT);
  m.node("Equal", {"diff", "zero"}, {"same"});
  m.node("Not", {"same"}, {"differ"});
  set_int(m.node("Cast", {"differ"}, {"mask"}), "to", TensorProto::FLOAT);
  m.node("Add", {"x", "mask"}, {"z"});
  m.output("z");
  ir::Graph g = m.import().take();
  ASSERT_EQ(g.ops().size(), 1u);
  EXPECT_EQ(g.ops()[0].name, "z_node");
  EXPECT_EQ(g.find_tensor("mask")->role, ir::TensorRole::constant);
  EXPECT_EQ(g.find_tensor("mask")->shape, (std::vector<int64_t>{64, 49, 49}));
}

// Values above 65,536 elements fold while the model's large folded values stay under 2^24
// elements: sixteen expansions of 2^20 elements fold, the seventeenth stays an op.
TEST(OnnxAsExported, LargeFoldedValuesHaveABudget) {
  constexpr int kExpansions = 17;
  Model m(17);
  m.input("x", {"1024", "1024"});
  constant_ints(m, "square", {1024, 1024});
  std::string sum = "x";
  for (int i = 0; i < kExpansions; ++i) {
    std::string id = std::to_string(i);
    auto& value = m.node("Constant", {}, {"v" + id});
    auto* f = value.add_attribute();
    f->set_name("value_float");
    f->set_type(onnx::AttributeProto::FLOAT);
    f->set_f(static_cast<float>(i));
    m.node("Expand", {"v" + id, "square"}, {"e" + id});
    m.node("Add", {sum, "e" + id}, {"s" + id});
    sum = "s" + id;
  }
  m.output(sum);
  ir::Graph g = m.import().take();
  std::vector<std::string> unfolded;
  for (const auto& op : g.ops())
    if (op.name.rfind("s", 0) != 0) unfolded.push_back(op.name);
  EXPECT_EQ(g.ops().size() - unfolded.size(), static_cast<size_t>(kExpansions));
  EXPECT_EQ(unfolded, (std::vector<std::string>{"e16_node"}));
}

// Import and the search for repeated layers are linear in the node count
// (bench/onnx_import_bench.cpp times them): a long chain imports whole, and its layers are every
// op after the first (which reads the model input, not an op's output).
TEST(OnnxAsExported, ALongChainImportsEveryNode) {
  constexpr int kNodes = 10000;
  Model m(13);
  m.input("x", {"1", "8"});
  std::string x = "x";
  for (int i = 0; i < kNodes; ++i) {
    std::string y = "v" + std::to_string(i);
    m.node("Relu", {x}, {y});
    x = y;
  }
  m.output(x);
  ir::Graph g = m.import().take();
  EXPECT_EQ(g.ops().size(), static_cast<size_t>(kNodes));
  auto layers = ir::repeated_layers(g, ir::identical_ops(g), ir::edges(g));
  ASSERT_TRUE(layers.has_value());
  EXPECT_EQ(layers->first_op, 1);
  EXPECT_EQ(layers->ops_per_layer, 1);
  EXPECT_EQ(layers->count, kNodes - 1);
}

}  // namespace
}  // namespace tessera::onnx_import
