// The mapper's own view of one Einsum: ranks with extents, and tensors whose dimensions are affine
// sums of ranks. Built from an ir::Einsum (the IR is the input type; this flat form is what the
// mapper's models index by small integers). A tile of a tensor spans, per dimension with index
// Σ c·rank, Σ |c|·(size_rank − 1) + 1 elements, where size_rank is the tile's extent in that rank;
// constant offsets (padding) do not change a tile's extent.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "framework/common/status.hpp"
#include "framework/ir/einsum.hpp"

namespace tessera::mapper {

// What a tensor is to the architecture's keep lists (a weight buffer keeps `weight`).
enum class TensorRole { input, weight, output };
const char* to_string(TensorRole role);

struct DimTerm {
  int rank = 0;
  int64_t coeff = 1;  // |c|; the sign does not change a tile's extent
};

// One tensor dimension; no terms means a constant index (extent 1).
struct TensorDim {
  std::vector<DimTerm> terms;
};

// How a rank indexes a tensor. `full`: only ever alone in a dimension (`m`, `2*m`), so a tile's
// size scales with it; `partial`: inside a sum (`p` in `p+r`), so neighbouring tiles overlap
// (halo) and a line buffer can help; `irrelevant`: not in the tensor, so its loops reuse the tile.
enum class Relevance : uint8_t { irrelevant, partial, full };

struct TensorInfo {
  std::string name;
  TensorRole role = TensorRole::input;
  int64_t element_bytes = 2;
  std::vector<TensorDim> dims;
  bool is_output() const { return role == TensorRole::output; }
};

struct Problem {
  std::string name;
  std::vector<std::string> rank_names;
  std::vector<int64_t> rank_extents;
  std::vector<TensorInfo> tensors;                // the inputs in operand order, then the output
  std::vector<std::vector<Relevance>> relevance;  // [tensor][rank]

  int num_ranks() const { return static_cast<int>(rank_names.size()); }
  int num_tensors() const { return static_cast<int>(tensors.size()); }
  int output() const { return num_tensors() - 1; }
  // Iteration points (one MAC each), as a double: up to 2^53 it is exact.
  double points() const;
  // Elements of tensor t in a tile spanning `sizes[r]` in every rank r.
  double tile_elements(int t, const std::vector<double>& sizes) const;
  // The whole tensor's elements (the tile spanning every rank's extent).
  double tensor_elements(int t) const;
  int find_rank(const std::string& name) const;    // -1 if none
  int find_tensor(const std::string& name) const;  // -1 if none
  bool indexes(int t, int r) const { return relevance[t][r] != Relevance::irrelevant; }
  // `Q[b,m,h,e]`, `I[c,2*p+r]` (constant offsets are not kept).
  std::string operand_text(int t) const;
  // `QK[b,m,p,h] = Q[b,m,h,e] * K[b,p,h,e]`.
  std::string einsum_text() const;
  // `qk: QK[b,m,p,h] = Q[b,m,h,e] * K[b,p,h,e] with b=64 m=1024 ...`.
  std::string str() const;
};

// What the IR does not say about an Einsum: bytes per element and role per tensor, by operand
// (inputs in order, then the output). Empty roles: the first input is `input`, the others
// `weight`, the output `output`.
struct ProblemTypes {
  std::vector<int64_t> element_bytes;
  std::vector<TensorRole> roles;
  std::vector<std::string> tensor_names;  // empty: the operands' tensor names
};

// Input errors for what the mapper cannot model: an indirect index ($i), a rank used by no
// operand and absent from the ranks, a tensor named twice, a non-positive extent.
Result<Problem> make_problem(const std::string& name, const ir::Einsum& einsum,
                             const ProblemTypes& types);

}  // namespace tessera::mapper
