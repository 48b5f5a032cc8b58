#include "framework/ir/graph.hpp"

#include <array>
#include <cmath>
#include <set>

namespace tessera::ir {

namespace {

constexpr std::array<std::pair<TensorRole, const char*>, 6> kRoles = {{
    {TensorRole::input, "input"},
    {TensorRole::weight, "weight"},
    {TensorRole::constant, "constant"},
    {TensorRole::kv_cache, "kv_cache"},
    {TensorRole::activation, "activation"},
    {TensorRole::resident, "resident"},
}};

// Limits that keep every derived number exact in int64 and double arithmetic.
constexpr int64_t kMaxExtent = int64_t{1} << 40;
constexpr double kMaxElements = 9.0e15;  // below 2^53: element counts stay exact in a double
constexpr int64_t kMaxCoeff = int64_t{1} << 20;

std::string tensor_context(const std::string& name) {
  return "tensor '" + name + "': ";
}

// Two ops' outputs (of one tensor) are disjoint when some dimension's index ranges do not meet.
bool disjoint_outputs(const Einsum& a, const Einsum& b) {
  for (size_t d = 0; d < a.output.index.size(); ++d) {
    auto [a_lo, a_hi] = affine_range(a, a.output.index[d]);
    auto [b_lo, b_hi] = affine_range(b, b.output.index[d]);
    if (a_hi < b_lo || b_hi < a_lo) return true;
  }
  return false;
}

}  // namespace

std::string op_context(const std::string& op_name) {
  return "op '" + op_name + "': ";
}

const char* to_string(TensorRole role) {
  for (const auto& [r, name] : kRoles)
    if (r == role) return name;
  return "activation";
}

std::optional<TensorRole> parse_tensor_role(std::string_view text) {
  for (const auto& [r, name] : kRoles)
    if (text == name) return r;
  return std::nullopt;
}

Storage storage_of(TensorRole role) {
  return role == TensorRole::activation || role == TensorRole::resident ? Storage::on_chip
                                                                        : Storage::hbm;
}

double Tensor::elements() const {
  double n = 1;
  for (int64_t d : shape) n *= static_cast<double>(d);
  return n;
}

const Tensor* Graph::find_tensor(const std::string& name) const {
  auto it = tensor_index_.find(name);
  return it == tensor_index_.end() ? nullptr : &tensors_[it->second];
}

const Tensor& Graph::storage_tensor(const std::string& name) const {
  const Tensor* t = find_tensor(name);
  if (t == nullptr)
    throw Failure(Error{ErrorKind::internal, StatusCode::internal,
                        "no tensor '" + name + "' in graph '" + name_ + "'"});
  return t->view_of.empty() ? *t : storage_tensor(t->view_of);
}

bool Graph::operator==(const Graph& other) const {
  return name_ == other.name_ && tensors_ == other.tensors_ && ops_ == other.ops_ &&
         outputs_ == other.outputs_;
}

GraphBuilder::GraphBuilder(std::string name) {
  graph_.name_ = std::move(name);
}

Status GraphBuilder::add_tensor(Tensor tensor) {
  std::string ctx = tensor_context(tensor.name);
  if (tensor.name.empty()) return input_error("a tensor needs a name");
  if (has_tensor(tensor.name)) return input_error(ctx + "defined twice");
  for (int64_t d : tensor.shape)
    if (d < 1 || d > kMaxExtent)
      return input_error(ctx + "dimension " + std::to_string(d) + " must be in [1, 2^40]");
  if (tensor.elements() > kMaxElements)
    return input_error(ctx + "has more than 9e15 elements; check the shape");
  if (!tensor.view_of.empty()) {
    const Tensor* base = graph_.find_tensor(tensor.view_of);
    if (base == nullptr)
      return input_error(ctx + "is a view of '" + tensor.view_of +
                         "', which is not defined before it");
    if (base->elements() != tensor.elements())
      return input_error(ctx + "a view must have as many elements as '" + base->name + "'");
    if (base->role != tensor.role)
      return input_error(ctx + "a view has its base's role '" + to_string(base->role) + "'");
    if (base->dtype != tensor.dtype)
      return input_error(ctx + "a view has its base's dtype '" + to_string(base->dtype) + "'");
    if (!base->view_of.empty()) tensor.view_of = base->view_of;
  }
  graph_.tensor_index_[tensor.name] = graph_.tensors_.size();
  graph_.tensors_.push_back(std::move(tensor));
  return ok_status();
}

Status GraphBuilder::check_operand(const Op& op, const Operand& operand, bool is_output) const {
  std::string ctx = op_context(op.name) + (is_output ? "output " : "input ") + operand.str() + ": ";
  const Tensor* t = graph_.find_tensor(operand.tensor);
  if (t == nullptr) return input_error(ctx + "no tensor '" + operand.tensor + "' is defined");
  if (operand.index.size() != t->shape.size())
    return input_error(ctx + "tensor '" + t->name + "' has " + std::to_string(t->shape.size()) +
                       " dimensions but " + std::to_string(operand.index.size()) +
                       " index expressions are given");
  for (size_t d = 0; d < operand.index.size(); ++d) {
    const IndexExpr& e = operand.index[d];
    if (e.is_indirect()) {
      if (is_output) return input_error(ctx + "an output cannot be indexed indirectly ($N)");
      if (e.indirect >= static_cast<int>(op.einsum.inputs.size()) ||
          &op.einsum.inputs[e.indirect] == &operand)
        return input_error(ctx + "$" + std::to_string(e.indirect) +
                           " must name another input operand (0-based)");
      continue;
    }
    if (e.terms.size() > 64 || std::llabs(e.offset) > kMaxExtent)
      return input_error(ctx + "index '" + e.str() + "' is out of the supported range");
    for (const auto& term : e.terms) {
      if (op.einsum.find_rank(term.rank) == nullptr)
        return input_error(ctx + "index '" + e.str() + "' uses rank '" + term.rank +
                           "', which is not one of the op's ranks (" + op.einsum.ranks_str() + ")");
      if (term.coeff == 0 || std::llabs(term.coeff) > kMaxCoeff)
        return input_error(ctx + "coefficient " + std::to_string(term.coeff) + " in '" + e.str() +
                           "' must be non-zero and at most 2^20");
    }
    if (is_output) {
      auto [lo, hi] = affine_range(op.einsum, e);
      if (lo < 0 || hi >= t->shape[d])
        return input_error(ctx + "index '" + e.str() + "' spans [" + std::to_string(lo) + ", " +
                           std::to_string(hi) + "] but dimension " + std::to_string(d) + " of '" +
                           t->name + "' has extent " + std::to_string(t->shape[d]));
    }
  }
  return ok_status();
}

Status GraphBuilder::check_einsum(const Op& op) const {
  std::string ctx = op_context(op.name);
  if (!find_point_fn(op.einsum.fn))
    return input_error(ctx + "unknown point function '" + op.einsum.fn +
                       "'; known: " + point_fn_names());
  std::set<std::string> used;
  for (const auto& r : op.einsum.ranks) {
    if (r.name.empty() || !used.insert(r.name).second)
      return input_error(ctx + "rank names must be unique and non-empty ('" + r.name + "')");
    if (r.extent < 1 || r.extent > kMaxExtent)
      return input_error(ctx + "rank '" + r.name + "' has extent " + std::to_string(r.extent) +
                         "; it must be in [1, 2^40]");
  }
  if (op.einsum.points() > 1.0e18)
    return input_error(ctx + "the iteration space has more than 1e18 points; check the ranks");
  for (const auto& in : op.einsum.inputs)
    if (auto s = check_operand(op, in, false); !s) return s;
  return check_operand(op, op.einsum.output, true);
}

Result<size_t> GraphBuilder::add_op(Op op) {
  std::string ctx = op_context(op.name);
  if (op.name.empty()) return input_error("an op needs a name");
  if (op_names_.count(op.name)) return input_error(ctx + "defined twice");
  if (auto s = check_einsum(op); !s) return s.error();
  for (const auto& in : op.einsum.inputs) {
    const Tensor& base = graph_.storage_tensor(in.tensor);
    if (base.role == TensorRole::activation && !writers_.count(base.name))
      return input_error(ctx + "reads '" + in.tensor +
                         "' before any op produces it (ops are listed in execution order)");
  }
  const Tensor* out = graph_.find_tensor(op.einsum.output.tensor);
  if (!out->view_of.empty())
    return input_error(ctx + "writes the view '" + out->name + "'; write its base '" +
                       out->view_of + "' instead");
  if (out->role == TensorRole::input || out->role == TensorRole::weight ||
      out->role == TensorRole::constant || out->role == TensorRole::resident)
    return input_error(ctx + "writes '" + out->name + "', which is a model " +
                       to_string(out->role) + " (read-only)");
  for (size_t writer : writers_[out->name])
    if (!disjoint_outputs(graph_.ops_[writer].einsum, op.einsum))
      return input_error(ctx + "writes '" + out->name + "', which op '" + graph_.ops_[writer].name +
                         "' already writes (ops may share an output "
                         "only by writing disjoint ranges of it)");
  writers_[out->name].push_back(graph_.ops_.size());
  op_names_.insert(op.name);
  graph_.ops_.push_back(std::move(op));
  return graph_.ops_.size() - 1;
}

Status GraphBuilder::mark_output(const std::string& tensor) {
  if (!has_tensor(tensor)) return input_error("output '" + tensor + "' is not a defined tensor");
  for (const auto& o : graph_.outputs_)
    if (o == tensor) return input_error("output '" + tensor + "' is listed twice");
  graph_.outputs_.push_back(tensor);
  return ok_status();
}

Graph GraphBuilder::finish() {
  Graph g = std::move(graph_);
  graph_ = Graph();
  writers_.clear();
  op_names_.clear();
  return g;
}

}  // namespace tessera::ir
