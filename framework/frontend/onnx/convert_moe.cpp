// MixtureOfExperts (moe.hpp's fused node) as the zoo's MoE ops (frontend/zoo/decoder.cpp,
// Decoder::moe), with the same kinds, functions and ranks, so an imported block and a zoo block of
// the same shape cost the same: the router, its top-k, each expected-active expert's dispatch
// (a gather of its rows), MLP and down projection into one [experts, rows, hidden] tensor, each
// shared expert's MLP over every token, and the combine that gathers each token's k outputs,
// weighs them by the router's scores and adds the shared experts'. How many experts run and over
// how many rows is zoo::expert_load's expectation for the block's tokens (uniform routing, or
// Zipf under OnnxOptions::expert_skew) on
// chip 0 of OnnxOptions::expert_parallel, which holds experts 0, ep, 2ep, ...: each expert is
// given its own initializers, so on one chip a block whose every expert is expected to see a
// token holds exactly the export's weights.
#include "framework/frontend/onnx/attributes.hpp"
#include "framework/frontend/onnx/converters.hpp"
#include "framework/frontend/onnx/moe.hpp"
#include "framework/frontend/zoo/builders.hpp"

namespace tessera::onnx_import {

namespace {

using ir::OpKind;
using Ranks = std::vector<ir::Rank>;

ir::Operand at(const std::string& tensor, std::vector<ir::IndexExpr> index) {
  return operand(tensor, std::move(index));
}

class MoeBuilder {
 public:
  explicit MoeBuilder(NodeContext& ctx) : ctx_(ctx) {
    const auto& n = ctx.node();
    top_k_ = attr_int(n, "top_k", 0);
    shared_ = attr_int(n, "shared_experts", 0);
    per_expert_ = attr_int(n, "gated", 1) == 1 ? 3 : 2;
    activation_ = attr_string(n, "activation", "silu");
    Dims x = ctx.shape(0), y = ctx.out_shape();
    hidden_ = x.back();
    tokens_ = 1;
    for (size_t d = 0; d + 1 < x.size(); ++d) tokens_ *= x[d];
    batch_ = y.size() == 3 ? y[0] : 1;
    queries_ = tokens_ / batch_;
    experts_ = ctx.shape(1)[1];
    if (y.back() != hidden_ || batch_ * queries_ != tokens_ ||
        ctx.inputs() != 2 + (experts_ + shared_) * per_expert_)
      throw ctx.fail("the block's output must be its input's tokens by its hidden size");
    dtype_ = ctx.dtype(0);
    ep_ = ctx.options().expert_parallel;
    if (ep_ < 1 || experts_ % ep_ != 0)
      throw ctx.fail("expert parallelism over " + std::to_string(ep_) + " chips does not divide " +
                     "the block's " + std::to_string(experts_) + " experts");
  }

  void build() {
    const std::string x = ctx_.in(0);
    const std::string h = ctx_.temp_view("tokens3", {batch_, queries_, hidden_}, x);
    const std::string router = ctx_.temp("router", {batch_, queries_, experts_}, dtype_);
    ctx_.op(OpKind::matmul, "mac",
            {{"b", batch_}, {"s", queries_}, {"k", hidden_}, {"e", experts_}},
            {bs(h, "k"), at(ctx_.in(1), {rank("k"), rank("e")})}, bs(router, "e"), "router");
    const std::string topk = ctx_.temp("router_topk", {batch_, queries_, top_k_}, ir::DType::int32);
    ctx_.op(OpKind::reduction, "topk",
            {{"b", batch_}, {"s", queries_}, {"e", experts_}, {"j", top_k_}}, {bs(router, "e")},
            bs(topk, "j"), "router_topk");
    const std::string rows_out =
        routed(ctx_.temp_view("router_topk.flat", {tokens_ * top_k_}, topk),
               ctx_.temp_view("tokens", {tokens_, hidden_}, x));
    std::vector<ir::Operand> inputs{bs(topk, "j"), at(rows_out, {indirect(0), rank("n")}),
                                    at(router, {rank("b"), rank("s"), indirect(0)})};
    for (int64_t e = 0; e < shared_; ++e) inputs.push_back(bs(shared(h, e), "n"));
    const std::string out = ctx_.temp("moe", {batch_, queries_, hidden_}, dtype_);
    ctx_.op(OpKind::gather, "mac", {{"b", batch_}, {"s", queries_}, {"j", top_k_}, {"n", hidden_}},
            std::move(inputs), bs(out, "n"));
    ctx_.view_of(0, out);
  }

