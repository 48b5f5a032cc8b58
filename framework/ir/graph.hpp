// A workload graph: tensors and ops in execution order. Where a tensor lives follows from its
// role: model inputs, weights (parameters and buffers), constants (values computed at import time,
// e.g. an attention mask) and the KV cache live in HBM; activations are produced on chip; a
// resident tensor is on chip before the step and produced outside the graph (what an op-by-op
// export such as the Elk artifact's counts as already on chip, frontend/elk/texpr.hpp). A view
// (reshape, squeeze, ...) shares its base tensor's storage and costs nothing. GraphBuilder is the
// only way to make a Graph: every frontend (YAML, model zoo, ONNX) goes through its checks, so
// every Graph is consistent.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "framework/common/status.hpp"
#include "framework/ir/compute.hpp"
#include "framework/ir/dtype.hpp"
#include "framework/ir/einsum.hpp"

namespace tessera::ir {

enum class TensorRole { input, weight, constant, kv_cache, activation, resident };
enum class Storage { hbm, on_chip };

const char* to_string(TensorRole role);
std::optional<TensorRole> parse_tensor_role(std::string_view text);
Storage storage_of(TensorRole role);

struct Tensor {
  std::string name;
  std::vector<int64_t> shape;
  DType dtype = DType::fp16;
  TensorRole role = TensorRole::activation;
  std::string view_of;  // non-empty: a view of that tensor (same elements, another shape)

  double elements() const;
  double bytes() const { return elements() * element_bytes(dtype); }
  bool operator==(const Tensor&) const = default;
};

struct Op {
  std::string name;
  OpKind kind = OpKind::other;
  Einsum einsum;
  std::string source;  // where it came from: "onnx Conv 'conv1' (opset 17)", "zoo"
  // The FPU fidelity its tiles run at, a tessera_math_fidelity (ABI 1.5): 0 is the chip's own
  // default; set per op class by a precision file (framework/frontend/precision.hpp).
  uint32_t math_fidelity = 0;
  bool operator==(const Op&) const = default;
};

class Graph {
 public:
  const std::string& name() const { return name_; }
  const std::vector<Tensor>& tensors() const { return tensors_; }
  const std::vector<Op>& ops() const { return ops_; }
  const std::vector<std::string>& outputs() const { return outputs_; }
  // nullptr when there is no such tensor.
  const Tensor* find_tensor(const std::string& name) const;
  // The tensor whose storage `name` uses (itself unless it is a view).
  const Tensor& storage_tensor(const std::string& name) const;
  bool operator==(const Graph& other) const;

 private:
  friend class GraphBuilder;
  std::string name_;
  std::vector<Tensor> tensors_;
  std::vector<Op> ops_;
  std::vector<std::string> outputs_;
  std::map<std::string, size_t> tensor_index_;
};

// Builds a Graph one tensor and one op at a time, in execution order. Each call checks what it
// adds and returns an input Error saying what is wrong (the caller adds file/line or node). After
// an error the builder is unchanged.
class GraphBuilder {
 public:
  explicit GraphBuilder(std::string name);

  // Shape dims >= 1 (a scalar has no dims); a view must have its base's element count and must
  // not be an HBM role other than its base's.
  Status add_tensor(Tensor tensor);
  // Operands name existing tensors with one index per dimension over the op's ranks; inputs are
  // HBM-resident or produced by an earlier op; the output's index stays inside it, and no other op
  // writes an overlapping part of it (the slices of a split op write disjoint ranges of one
  // tensor). Returns the op's index.
  Result<size_t> add_op(Op op);
  Status mark_output(const std::string& tensor);
  const Graph& graph() const { return graph_; }
  bool has_tensor(const std::string& name) const { return graph_.find_tensor(name) != nullptr; }
  // The finished graph; the builder is left empty.
  Graph finish();

 private:
  Status check_einsum(const Op& op) const;
  Status check_operand(const Op& op, const Operand& operand, bool is_output) const;

  Graph graph_;
  std::map<std::string, std::vector<size_t>> writers_;  // per tensor, in execution order
  std::set<std::string> op_names_;
};

// "op 'x': " / "tensor 'y': " prefixes used by every check.
std::string op_context(const std::string& op_name);

}  // namespace tessera::ir
