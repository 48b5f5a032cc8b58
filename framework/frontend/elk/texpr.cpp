#include "framework/frontend/elk/texpr.hpp"

#include <fmt/format.h>

#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>

#include "framework/common/files.hpp"

namespace tessera::elk_texpr {

namespace {

using Json = nlohmann::json;

constexpr int64_t kMaxExtent = int64_t{1} << 40;
constexpr size_t kMaxDims = 32;

// The artifact's type ids (TensorExpression.OP_TYPE_*) and what each becomes.
struct TypeInfo {
  ir::OpKind kind;
  const char* fn;  // the point function when the op's name is not in kFunctions
};
const std::map<int64_t, TypeInfo> kTypes = {
    {0, {ir::OpKind::reduction, "sum"}},   {1, {ir::OpKind::unary, "copy"}},
    {2, {ir::OpKind::elementwise, "add"}}, {3, {ir::OpKind::reduction, "max"}},
    {4, {ir::OpKind::conv, "mac"}},        {5, {ir::OpKind::matmul, "mac"}},
    {6, {ir::OpKind::gather, "copy"}},     {8, {ir::OpKind::data_movement, "copy"}},
};
// Operator names the exporter writes whose point function is known (FLOP counts only: the IPU
// cost model times ops by kind and size).
const std::map<std::string, std::string> kFunctions = {
    {"Add", "add"},          {"Subtract", "sub"},
    {"Multiply", "mul"},     {"Divide", "div"},
    {"Power", "pow"},        {"Maximum", "max"},
    {"Minimum", "min"},      {"Sqrt", "sqrt"},
    {"Negative", "neg"},     {"Sigmoid", "sigmoid"},
    {"Exp", "exp"},          {"Tanh", "tanh"},
    {"Relu", "relu"},        {"Erf", "erf"},
    {"Log", "log"},          {"Reciprocal", "reciprocal"},
    {"SoftmaxBasic", "exp"}, {"Sum", "sum"},
    {"ReduceSum", "sum"},    {"Max", "max"}};

struct EntryError {
  std::string message;
};

[[noreturn]] void fail(const std::string& what) {
  throw EntryError{what};
}

int64_t integer(const Json& j, const std::string& field, int64_t min, int64_t max) {
  if (!j.is_number_integer()) fail(field + ": expected an integer, got " + j.dump());
  int64_t v = j.get<int64_t>();
  if (v < min || v > max) fail(fmt::format("{}: {} is outside [{}, {}]", field, v, min, max));
  return v;
}

const Json& list(const Json& j, const std::string& field) {
  if (!j.is_array()) fail(field + ": expected a list, got " + j.dump());
  return j;
}

// One tensor's indexing: per tensor dimension, the iteration dimensions it spans (summed: a
// convolution's output position plus its window offset).
struct Indexing {
  std::vector<ir::IndexExpr> index;
  std::vector<int64_t> shape;
};

Indexing indexing(const Json& tensor, const std::vector<int64_t>& dims, const std::string& field) {
  Indexing out;
  list(tensor, field);
  if (tensor.empty() || tensor.size() > kMaxDims)
    fail(fmt::format("{}: expected 1 to {} tensor dimensions, got {}", field, kMaxDims,
                     tensor.size()));
  for (size_t t = 0; t < tensor.size(); ++t) {
    std::string at = fmt::format("{}[{}]", field, t);
    const Json& spans = list(tensor[t], at);
    if (spans.empty()) fail(at + ": expected the iteration dimensions it spans, got []");
    ir::IndexExpr e;
    int64_t extent = 1;
    for (size_t s = 0; s < spans.size(); ++s) {
      auto d =
          integer(spans[s], fmt::format("{}[{}]", at, s), 0, static_cast<int64_t>(dims.size()) - 1);
      e.terms.push_back({1, fmt::format("d{}", d)});
      extent += dims[static_cast<size_t>(d)] - 1;
    }
    out.index.push_back(std::move(e));
    out.shape.push_back(extent);
  }
  return out;
}

ir::TensorRole hbm_role(const std::string& type_name) {
  return type_name == "BatchMatMul" ? ir::TensorRole::kv_cache : ir::TensorRole::weight;
}

void add_entry(ir::GraphBuilder& builder, const Json& e, size_t i) {
  if (!e.is_array() || e.size() != 7)
    fail(
        "expected [type_name, dim_lengths, variables, ignore_flags, type_id, op_id, input_ids], "
        "got " +
        e.dump().substr(0, 80));
  if (!e[0].is_string()) fail("type_name: expected a string, got " + e[0].dump());
  const std::string type_name = e[0].get<std::string>();
  std::vector<int64_t> dims;
  const Json& lengths = list(e[1], "dim_lengths");
  if (lengths.empty() || lengths.size() > kMaxDims)
    fail(fmt::format("dim_lengths: expected 1 to {} extents, got {}", kMaxDims, lengths.size()));
  for (size_t d = 0; d < lengths.size(); ++d)
    dims.push_back(integer(lengths[d], fmt::format("dim_lengths[{}]", d), 1, kMaxExtent));
  const Json& variables = list(e[2], "variables");
  const Json& ignore = list(e[3], "ignore_flags");
  if (variables.size() < 2)
    fail("variables: expected the output and at least one input, got " +
         std::to_string(variables.size()) + " tensors");
  if (ignore.size() != variables.size() - 1)
    fail(fmt::format("ignore_flags: expected one flag per input ({}), got {}", variables.size() - 1,
                     ignore.size()));
  int64_t type_id = integer(e[4], "type_id", 0, 8);
  auto type = kTypes.find(type_id);
  if (type == kTypes.end())
    fail(fmt::format("type_id: {} is not one the artifact defines (0-6, 8)", type_id));

  ir::Op op;
  op.name = fmt::format("Op_{}_{}", i, type_name);
  op.source = fmt::format("elk texpr entry {} ({})", i, type_name);
  op.kind = type_name == "BatchMatMul" ? ir::OpKind::batched_matmul : type->second.kind;
  auto fn = kFunctions.find(type_name);
  op.einsum.fn = fn != kFunctions.end() ? fn->second : type->second.fn;
  if (op.kind == ir::OpKind::elementwise && variables.size() == 2 && fn == kFunctions.end())
    op.einsum.fn = "copy";
  for (size_t d = 0; d < dims.size(); ++d)
    op.einsum.ranks.push_back({fmt::format("d{}", d), dims[d]});
  for (size_t v = 0; v < variables.size(); ++v) {
    std::string field = v == 0 ? "variables[0] (output)" : fmt::format("variables[{}]", v);
    Indexing ix = indexing(variables[v], dims, field);
    ir::Tensor tensor;
    tensor.shape = ix.shape;
    if (v == 0) {
      tensor.name = op.name + ".out";
    } else {
      if (!ignore[v - 1].is_boolean())
        fail(fmt::format("ignore_flags[{}]: expected true or false, got {}", v - 1,
                         ignore[v - 1].dump()));
      tensor.name = fmt::format("{}.in{}", op.name, v - 1);
      tensor.role = ignore[v - 1].get<bool>() ? ir::TensorRole::resident : hbm_role(type_name);
    }
    if (Status s = builder.add_tensor(tensor); !s) fail(s.error().message);
    ir::Operand operand{tensor.name, std::move(ix.index)};
    if (v == 0)
      op.einsum.output = std::move(operand);
    else
      op.einsum.inputs.push_back(std::move(operand));
  }
  if (auto added = builder.add_op(std::move(op)); !added) fail(added.error().message);
}

}  // namespace

Result<ir::Graph> parse_texpr(const std::string& text, const std::string& file) {
  Json root;
  try {
    root = Json::parse(text);
  } catch (const Json::parse_error& e) {
    return input_error(file + ": not JSON: " + e.what());
  }
  if (!root.is_array() || root.empty())
    return input_error(file +
                       ": expected the Elk artifact's op list (models/TExpr/*.json: a list of "
                       "[type_name, dim_lengths, variables, ignore_flags, type_id, op_id, "
                       "input_ids])");
  ir::GraphBuilder builder(std::filesystem::path(file).stem().string());
  for (size_t i = 0; i < root.size(); ++i) {
    try {
      add_entry(builder, root[i], i);
    } catch (const EntryError& e) {
      return input_error(fmt::format("{}: entry {}: {}", file, i, e.message));
    }
  }
  std::string last = builder.graph().ops().back().einsum.output.tensor;
  if (Status s = builder.mark_output(last); !s) return s.error();
  return builder.finish();
}

Result<ir::Graph> read_texpr_file(const std::string& path) {
  auto text = read_file(path);
  if (!text) return text.error();
  return parse_texpr(*text, path);
}

}  // namespace tessera::elk_texpr
