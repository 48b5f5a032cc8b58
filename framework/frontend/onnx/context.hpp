// What an op converter sees of one ONNX node: its inputs' shapes, types and known values, and
// calls that create the IR tensors and ops for it. Every failure is an input error naming the
// file and the node (name, op type, opset).
#pragma once

#include <set>
#include <string>
#include <vector>

#include "framework/frontend/onnx/prepare.hpp"
#include "framework/ir/graph.hpp"

namespace tessera::onnx_import {

using Dims = std::vector<int64_t>;

// Index expressions built in code.
ir::IndexExpr rank(const std::string& name);
ir::IndexExpr constant(int64_t value);
ir::IndexExpr affine(std::vector<ir::AffineTerm> terms, int64_t offset);
ir::IndexExpr indirect(int operand);
// A tensor read or written at these indices.
ir::Operand operand(const std::string& tensor, std::vector<ir::IndexExpr> index);
// Ranks named prefix0, prefix1, ... with the extents of `shape`.
std::vector<ir::Rank> ranks_for(const Dims& shape, const std::string& prefix);
// The ranks' names as index expressions.
std::vector<ir::IndexExpr> indices_of(const std::vector<ir::Rank>& ranks);

class Importer;

class NodeContext {
 public:
  NodeContext(Importer& importer, const onnx::NodeProto& node, int index);
  const onnx::NodeProto& node() const { return node_; }
  int opset() const;
  const OnnxOptions& options() const;
  Failure fail(const std::string& what) const;
  // A warning naming the file and the node: how the import departs from what the node says.
  void note(const std::string& what) const;

  int inputs() const { return node_.input_size(); }
  bool has_input(int i) const { return i < node_.input_size() && !node_.input(i).empty(); }
  // Static shape of input i / output i; a missing one is an error naming the tensor.
  Dims shape(int i) const;
  Dims out_shape(int i = 0) const;
  // Known constant value of input i, or null.
  const ConstTensor* value(int i) const;
  // Input i's value as integers; an error when it is not a known constant.
  std::vector<int64_t> int_values(int i, const std::string& what) const;

  // The IR tensor for input i (created on first use for model inputs and weights).
  std::string in(int i);
  // Creates the IR activation for output i.
  std::string out(int i = 0);
  // Output i is a decode graph's present KV cache (decode.hpp), or null.
  const KvCache* kv_cache(int i = 0) const;
  // Creates output i as the KV cache in HBM that the node updates in place.
  std::string cache_out(int i = 0);
  // Output i is input `from` seen with another shape: a view, no op.
  void view(int i, int from);
  // Output i is data the model carries (a Constant too large to fold): a weight, no op.
  void weight_output(int i);
  // An activation between the ops one node becomes, named after its first output:
  // "<output>.<part>".
  std::string temp(const std::string& part, const Dims& shape, ir::DType dtype);
  // `base` (an IR tensor) seen with another shape, named as temp names: a view, no op.
  std::string temp_view(const std::string& part, const Dims& shape, const std::string& base);
  // Output i is the IR tensor `base` seen with output i's shape: a view, no op.
  void view_of(int i, const std::string& base);
  // The IR element type of input i / output i.
  ir::DType dtype(int i) const;
  ir::DType out_dtype(int i = 0) const;
  // Output i is written with output `from` (TopK's indices with its values, an LSTM's last state
  // with its sequence): a copy of the elements output i shares with it, no arithmetic.
  void companion(int i, int from);
  // Adds an op; `part` distinguishes several ops made from one node (Split).
  void op(ir::OpKind kind, const std::string& fn, std::vector<ir::Rank> ranks,
          std::vector<ir::Operand> inputs, ir::Operand output, const std::string& part = "");

 private:
  std::string temp_name(const std::string& part) const;

  Importer& importer_;
  const onnx::NodeProto& node_;
  int index_;
};

class Importer {
 public:
  Importer(PreparedModel& model, const OnnxOptions& options);
  Result<ir::Graph> run();

 private:
  friend class NodeContext;
  std::string describe(const onnx::NodeProto& node, int index) const;
  Failure fail(const onnx::NodeProto& node, int index, const std::string& what) const;
  // `what` ("input", "output") `name` has no static shape: the error says what it depends on.
  Failure no_static_shape(const onnx::NodeProto& node, int index, const std::string& what,
                          const std::string& name) const;
  // The IR tensor for an ONNX value read by `node` (created for inputs and initializers).
  std::string use(const std::string& name, const onnx::NodeProto& node, int index);
  ir::DType dtype_of(const std::string& name, const onnx::NodeProto& node, int index) const;
  void define(const std::string& name, ir::TensorRole role, const std::string& view_of,
              const onnx::NodeProto& node, int index, Dims shape);
  std::string unique_op_name(const onnx::NodeProto& node, int index, const std::string& part);
  void convert(const onnx::NodeProto& node, int index);
  void placeholder(NodeContext& ctx);

  PreparedModel& pm_;
  const OnnxOptions& options_;
  ir::GraphBuilder builder_;
  std::set<std::string> graph_inputs_;
  std::set<std::string> op_names_;
};

}  // namespace tessera::onnx_import
