// An op as an Einsum: named rank variables with extents, and tensors indexed by rank expressions.
// An index expression is affine, Σ coeff·rank + offset (`p+r`, `2*p+r-1` for a strided, padded
// convolution, `4*g+r` for grouped-query heads, `2047` for one KV-cache slot), or indirect, `$i`:
// the position is chosen at run time by the values of input operand i (a gather's table row).
// Points whose affine index falls outside a tensor read padding (conv) or belong to another input
// (concat); they move no bytes. Text forms are what the YAML format and reports show.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "framework/common/status.hpp"

namespace tessera::ir {

struct AffineTerm {
  int64_t coeff = 1;
  std::string rank;
  bool operator==(const AffineTerm&) const = default;
};

struct IndexExpr {
  std::vector<AffineTerm> terms;
  int64_t offset = 0;
  int indirect = -1;  // >= 0: chosen by the values of input operand `indirect`

  bool is_indirect() const { return indirect >= 0; }
  // `k`, `2*p+r-1`, `7`, `$0`.
  std::string str() const;
  bool operator==(const IndexExpr&) const = default;
};

// Parses the text form; the error says what was expected.
Result<IndexExpr> parse_index_expr(std::string_view text);

struct Operand {
  std::string tensor;
  std::vector<IndexExpr> index;  // one per tensor dimension
  // `name[m,k]`.
  std::string str() const;
  bool operator==(const Operand&) const = default;
};

// `name[expr,expr,...]`; the name is everything before the last '['.
Result<Operand> parse_operand(std::string_view text);

struct Rank {
  std::string name;
  int64_t extent = 1;
  bool operator==(const Rank&) const = default;
};

struct Einsum {
  std::vector<Rank> ranks;  // the iteration space, in loop order
  std::vector<Operand> inputs;
  Operand output;
  std::string fn;  // point function (compute.hpp)

  const Rank* find_rank(std::string_view name) const;
  // Points of the iteration space (product of extents); validated not to overflow.
  double points() const;
  // The index part only, tensor names left out: `mac([b,s,k],[k,h,d])->[b,s,h,d]`.
  std::string str() const;
  // `b=16 s=1 k=5120`.
  std::string ranks_str() const;
  bool operator==(const Einsum&) const = default;
};

// Elements of `shape` an operand touches over the whole iteration space: per dimension, the
// affine range clipped to the tensor; an indirect dimension touches at most as many positions as
// its index operand has elements. `index_elements` is that operand's footprint (for `$i`).
double footprint_elements(const Einsum& einsum, const IndexExpr& expr, int64_t dim,
                          double index_elements);

// Lowest and highest value an affine expression takes over the iteration space.
std::pair<int64_t, int64_t> affine_range(const Einsum& einsum, const IndexExpr& expr);

}  // namespace tessera::ir
