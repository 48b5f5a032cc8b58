#include "framework/ir/compute.hpp"

#include <array>

namespace tessera::ir {

namespace {

struct KindName {
  OpKind kind;
  const char* name;
};

constexpr std::array<KindName, 11> kKinds = {{
    {OpKind::matmul, "matmul"},
    {OpKind::batched_matmul, "batched_matmul"},
    {OpKind::conv, "conv"},
    {OpKind::elementwise, "elementwise"},
    {OpKind::unary, "unary"},
    {OpKind::reduction, "reduction"},
    {OpKind::softmax, "softmax"},
    {OpKind::normalization, "normalization"},
    {OpKind::gather, "gather"},
    {OpKind::data_movement, "data_movement"},
    {OpKind::other, "other"},
}};

// The cost model of every point function the frontends emit (docs/workloads.md lists them).
constexpr std::array<PointFn, 62> kFns = {{
    {"mac", 2, 2, "multiply-accumulate over the reduced ranks (contractions)"},
    {"copy", 1, 0, "move or broadcast data"},
    {"concat", 1 << 16, 0, "copy each input into its part of the output (Concat)"},
    {"cast", 1, 0, "convert the element type"},
    {"fill", 0, 0, "write a constant"},
    {"placeholder", 0, 0, "an unsupported op skipped with --skip-unsupported (costs nothing)"},
    {"add", 2, 1, "a + b"},
    {"sub", 2, 1, "a - b"},
    {"mul", 2, 1, "a * b"},
    {"div", 2, 1, "a / b"},
    {"pow", 2, 1, "a ^ b"},
    {"mod", 2, 1, "a mod b"},
    {"max", 2, 1, "max(a, b), also max-reduction and max pooling"},
    {"min", 2, 1, "min(a, b), also min-reduction"},
    {"compare", 2, 1, "comparisons and logic (equal, less, and, or, xor)"},
    {"select", 3, 1, "cond ? a : b, operands (a, b, cond)"},
    {"scatter", 2, 0, "data with updates written at the positions an index operand gives"},
    {"topk", 1, 1, "compare each element with the k kept (TopK: points = elements x k)"},
    {"cumsum", 1, 1, "running sum along an axis"},
    {"lu", 1, 2.0 / 3, "LU factorisation: 2/3 n^3 over the n^3 points of i, j, k (Det)"},
    {"interpolate", 1, 2, "multiply-add one interpolation tap (Resize linear, cubic)"},
    {"minmax", 1, 2, "min- and max-reduction at once (dynamic quantisation range)"},
    {"quantize", 3, 3, "round(x / scale) + zero point, saturated"},
    {"dequantize", 3, 2, "(x - zero point) * scale"},
    {"shift", 2, 1, "bit shift"},
    {"lstm_cell", 5, 9, "LSTM cell over (h, c): 3 sigmoids, 2 tanh, c = f*c + i*g, h = o*tanh(c)"},
    {"gru_cell", 4, 14, "GRU cell: 2 sigmoids, tanh, h = (1 - z) * n + z * h"},
    {"fma", 3, 2, "a * b + c (gated residual)"},
    {"prelu", 2, 2, "x < 0 ? a * x : x"},
    {"sum", 1, 1, "sum-reduction"},
    {"mean", 1, 1, "mean-reduction and average pooling"},
    {"sumsq", 1, 2, "sum of squares (L2 reductions)"},
    {"neg", 1, 1, "-x"},
    {"abs", 1, 1, "|x|"},
    {"sqrt", 1, 1, "square root"},
    {"reciprocal", 1, 1, "1 / x"},
    {"exp", 1, 1, "e^x"},
    {"log", 1, 1, "ln x"},
    {"erf", 1, 1, "error function"},
    {"tanh", 1, 1, "hyperbolic tangent"},
    {"trig", 1, 1, "sin, cos and friends"},
    {"round", 1, 1, "floor, ceil, round, sign"},
    {"relu", 1, 1, "max(x, 0)"},
    {"leaky_relu", 1, 2, "x < 0 ? a * x : x"},
    {"clip", 1, 2, "min(max(x, lo), hi)"},
    {"elu", 1, 3, "x < 0 ? a * (e^x - 1) : x (also selu, celu)"},
    {"sigmoid", 1, 4, "1 / (1 + e^-x)"},
    {"hard_sigmoid", 1, 3, "max(0, min(1, a * x + b)) (also hard swish)"},
    {"softplus", 1, 3, "ln(1 + e^x) (also softsign)"},
    {"silu", 1, 5, "x * sigmoid(x)"},
    {"gelu", 1, 5, "0.5 x (1 + erf(x / sqrt 2))"},
    {"gelu_tanh", 1, 9, "0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))"},
    {"silu_mul", 2, 6, "silu(a) * b (SwiGLU)"},
    {"gelu_mul", 2, 6, "gelu(a) * b (GeGLU, erf form)"},
    {"gelu_tanh_mul", 2, 10, "gelu_tanh(a) * b (GeGLU)"},
    {"softcap", 1, 3, "c * tanh(x / c) (Gemma 2 logit soft-capping)"},
    {"rope", 2, 3, "x * cos + rotate(x) * sin (rotary position embedding)"},
    {"modulate", 3, 3, "x * (1 + scale) + shift (DiT adaLN)"},
    {"softmax", 1, 5, "max, subtract, exp, sum, divide along the softmax ranks"},
    {"layernorm", 3, 7, "mean, subtract, square, sum, normalise, scale, shift"},
    {"rmsnorm", 2, 4, "square, sum, normalise, scale"},
    {"batchnorm", 5, 4, "(x - mean) / sqrt(var + eps) * scale + bias"},
}};

}  // namespace

const char* to_string(OpKind kind) {
  for (const auto& k : kKinds)
    if (k.kind == kind) return k.name;
  return "other";
}

std::optional<OpKind> parse_op_kind(std::string_view text) {
  for (const auto& k : kKinds)
    if (text == k.name) return k.kind;
  return std::nullopt;
}

std::string op_kind_names() {
  std::string out;
  for (const auto& k : kKinds) out += (out.empty() ? "" : ", ") + std::string(k.name);
  return out;
}

std::optional<PointFn> find_point_fn(std::string_view name) {
  for (const auto& f : kFns)
    if (name == f.name) return f;
  return std::nullopt;
}

std::string point_fn_names() {
  std::string out;
  for (const auto& f : kFns) out += (out.empty() ? "" : ", ") + std::string(f.name);
  return out;
}

}  // namespace tessera::ir
