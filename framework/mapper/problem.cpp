#include "framework/mapper/problem.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>

namespace tessera::mapper {

namespace {
constexpr double kMaxPoints = 1e18;  // as a graph's ops (ir/graph.cpp)
}  // namespace

const char* to_string(TensorRole role) {
  switch (role) {
    case TensorRole::input:
      return "input";
    case TensorRole::weight:
      return "weight";
    case TensorRole::output:
      return "output";
  }
  return "?";
}

double Problem::points() const {
  double p = 1;
  for (int64_t e : rank_extents) p *= static_cast<double>(e);
  return p;
}

double Problem::tile_elements(int t, const std::vector<double>& sizes) const {
  double elements = 1;
  for (const auto& dim : tensors[t].dims) {
    double extent = 1;
    for (const auto& term : dim.terms)
      extent += static_cast<double>(term.coeff) * (sizes[term.rank] - 1);
    elements *= extent;
  }
  return elements;
}

double Problem::tensor_elements(int t) const {
  std::vector<double> sizes(rank_extents.begin(), rank_extents.end());
  return tile_elements(t, sizes);
}

int Problem::find_rank(const std::string& n) const {
  auto it = std::find(rank_names.begin(), rank_names.end(), n);
  return it == rank_names.end() ? -1 : static_cast<int>(it - rank_names.begin());
}

int Problem::find_tensor(const std::string& n) const {
  for (int t = 0; t < num_tensors(); ++t)
    if (tensors[t].name == n) return t;
  return -1;
}

namespace {

Relevance relevance_of(const TensorInfo& tensor, int rank) {
  Relevance rel = Relevance::irrelevant;
  for (const auto& dim : tensor.dims)
    for (const auto& term : dim.terms)
      if (term.rank == rank) {
        if (dim.terms.size() > 1) return Relevance::partial;
        rel = Relevance::full;
      }
  return rel;
}

Result<TensorInfo> convert_operand(const Problem& p, const ir::Operand& op, TensorRole role,
                                   int64_t element_bytes) {
  TensorInfo info{op.tensor, role, element_bytes, {}};
  for (const auto& expr : op.index) {
    if (expr.is_indirect())
      return input_error("operand " + op.str() + ": the index " + expr.str() +
                         " is chosen at run time; the mapper models affine Einsums only");
    TensorDim dim;
    for (const auto& term : expr.terms) {
      int r = p.find_rank(term.rank);
      if (r < 0) {
        std::string ranks;
        for (const auto& n : p.rank_names) ranks += (ranks.empty() ? "" : ", ") + n;
        return input_error("operand " + op.str() + ": rank '" + term.rank +
                           "' is not among the ranks (" + ranks + "); give its extent in `ranks`");
      }
      if (term.coeff != 0) dim.terms.push_back({r, std::llabs(term.coeff)});
    }
    info.dims.push_back(dim);
  }
  return info;
}

}  // namespace

std::string Problem::operand_text(int t) const {
  std::string s = tensors[t].name + "[";
  for (size_t d = 0; d < tensors[t].dims.size(); ++d) {
    if (d) s += ",";
    const auto& terms = tensors[t].dims[d].terms;
    if (terms.empty()) s += "0";
    for (size_t i = 0; i < terms.size(); ++i) {
      if (i) s += "+";
      if (terms[i].coeff != 1) s += std::to_string(terms[i].coeff) + "*";
      s += rank_names[terms[i].rank];
    }
  }
  return s + "]";
}

std::string Problem::einsum_text() const {
  std::string s = operand_text(output()) + " =";
  for (int t = 0; t < output(); ++t) s += (t ? " * " : " ") + operand_text(t);
  return s;
}

std::string Problem::str() const {
  std::string s = name + ": " + einsum_text() + " with";
  for (int r = 0; r < num_ranks(); ++r)
    s += " " + rank_names[r] + "=" + std::to_string(rank_extents[r]);
  return s;
}

Result<Problem> make_problem(const std::string& name, const ir::Einsum& einsum,
                             const ProblemTypes& types) {
  Problem p;
  p.name = name;
  for (const auto& rank : einsum.ranks) {
    if (rank.extent < 1)
      return input_error("rank '" + rank.name + "' has extent " + std::to_string(rank.extent) +
                         "; extents must be at least 1");
    p.rank_names.push_back(rank.name);
    p.rank_extents.push_back(rank.extent);
  }
  if (einsum.inputs.empty()) return input_error(name + ": an Einsum needs at least one input");
  // Tile sizes multiply in 64 bits, and beyond 1e18 points (MACs) no single Einsum is mapped by
  // any accelerator; a graph refuses such ops too.
  if (p.points() > kMaxPoints)
    return input_error(name + ": the ranks' extents multiply to " +
                       fmt::format("{:.3g}", p.points()) +
                       " points; the mapper takes at most 1e18");
  if (p.num_ranks() > 60)  // the curried model keeps a 64-bit set of ranks per factor
    return input_error(name + ": " + std::to_string(p.num_ranks()) +
                       " ranks; the mapper handles at most 60");
  std::vector<const ir::Operand*> operands;
  for (const auto& in : einsum.inputs) operands.push_back(&in);
  operands.push_back(&einsum.output);
  size_t n = operands.size();
  if (!types.element_bytes.empty() && types.element_bytes.size() != n)
    return Error{ErrorKind::internal, StatusCode::internal, "element_bytes per operand mismatch"};
  for (size_t i = 0; i < n; ++i) {
    TensorRole role = i + 1 == n ? TensorRole::output
                      : i == 0   ? TensorRole::input
                                 : TensorRole::weight;
    if (!types.roles.empty()) role = types.roles[i];
    int64_t bytes = types.element_bytes.empty() ? 2 : types.element_bytes[i];
    auto info = convert_operand(p, *operands[i], role, bytes);
    if (!info) return info.error();
    if (!types.tensor_names.empty()) info->name = types.tensor_names[i];
    if (p.find_tensor(info->name) >= 0)
      return input_error(name + ": tensor '" + info->name +
                         "' is used by two operands; give each operand its own tensor name");
    p.tensors.push_back(std::move(*info));
  }
  p.relevance.assign(p.num_tensors(), std::vector<Relevance>(p.num_ranks()));
  for (int t = 0; t < p.num_tensors(); ++t)
    for (int r = 0; r < p.num_ranks(); ++r) p.relevance[t][r] = relevance_of(p.tensors[t], r);
  return p;
}

}  // namespace tessera::mapper
