// Building blocks shared by the zoo's graph builders: a thin writer over ir::GraphBuilder whose ops
// are given in the Einsum text form (`x[b,s,k]`), and the layers transformers are made of. Tensor
// layout: activations are [batch, tokens, features...] with ranks b, s (query tokens), t (key
// tokens), n (hidden), k (a contraction), h/g/r (heads, KV groups, heads per group), d (head dim).
#pragma once

#include <functional>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "framework/frontend/zoo/model_spec.hpp"
#include "framework/frontend/zoo/precision.hpp"
#include "framework/ir/graph.hpp"

namespace tessera::zoo {

using Ranks = std::vector<ir::Rank>;

class ZooGraph {
 public:
  ZooGraph(std::string name, ir::DType dtype, std::optional<ir::DType> weight_dtype = std::nullopt,
           const Precision* precision = nullptr, bool decode = true)
      : builder_(std::move(name)),
        dtype_(dtype),
        weight_dtype_(weight_dtype.value_or(dtype)),
        precision_(precision),
        decode_(decode) {}
  ir::DType dtype() const { return dtype_; }
  // Each returns the tensor's name. Activations use the model's dtype, weights the weight dtype
  // (the model's unless --weight-dtype gives another) or their precision group's, the KV cache
  // (role kv_cache) the precision's kv_cache type when it gives one.
  std::string tensor(const std::string& name, std::vector<int64_t> shape, ir::TensorRole role,
                     ir::DType dtype);
  std::string weight(const std::string& name, std::vector<int64_t> shape);
  std::string activation(const std::string& name, std::vector<int64_t> shape);
  // `base` seen with another shape (a reshape: no op, no bytes moved).
  std::string view(const std::string& name, std::vector<int64_t> shape, const std::string& base);
  // An op writing the existing tensor named by `output`'s operand.
  void op(const std::string& name, ir::OpKind kind, const std::string& fn, const Ranks& ranks,
          const std::vector<std::string>& inputs, const std::string& output);
  // Input error when the precision names a tensor group this graph has no tensor of.
  ir::Graph finish(const std::vector<std::string>& outputs);

 private:
  // The precision's type for `group` (marking it used), else `fallback`.
  ir::DType group_dtype(const std::string& group, ir::DType fallback);

  ir::GraphBuilder builder_;
  ir::DType dtype_;
  ir::DType weight_dtype_;
  const Precision* precision_;
  bool decode_;
  std::set<std::string> groups_;  // the tensor groups this graph has a tensor of
};

// The leading (token) part of a projection: loop ranks, how they index the input and the output,
// and the output's leading dims. tokens(b, s) is the usual [b, s] part.
struct Rows {
  Ranks ranks;
  std::string x_index;
  std::string y_index;
  std::vector<int64_t> y_shape;
};
Rows tokens(int64_t batch, int64_t seq);

// y[rows, out...] = Σ x[rows, in...] · w[in..., out...] (+ bias[out...]); `in` and `out` name the
// contracted and produced feature ranks, e.g. in {{"k", 5120}}, out {{"h", 40}, {"d", 128}}.
// Weight `name.weight`, output tensor `name`.
std::string linear(ZooGraph& g, const std::string& name, const std::string& x, const Ranks& in,
                   const Ranks& out, bool bias, const Rows& rows);

enum class Affine { none, scale, scale_bias };
// Normalisation over the hidden rank n of x[b,s,n]; output tensor `name`.
std::string norm(ZooGraph& g, const std::string& name, const std::string& x, Norm kind,
                 Affine affine, int64_t batch, int64_t seq, int64_t hidden);

// out[ranks...] = fn(inputs...) for the operands given; output tensor `name` shaped by `ranks`.
std::string pointwise(ZooGraph& g, const std::string& name, ir::OpKind kind, const std::string& fn,
                      const std::vector<std::string>& inputs, const Ranks& ranks);
// The ranks {b, s, n} of a [batch, seq, features] activation.
Ranks bsn(int64_t batch, int64_t seq, int64_t features);

struct AttentionShape {
  int64_t batch, queries, keys, heads, kv_heads, head_dim;
  bool softcap = false;
};
// Scores, (soft-cap), softmax and the weighted sum of values. `q` builds the query operand from
// the head index expression (ranks b, s, d); `k` and `v` are operands over ranks b, t, g, d.
// Returns the output tensor [b, s, heads, d].
std::string attention(ZooGraph& g, const std::string& prefix, const AttentionShape& shape,
                      const std::function<std::string(const std::string&)>& q, const std::string& k,
                      const std::string& v);

// The point function of an activation, and of a gated activation (act(a) * b).
std::string activation_fn(Activation a);
std::string gated_fn(Activation a);

}  // namespace tessera::zoo
