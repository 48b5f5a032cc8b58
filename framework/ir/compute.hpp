// What an op computes, apart from its indexing: its kind (the ABI's tessera_op_kind, equal values)
// and the point function applied at every point of the Einsum's iteration space. FLOPs are derived
// from these, never entered per op: flops = flops_per_point(fn) × points + one FLOP per output
// element for every input beyond the function's arity (a bias or residual folded into the op).
#pragma once

#include <tessera/plugin_abi.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace tessera::ir {

enum class OpKind : uint32_t {
  matmul = TESSERA_OP_MATMUL,
  batched_matmul = TESSERA_OP_BATCHED_MATMUL,
  conv = TESSERA_OP_CONV,
  elementwise = TESSERA_OP_ELEMENTWISE,
  unary = TESSERA_OP_UNARY,
  reduction = TESSERA_OP_REDUCTION,
  softmax = TESSERA_OP_SOFTMAX,
  normalization = TESSERA_OP_NORMALIZATION,
  gather = TESSERA_OP_GATHER,
  data_movement = TESSERA_OP_DATA_MOVEMENT,
  other = TESSERA_OP_OTHER,
};

const char* to_string(OpKind kind);
std::optional<OpKind> parse_op_kind(std::string_view text);
std::string op_kind_names();

// A point function: its name, how many inputs it combines, and its cost per iteration point.
// Transcendentals (exp, erf, tanh, sqrt) count one FLOP each; composite functions count their
// parts (sigmoid = neg, exp, add, div = 4).
struct PointFn {
  const char* name;
  int arity;               // inputs the function itself combines; more inputs are epilogue adds
  double flops_per_point;  // at every point of the iteration space
  const char* meaning;
};

// nullopt for an unknown name.
std::optional<PointFn> find_point_fn(std::string_view name);
std::string point_fn_names();

}  // namespace tessera::ir