 private:
  ir::Operand bs(const std::string& tensor, const char* last) const {
    return at(tensor, {rank("b"), rank("s"), rank(last)});
  }
  // Input index of expert e's projection `p` (0: gate or up, then up, then down).
  int weight(int64_t expert, int p) const { return static_cast<int>(2 + expert * per_expert_ + p); }

  // The expected-active routed experts over their rows; returns experts_out seen as rows.
  std::string routed(const std::string& picks, const std::string& flat) {
    zoo::ModelSpec spec;
    spec.experts = experts_;
    spec.experts_per_token = top_k_;
    zoo::RunShape shape;  // a decode step of `tokens_` users: every token routed once
    shape.batch = tokens_;
    shape.expert_skew = ctx_.options().expert_skew;
    zoo::Shard shard;
    shard.ep = ep_;
    const zoo::ExpertLoad load = zoo::expert_load(spec, shape, shard);
    const int64_t rows = load.rows, width = ctx_.shape(weight(0, 0))[1];
    const std::string outs = ctx_.temp("experts_out", {load.experts, rows, hidden_}, dtype_);
    for (int64_t e = 0; e < load.experts; ++e) {
      const std::string p = "experts." + std::to_string(e) + ".";
      const std::string in = ctx_.temp(p + "dispatch", {rows, hidden_}, dtype_);
      ctx_.op(OpKind::gather, "copy", {{"r", rows}, {"n", hidden_}},
              {at(picks, {rank("r")}), at(flat, {indirect(0), rank("n")})},
              at(in, {rank("r"), rank("n")}), p + "dispatch");
      const int64_t held = e * ep_;  // round-robin placement: expert i on chip i mod ep
      std::string act = mlp_in(p, {{"r", rows}}, in, held, width);
      ctx_.op(OpKind::matmul, "mac", {{"r", rows}, {"k", width}, {"n", hidden_}},
              {at(act, {rank("r"), rank("k")}),
               at(ctx_.in(weight(held, per_expert_ - 1)), {rank("k"), rank("n")})},
              at(outs, {constant(e), rank("r"), rank("n")}), p + "down_proj");
    }
    return ctx_.temp_view("experts_out.rows", {load.experts * rows, hidden_}, outs);
  }

  // Shared expert e's MLP over every token ("shared." as the zoo names it when there is one).
  std::string shared(const std::string& h, int64_t e) {
    const std::string p = shared_ == 1 ? "shared." : "shared." + std::to_string(e) + ".";
    const int64_t expert = experts_ + e, width = ctx_.shape(weight(expert, 0))[1];
    std::string act = mlp_in(p, {{"b", batch_}, {"s", queries_}}, h, expert, width);
    const std::string down = ctx_.temp(p + "down_proj", {batch_, queries_, hidden_}, dtype_);
    ctx_.op(OpKind::matmul, "mac", {{"b", batch_}, {"s", queries_}, {"k", width}, {"n", hidden_}},
            {bs(act, "k"), at(ctx_.in(weight(expert, per_expert_ - 1)), {rank("k"), rank("n")})},
            bs(down, "n"), p + "down_proj");
    return down;
  }

