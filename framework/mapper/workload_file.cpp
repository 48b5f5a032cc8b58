#include "framework/mapper/workload_file.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "framework/common/yaml_reader.hpp"
#include "framework/ir/compute.hpp"
#include "framework/ir/dtype.hpp"
#include "framework/mapper/names.hpp"
#include "framework/mapper/presets.hpp"

namespace fs = std::filesystem;

#ifndef TESSERA_SOURCE_WORKLOADS_DIR
#error "TESSERA_SOURCE_WORKLOADS_DIR must be defined by the build"
#endif

namespace tessera::mapper {

namespace {

std::string trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t");
  size_t e = s.find_last_not_of(" \t");
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

// Splits at `sep` outside brackets.
std::vector<std::string> split_top(const std::string& text, char sep) {
  std::vector<std::string> parts;
  int depth = 0;
  std::string cur;
  for (char c : text) {
    depth += c == '[' ? 1 : c == ']' ? -1 : 0;
    if (c == sep && depth == 0) {
      parts.push_back(trim(cur));
      cur.clear();
    } else {
      cur += c;
    }
  }
  parts.push_back(trim(cur));
  return parts;
}

ir::Operand parse_operand_at(const YamlNode& node, const std::string& text) {
  auto op = ir::parse_operand(text);
  if (!op) throw node.fail(op.error().message);
  return *op;
}

// `OUT = IN * IN ...` into the operands of `einsum`.
void parse_einsum_text(const YamlNode& node, ir::Einsum& einsum) {
  std::string text = node.as_string();
  auto sides = split_top(text, '=');
  if (sides.size() != 2 || sides[0].empty() || sides[1].empty())
    throw node.fail("expected `OUT[...] = IN[...] * IN[...]`, got '" + text + "'");
  einsum.output = parse_operand_at(node, sides[0]);
  for (const auto& in : split_top(sides[1], '*'))
    einsum.inputs.push_back(parse_operand_at(node, in));
}

// Tensor names of the operands, inputs first; a per-tensor map key must be one of them.
int tensor_index(const YamlNode& key_node, const std::string& name,
                 const std::vector<std::string>& names) {
  for (size_t i = 0; i < names.size(); ++i)
    if (names[i] == name) return static_cast<int>(i);
  throw key_node.fail("'" + name + "' is not a tensor of the einsum" + nearest_hint(name, names));
}

int64_t dtype_bytes(const YamlNode& node) {
  auto dtype = ir::parse_dtype(node.as_string());
  if (!dtype)
    throw node.fail("unknown dtype '" + node.as_string() + "'; expected one of " +
                    ir::dtype_names());
  if (ir::block_elements(*dtype) > 1)
    throw node.fail("dtype '" + node.as_string() +
                    "' is a block type (a shared exponent per block); the mapper counts whole "
                    "bytes per element: give the tensor's element_bytes instead");
  return static_cast<int64_t>(ir::element_bytes(*dtype));
}

// Whole bytes per element for the mapper, whose model counts bytes per element in integers: a
// block type (bfp8, 1.0625) is rounded up, an upper bound on its traffic and footprint.
int64_t whole_element_bytes(ir::DType dtype) {
  return static_cast<int64_t>(std::ceil(ir::element_bytes(dtype)));
}

ProblemTypes parse_types(const YamlNode& root, const std::vector<std::string>& names) {
  size_t n = names.size();
  ProblemTypes types;
  int64_t fallback = root.has("dtype") ? dtype_bytes(root.child("dtype")) : 2;
  types.element_bytes.assign(n, fallback);
  if (root.has("dtypes"))
    for (const auto& [name, value] : root.child("dtypes").entries())
      types.element_bytes[tensor_index(value, name, names)] = dtype_bytes(value);
  if (root.has("element_bytes"))
    for (const auto& [name, value] : root.child("element_bytes").entries())
      types.element_bytes[tensor_index(value, name, names)] = value.as_int(1, 1024);
  for (size_t i = 0; i < n; ++i)
    types.roles.push_back(i + 1 == n ? TensorRole::output
                          : i == 0   ? TensorRole::input
                                     : TensorRole::weight);
  if (root.has("roles"))
    for (const auto& [name, value] : root.child("roles").entries()) {
      size_t i = static_cast<size_t>(tensor_index(value, name, names));
      std::string role = value.as_string();
      if (i + 1 == n) throw value.fail("the output's role is always `output`");
      if (role != "input" && role != "weight")
        throw value.fail("an input's role is `input` or `weight`, got '" + role + "'");
      types.roles[i] = role == "input" ? TensorRole::input : TensorRole::weight;
    }
  return types;
}

Problem parse_root(const YamlNode& root, const std::string& default_name) {
  if (!root.is_map()) throw root.fail("a workload is a map with `einsum` and `ranks`");
  root.only_keys(
      {"name", "description", "einsum", "ranks", "dtype", "dtypes", "element_bytes", "roles"});
  ir::Einsum einsum;
  parse_einsum_text(root.child("einsum"), einsum);
  for (const auto& [name, value] : root.child("ranks").entries())
    einsum.ranks.push_back({name, value.as_int(1, int64_t{1} << 40)});
  std::vector<std::string> names;
  for (const auto& in : einsum.inputs) names.push_back(in.tensor);
  names.push_back(einsum.output.tensor);
  ProblemTypes types = parse_types(root, names);
  auto problem = make_problem(root.get_string("name", default_name), einsum, types);
  if (!problem) throw root.child("einsum").fail(problem.error().message);
  return std::move(problem).take();
}

Result<Problem> from_root(Result<YamlNode> root, const fs::path& file) {
  if (!root) return root.error();
  try {
    return parse_root(*root, file.stem().string());
  } catch (const Failure& f) {
    return f.error();
  }
}

}  // namespace

Result<Problem> parse_workload_node(const YamlNode& root, const std::string& default_name) {
  try {
    return parse_root(root, default_name);
  } catch (const Failure& f) {
    return f.error();
  }
}

Result<Problem> read_workload_file(const fs::path& file) {
  return from_root(YamlNode::load_file(file.string()), file);
}

Result<Problem> parse_workload_text(const std::string& text, const fs::path& file) {
  return from_root(YamlNode::load_string(text, file.string()), file);
}

std::vector<fs::path> workload_dirs() {
  return preset_dirs("workloads", TESSERA_SOURCE_WORKLOADS_DIR);
}

std::vector<std::string> workload_presets() {
  return preset_names(workload_dirs());
}

Result<Problem> resolve_workload(const std::string& name_or_path) {
  if (looks_like_path(name_or_path)) return read_workload_file(name_or_path);
  auto file = find_preset("workload", name_or_path, workload_dirs());
  if (!file) return file.error();
  return read_workload_file(*file);
}

Result<OpProblem> problem_from_op(const ir::Graph& graph, const std::string& op_name) {
  const ir::Op* op = nullptr;
  std::vector<std::string> names;
  for (const auto& o : graph.ops()) {
    names.push_back(o.name);
    if (o.name == op_name) op = &o;
  }
  if (!op) {
    return input_error("model '" + graph.name() + "' has no op '" + op_name + "'" +
                       nearest_hint(op_name, names, "; did you mean ", "?") +
                       " (`tessera inspect` lists the ops)");
  }
  OpProblem out;
  ir::Einsum einsum = op->einsum;
  auto fn = ir::find_point_fn(einsum.fn);
  size_t arity = fn ? static_cast<size_t>(std::max(fn->arity, 1)) : einsum.inputs.size();
  while (einsum.inputs.size() > arity) {
    out.epilogue.push_back(einsum.inputs.back().tensor);
    einsum.inputs.pop_back();
  }
  ProblemTypes types;
  bool have_input = false;
  for (size_t i = 0; i <= einsum.inputs.size(); ++i) {
    bool last = i == einsum.inputs.size();
    const ir::Tensor& t =
        graph.storage_tensor(last ? einsum.output.tensor : einsum.inputs[i].tensor);
    types.element_bytes.push_back(whole_element_bytes(t.dtype));
    bool weight = t.role == ir::TensorRole::weight || (have_input && !last);
    types.roles.push_back(last     ? TensorRole::output
                          : weight ? TensorRole::weight
                                   : TensorRole::input);
    have_input = have_input || (!last && !weight);
  }
  auto problem = make_problem(op->name, einsum, types);
  if (!problem) return problem.error();
  out.problem = std::move(problem).take();
  return out;
}

std::string yaml_scalar(const std::string& text) {
  YAML::Emitter out;
  out << YAML::DoubleQuoted << text;
  return out.c_str();
}

std::string workload_yaml(const Problem& p, const std::string& indent) {
  std::string out = indent + "name: " + yaml_scalar(p.name) + "\n";
  out += indent + "einsum: " + p.einsum_text() + "\n";
  std::string ranks, bytes, roles;
  for (int r = 0; r < p.num_ranks(); ++r)
    ranks += (r ? ", " : "") + p.rank_names[r] + ": " + std::to_string(p.rank_extents[r]);
  for (int t = 0; t < p.num_tensors(); ++t) {
    bytes +=
        (t ? ", " : "") + p.tensors[t].name + ": " + std::to_string(p.tensors[t].element_bytes);
    if (t != p.output())
      roles += (t ? ", " : "") + p.tensors[t].name + ": " + to_string(p.tensors[t].role);
  }
  out += indent + "ranks: {" + ranks + "}\n";
  out += indent + "element_bytes: {" + bytes + "}\n";
  out += indent + "roles: {" + roles + "}\n";
  return out;
}

}  // namespace tessera::mapper
