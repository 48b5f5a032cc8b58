#include "framework/frontend/onnx/context.hpp"

#include <spdlog/spdlog.h>

#include <filesystem>

#include "framework/common/user_text.hpp"
#include "framework/frontend/onnx/converters.hpp"
#include "framework/frontend/onnx/patterns.hpp"
#include "framework/frontend/onnx/shape_origin.hpp"

namespace tessera::onnx_import {

namespace {

using onnx::TensorProto;

std::optional<ir::DType> ir_dtype(int32_t elem_type) {
  switch (elem_type) {
    case TensorProto::FLOAT:
      return ir::DType::fp32;
    case TensorProto::FLOAT16:
      return ir::DType::fp16;
    case TensorProto::BFLOAT16:
      return ir::DType::bf16;
    case TensorProto::DOUBLE:
      return ir::DType::fp64;
    case TensorProto::INT8:
      return ir::DType::int8;
    case TensorProto::UINT8:
      return ir::DType::uint8;
    case TensorProto::INT16:
      return ir::DType::int16;
    case TensorProto::UINT16:
      return ir::DType::uint16;
    case TensorProto::INT32:
      return ir::DType::int32;
    case TensorProto::UINT32:
      return ir::DType::uint32;
    case TensorProto::INT64:
      return ir::DType::int64;
    case TensorProto::UINT64:
      return ir::DType::uint64;
    case TensorProto::BOOL:
      return ir::DType::boolean;
    default:
      return std::nullopt;
  }
}

std::string type_name(int32_t elem_type) {
  return TensorProto::DataType_IsValid(elem_type)
             ? TensorProto::DataType_Name(static_cast<TensorProto::DataType>(elem_type))
             : "type " + std::to_string(elem_type);
}

std::string dims_str(const Dims& d) {
  std::string s = "[";
  for (size_t i = 0; i < d.size(); ++i) s += (i ? ", " : "") + std::to_string(d[i]);
  return s + "]";
}

}  // namespace

ir::IndexExpr rank(const std::string& name) {
  return ir::IndexExpr{{{1, name}}, 0, -1};
}
ir::Operand operand(const std::string& tensor, std::vector<ir::IndexExpr> index) {
  return ir::Operand{tensor, std::move(index)};
}
ir::IndexExpr constant(int64_t value) {
  return ir::IndexExpr{{}, value, -1};
}
ir::IndexExpr affine(std::vector<ir::AffineTerm> terms, int64_t offset) {
  std::erase_if(terms, [](const ir::AffineTerm& t) { return t.coeff == 0; });
  return ir::IndexExpr{std::move(terms), offset, -1};
}
ir::IndexExpr indirect(int operand) {
  return ir::IndexExpr{{}, 0, operand};
}

std::vector<ir::Rank> ranks_for(const Dims& shape, const std::string& prefix) {
  std::vector<ir::Rank> ranks;
  for (size_t i = 0; i < shape.size(); ++i) ranks.push_back({prefix + std::to_string(i), shape[i]});
  return ranks;
}

std::vector<ir::IndexExpr> indices_of(const std::vector<ir::Rank>& ranks) {
  std::vector<ir::IndexExpr> out;
  for (const auto& r : ranks) out.push_back(rank(r.name));
  return out;
}

NodeContext::NodeContext(Importer& importer, const onnx::NodeProto& node, int index)
    : importer_(importer), node_(node), index_(index) {}

int NodeContext::opset() const {
  return importer_.pm_.opset;
}

Failure NodeContext::fail(const std::string& what) const {
  return importer_.fail(node_, index_, what);
}

void NodeContext::note(const std::string& what) const {
  spdlog::warn("{}: {}: {}", importer_.pm_.file, importer_.describe(node_, index_), what);
}

Dims NodeContext::shape(int i) const {
  if (!has_input(i)) throw fail("input " + std::to_string(i) + " is missing");
  auto it = importer_.pm_.types.find(node_.input(i));
  if (it == importer_.pm_.types.end() || !it->second.dims)
    throw importer_.no_static_shape(node_, index_, "input", node_.input(i));
  return *it->second.dims;
}

Dims NodeContext::out_shape(int i) const {
  auto it = importer_.pm_.types.find(node_.output(i));
  if (it == importer_.pm_.types.end() || !it->second.dims)
    throw importer_.no_static_shape(node_, index_, "output", node_.output(i));
  return *it->second.dims;
}

const ConstTensor* NodeContext::value(int i) const {
  if (!has_input(i)) return nullptr;
  auto it = importer_.pm_.constants.find(node_.input(i));
  return it == importer_.pm_.constants.end() ? nullptr : &it->second;
}

std::vector<int64_t> NodeContext::int_values(int i, const std::string& what) const {
  const ConstTensor* v = value(i);
  if (v == nullptr || v->is_float())
    throw fail(what + " (input " + std::to_string(i) +
               ") must be a constant integer tensor known at import time");
  return v->ints;
}

const OnnxOptions& NodeContext::options() const {
  return importer_.options_;
}

std::string NodeContext::in(int i) {
  if (!has_input(i)) throw fail("input " + std::to_string(i) + " is missing");
  return importer_.use(node_.input(i), node_, index_);
}

std::string NodeContext::out(int i) {
  importer_.define(node_.output(i), ir::TensorRole::activation, "", node_, index_, out_shape(i));
  return node_.output(i);
}

const KvCache* NodeContext::kv_cache(int i) const {
  auto it = importer_.pm_.kv_caches.find(node_.output(i));
  return it == importer_.pm_.kv_caches.end() ? nullptr : &it->second;
}

std::string NodeContext::cache_out(int i) {
  importer_.define(node_.output(i), ir::TensorRole::kv_cache, "", node_, index_, out_shape(i));
  return node_.output(i);
}

void NodeContext::view(int i, int from) {
  std::string base = in(from);
  const ir::Tensor* t = importer_.builder_.graph().find_tensor(base);
  importer_.define(node_.output(i), t->role, base, node_, index_, out_shape(i));
}

void NodeContext::weight_output(int i) {
  importer_.define(node_.output(i), ir::TensorRole::weight, "", node_, index_, out_shape(i));
}

std::string NodeContext::temp_name(const std::string& part) const {
  for (const auto& o : node_.output())
    if (!o.empty()) return o + "." + part;
  return node_.name() + "." + part;
}

std::string NodeContext::temp(const std::string& part, const Dims& shape, ir::DType dtype) {
  std::string name = temp_name(part);
  if (auto s = importer_.builder_.add_tensor(
          ir::Tensor{name, shape, dtype, ir::TensorRole::activation, ""});
      !s)
    throw fail(s.error().message);
  return name;
}

std::string NodeContext::temp_view(const std::string& part, const Dims& shape,
                                   const std::string& base) {
  const ir::Tensor* t = importer_.builder_.graph().find_tensor(base);
  std::string name = temp_name(part);
  if (auto s = importer_.builder_.add_tensor(ir::Tensor{name, shape, t->dtype, t->role, base}); !s)
    throw fail(s.error().message);
  return name;
}

void NodeContext::view_of(int i, const std::string& base) {
  const ir::Tensor* t = importer_.builder_.graph().find_tensor(base);
  importer_.define(node_.output(i), t->role, base, node_, index_, out_shape(i));
}

ir::DType NodeContext::dtype(int i) const {
  return importer_.dtype_of(has_input(i) ? node_.input(i) : "", node_, index_);
}

ir::DType NodeContext::out_dtype(int i) const {
  return importer_.dtype_of(node_.output(i), node_, index_);
}

void NodeContext::companion(int i, int from) {
  Dims shape = out_shape(i), base = out_shape(from);
  if (shape.size() > base.size()) throw fail("output " + std::to_string(i) + " has too many dims");
  auto ranks = ranks_for(shape, "d");
  ir::Operand src{node_.output(from), {}};
  size_t lead = base.size() - shape.size();
  for (size_t d = 0; d < base.size(); ++d)
    src.index.push_back(d < lead ? constant(base[d] - 1) : rank(ranks[d - lead].name));
  std::string out = this->out(i);
  op(ir::OpKind::data_movement, "copy", ranks, {std::move(src)},
     ir::Operand{out, indices_of(ranks)}, std::to_string(i));
}

void NodeContext::op(ir::OpKind kind, const std::string& fn, std::vector<ir::Rank> ranks,
                     std::vector<ir::Operand> inputs, ir::Operand output, const std::string& part) {
  std::string source = "onnx " + node_.op_type();
  ir::Op op{importer_.unique_op_name(node_, index_, part), kind,
            ir::Einsum{std::move(ranks), std::move(inputs), std::move(output), fn}, source};
  if (auto r = importer_.builder_.add_op(std::move(op)); !r) throw fail(r.error().message);
}

Importer::Importer(PreparedModel& model, const OnnxOptions& options)
    : pm_(model),
      options_(options),
      builder_(std::filesystem::path(model.file).filename().string()) {
  for (const auto& in : pm_.model.graph().input())
    if (!pm_.weights.count(in.name())) graph_inputs_.insert(in.name());
}

std::string Importer::describe(const onnx::NodeProto& node, int index) const {
  return describe_node(node, index, pm_.opset);
}

Failure Importer::fail(const onnx::NodeProto& node, int index, const std::string& what) const {
  return Failure(input_error(pm_.file + ": " + describe(node, index) + ": " + what));
}

ir::DType Importer::dtype_of(const std::string& name, const onnx::NodeProto& node,
                             int index) const {
  auto it = pm_.types.find(name);
  if (it == pm_.types.end())
    throw fail(node, index, "tensor " + in_quotes(name) + " has no known type");
  auto dtype = ir_dtype(it->second.elem_type);
  if (!dtype)
    throw fail(node, index,
               "tensor " + in_quotes(name) + " has element type " +
                   type_name(it->second.elem_type) +
                   ", which Tessera does not model (numbers and bools only)");
  return *dtype;
}

void Importer::define(const std::string& name, ir::TensorRole role, const std::string& view_of,
                      const onnx::NodeProto& node, int index, Dims shape) {
  ir::DType dtype = dtype_of(name, node, index);
  for (int64_t d : shape)
    if (d == 0)
      throw fail(node, index,
                 "tensor " + in_quotes(name) + " has shape " + dims_str(shape) +
                     "; empty tensors are not supported");
  if (auto s = builder_.add_tensor(ir::Tensor{name, std::move(shape), dtype, role, view_of}); !s)
    throw fail(node, index, s.error().message);
}

Failure Importer::no_static_shape(const onnx::NodeProto& node, int index, const std::string& what,
                                  const std::string& name) const {
  std::string origin = shape_origin(pm_, name);
  if (pm_.non_tensors.count(name)) return fail(node, index, what + " " + origin);
  std::string message = what + " " + in_quotes(name) + " has no static shape";
  if (!origin.empty() && origin.find(in_quotes(name) + " has no") != 0) message += ": " + origin;
  if (origin.find(" do not fit it ") == std::string::npos)
    message +=
        "; shapes computed from data are not supported (a value that holds a shape must be an "
        "initializer, a constant or computed from shapes)";
  return fail(node, index, message);
}

std::string Importer::use(const std::string& name, const onnx::NodeProto& node, int index) {
  if (builder_.has_tensor(name)) return name;
  ir::TensorRole role = ir::TensorRole::input;
  if (pm_.folded.count(name))
    role = ir::TensorRole::constant;
  else if (pm_.weights.count(name))
    role = ir::TensorRole::weight;
  else if (!graph_inputs_.count(name))
    throw fail(node, index, "reads " + in_quotes(name) + ", which no earlier node produces");
  auto it = pm_.types.find(name);
  if (it == pm_.types.end() || !it->second.dims) throw no_static_shape(node, index, "input", name);
  define(name, role, "", node, index, *it->second.dims);
  return name;
}

std::string Importer::unique_op_name(const onnx::NodeProto& node, int index,
                                     const std::string& part) {
  std::string base =
      node.name().empty() ? node.op_type() + "_" + std::to_string(index) : node.name();
  if (!part.empty()) base += "." + part;
  std::string name = base;
  for (int k = 2; !op_names_.insert(name).second; ++k) name = base + "#" + std::to_string(k);
  return name;
}

void Importer::placeholder(NodeContext& ctx) {
  ctx.note("unsupported op imported as a zero-cost placeholder");
  for (int i = 0; i < ctx.node().output_size(); ++i) {
    if (ctx.node().output(i).empty()) continue;
    auto ranks = ranks_for(ctx.out_shape(i), "d");
    std::string out = ctx.out(i);
    ctx.op(ir::OpKind::other, "placeholder", ranks, {}, ir::Operand{out, indices_of(ranks)},
           std::to_string(i));
  }
}

void Importer::convert(const onnx::NodeProto& node, int index) {
  NodeContext ctx(*this, node, index);
  bool default_domain =
      node.domain().empty() || node.domain() == "ai.onnx" || node.domain() == kFusedDomain;
  Converter converter = default_domain ? find_converter(node.op_type()) : nullptr;
  if (converter != nullptr) return converter(ctx);
  for (int i = 0; i < node.output_size(); ++i)  // a shape computed from data is the first problem
    if (!node.output(i).empty()) ctx.out_shape(i);
  if (!options_.skip_unsupported)
    throw fail(node, index,
               "unsupported op (docs/workloads.md lists the supported ones); pass "
               "--skip-unsupported to import it as a zero-cost placeholder");
  placeholder(ctx);
}

Result<ir::Graph> Importer::run() {
  try {
    const auto& nodes = pm_.model.graph().node();
    for (int i = 0; i < nodes.size(); ++i) convert(nodes[i], i);
    for (const auto& output : pm_.model.graph().output()) {
      if (!builder_.has_tensor(output.name())) continue;  // folded to a constant, or unused input
      if (auto s = builder_.mark_output(output.name()); !s)
        return input_error(pm_.file + ": graph output: " + s.error().message);
    }
    return builder_.finish();
  } catch (const Failure& f) {
    return f.error();
  }
}

}  // namespace tessera::onnx_import