  // The gate and up projections (or the up alone) of `expert` over rows `lead` of `in`, and the
  // activation: returns the activation's tensor [lead..., width].
  std::string mlp_in(const std::string& p, const Ranks& lead, const std::string& in, int64_t expert,
                     int64_t width) {
    std::vector<ir::IndexExpr> rows = indices_of(lead);
    Dims shape;
    for (const auto& r : lead) shape.push_back(r.extent);
    shape.push_back(width);
    auto project = [&](const std::string& name, int w) {
      std::string out = ctx_.temp(p + name, shape, dtype_);
      Ranks ranks = lead;
      ranks.push_back({"k", hidden_});
      ranks.push_back({"n", width});
      ctx_.op(OpKind::matmul, "mac", ranks,
              {at(in, with(rows, "k")), at(ctx_.in(weight(expert, w)), {rank("k"), rank("n")})},
              at(out, with(rows, "n")), p + name);
      return out;
    };
    Ranks act_ranks = lead;
    act_ranks.push_back({"n", width});
    std::string act = ctx_.temp(p + "act", shape, dtype_);
    if (per_expert_ == 3) {
      std::string gate = project("gate_proj", 0), up = project("up_proj", 1);
      ctx_.op(OpKind::elementwise, activation_ + "_mul", act_ranks,
              {at(gate, with(rows, "n")), at(up, with(rows, "n"))}, at(act, with(rows, "n")),
              p + "act");
    } else {
      std::string up = project("up_proj", 0);
      ctx_.op(OpKind::unary, activation_, act_ranks, {at(up, with(rows, "n"))},
              at(act, with(rows, "n")), p + "act");
    }
    return act;
  }

  static std::vector<ir::IndexExpr> with(std::vector<ir::IndexExpr> index, const char* last) {
    index.push_back(rank(last));
    return index;
  }

  NodeContext& ctx_;
  int64_t top_k_ = 0, shared_ = 0, per_expert_ = 3, hidden_ = 0, tokens_ = 0, batch_ = 1,
          queries_ = 0, experts_ = 0, ep_ = 1;
  std::string activation_;
  ir::DType dtype_ = ir::DType::fp32;
};

void mixture_of_experts(NodeContext& ctx) {
  MoeBuilder(ctx).build();
}

const std::string kMoeSource = std::string("onnx ") + kMoeOpType;

}  // namespace

Result<MoeBlocks> moe_blocks(const ir::Graph& graph) {
  MoeBlocks found;
  const auto& ops = graph.ops();
  for (size_t i = 0; i + 1 < ops.size(); ++i) {
    const ir::Op& op = ops[i];
    if (op.source != kMoeSource || !op.name.ends_with(".router")) continue;
    MoeBlocks b;
    b.blocks = found.blocks + 1;
    int64_t hidden = 0;
    b.tokens = 1;
    for (const ir::Rank& r : op.einsum.ranks) {
      if (r.name == "b" || r.name == "s") b.tokens *= r.extent;
      if (r.name == "k") hidden = r.extent;
      if (r.name == "e") b.experts = r.extent;
    }
    const ir::Tensor* out = graph.find_tensor(op.einsum.output.tensor);
    b.token_bytes = static_cast<double>(hidden) * ir::element_bytes(out->dtype);
    for (const ir::Rank& r : ops[i + 1].einsum.ranks)  // the router's top-k follows it
      if (r.name == "j") b.top_k = r.extent;
    if (found.blocks > 0 && (b.experts != found.experts || b.top_k != found.top_k ||
                             b.tokens != found.tokens || b.token_bytes != found.token_bytes))
      return input_error(graph.name() + ": mixture-of-experts block '" + op.name +
                         "' differs from the first in its experts, top-k, tokens or hidden "
                         "size; expert parallelism takes blocks of one shape");
    found = b;
  }
  return found;
}

void add_moe_converter(ConverterTable& table) {
  table[kMoeOpType] = mixture_of_experts;
}

}  // namespace tessera::onnx_import
