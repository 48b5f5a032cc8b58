// apply_splits: output-rank slices write their part of the output and read their part of the
// weights (bytes and FLOPs add up to the op's), reduction slices chain their partial sums (one add
// per output element and slice boundary), a folded bias is added once; and every refusal's text.
#include "framework/planner/split.hpp"

#include <gtest/gtest.h>

#include "framework/ir/analysis.hpp"
#include "framework/ir/repeats.hpp"

namespace tessera::planner {
namespace {

using namespace tessera::ir;

Op make_op(const std::string& name, OpKind kind, const std::string& fn,
           const std::vector<Rank>& ranks, const std::vector<std::string>& inputs,
           const std::string& output) {
  Op op{name, kind, {ranks, {}, parse_operand(output).take(), fn}, "test"};
  for (const auto& in : inputs) op.einsum.inputs.push_back(parse_operand(in).take());
  return op;
}

// y[8,64] = x[8,32] · w[32,64] + b[8,64] (a folded bias: one input beyond mac's arity), then
// softmax over y's last rank.
Graph mlp() {
  GraphBuilder b("mlp");
  b.add_tensor({"x", {8, 32}, DType::fp16, TensorRole::input, ""}).take();
  b.add_tensor({"w", {32, 64}, DType::fp16, TensorRole::weight, ""}).take();
  b.add_tensor({"b", {8, 64}, DType::fp16, TensorRole::weight, ""}).take();
  b.add_tensor({"y", {8, 64}, DType::fp16, TensorRole::activation, ""}).take();
  b.add_tensor({"p", {8, 64}, DType::fp16, TensorRole::activation, ""}).take();
  b.add_op(make_op("fc", OpKind::matmul, "mac", {{"m", 8}, {"k", 32}, {"n", 64}},
                   {"x[m,k]", "w[k,n]", "b[m,n]"}, "y[m,n]"))
      .take();
  b.add_op(make_op("sm", OpKind::softmax, "softmax", {{"m", 8}, {"n", 64}}, {"y[m,n]"}, "p[m,n]"))
      .take();
  b.mark_output("p").take();
  return b.finish();
}

double total(const Graph& g, double OpCost::*field, size_t first, size_t count) {
  double sum = 0;
  for (size_t i = first; i < first + count; ++i) sum += op_cost(g, g.ops()[i]).*field;
  return sum;
}

TEST(ApplySplits, OutputRankSlicesAreIndependentAndAddUpToTheOp) {
  Graph g = mlp();
  Graph s = apply_splits(g, {{"fc", "n", 4}}).take();
  ASSERT_EQ(s.ops().size(), 5u);
  EXPECT_EQ(s.ops()[0].name, "fc@n0/4");
  EXPECT_EQ(s.ops()[3].name, "fc@n3/4");
  EXPECT_EQ(s.ops()[2].einsum.str(), "mac([m,k],[k,n+32],[m,n+32])->[m,n+32]");
  EXPECT_EQ(s.ops()[2].einsum.ranks_str(), "m=8 k=32 n=16");
  EXPECT_EQ(s.ops()[2].einsum.inputs[1].str(), "w[k,n+32]");
  EXPECT_EQ(s.ops()[2].einsum.output.str(), "y[m,n+32]");
  OpCost unsplit = op_cost(g, g.ops()[0]);
  EXPECT_DOUBLE_EQ(total(s, &OpCost::flops, 0, 4), unsplit.flops);
  EXPECT_DOUBLE_EQ(total(s, &OpCost::bytes_out, 0, 4), unsplit.bytes_out);
  // x is read whole by every slice (the re-reads a split costs), w and b a quarter each.
  EXPECT_DOUBLE_EQ(total(s, &OpCost::hbm_bytes_in, 0, 4), unsplit.hbm_bytes_in + 3 * 8 * 32 * 2);
  EXPECT_EQ(identical_ops(s).first_op, (std::vector<int>{0, 4})) << "the slices are one class";
  EXPECT_EQ(edges(s).op_preds[4], (std::vector<int>{0, 1, 2, 3}));
}

TEST(ApplySplits, ReductionSlicesChainPartialSumsAndAddTheBiasOnce) {
  Graph g = mlp();
  Graph s = apply_splits(g, {{"fc", "k", 4}}).take();
  ASSERT_EQ(s.ops().size(), 5u);
  EXPECT_EQ(s.ops()[0].einsum.inputs.size(), 2u) << "x and w: nothing to add to yet";
  EXPECT_EQ(s.ops()[1].einsum.inputs.back().str(), "fc@k0/4.partial[m,n]");
  EXPECT_EQ(s.ops()[1].einsum.output.str(), "fc@k1/4.partial[m,n]");
  EXPECT_EQ(s.ops()[3].einsum.inputs.size(), 4u) << "x, w, the bias and the partial sums";
  EXPECT_EQ(s.ops()[3].einsum.output.str(), "y[m,n]");
  EXPECT_EQ(s.find_tensor("fc@k0/4.partial")->shape, (std::vector<int64_t>{8, 64}));
  OpCost unsplit = op_cost(g, g.ops()[0]);
  EXPECT_DOUBLE_EQ(total(s, &OpCost::flops, 0, 4), unsplit.flops + 3 * 8 * 64)
      << "one add per output element at each of the three boundaries";
  EXPECT_DOUBLE_EQ(total(s, &OpCost::hbm_bytes_in, 0, 4), unsplit.hbm_bytes_in)
      << "x, w and the bias each read once over the slices";
  EXPECT_EQ(identical_ops(s).first_op.size(), 4u) << "first, middle, last slice, softmax";
}

TEST(ApplySplits, AnUnevenRankGivesAShorterLastSlice) {
  Graph s = apply_splits(mlp(), {{"fc", "n", 3}}).take();
  EXPECT_EQ(s.ops()[0].einsum.ranks_str(), "m=8 k=32 n=22");
  EXPECT_EQ(s.ops()[2].einsum.ranks_str(), "m=8 k=32 n=20");
  EXPECT_EQ(s.ops()[2].einsum.output.str(), "y[m,n+44]");
}

TEST(ApplySplits, RefusesWhatCannotBeSplit) {
  Graph g = mlp();
  EXPECT_EQ(apply_splits(g, {{"fc", "q", 2}}).error().message,
            "op 'fc': cannot split along 'q': the op's ranks are m=8 k=32 n=64");
  EXPECT_EQ(apply_splits(g, {{"fc", "m", 6}}).error().message,
            "op 'fc': rank 'm' of extent 8 cannot be cut into 6 slices (2 or more, none of them "
            "empty)");
  EXPECT_EQ(apply_splits(g, {{"fc", "m", 1}}).error().message,
            "op 'fc': rank 'm' of extent 8 cannot be cut into 1 slices (2 or more, none of them "
            "empty)");
  EXPECT_EQ(apply_splits(g, {{"sm", "n", 2}}).error().message,
            "op 'sm': cannot split along 'n': a softmax or normalisation needs the whole rank for "
            "its statistics");
  EXPECT_TRUE(apply_splits(g, {{"sm", "m", 2}}).ok()) << "its rows are independent";
  EXPECT_EQ(apply_splits(g, {{"fc", "n", 2}, {"fc", "k", 2}}).error().message,
            "op 'fc': is split twice");
  EXPECT_EQ(apply_splits(g, {{"nope", "n", 2}}).error().message,
            "split of op 'nope': the graph has no such op");
}

TEST(SliceNames, NameTheirOpAndNothingElseDoes) {
  EXPECT_EQ(sliced_op(slice_name("lm_head", "k", 3, 8)), "lm_head");
  EXPECT_EQ(sliced_op("a@b@n0/2"), "a@b");
  EXPECT_EQ(sliced_op("lm_head"), std::nullopt);
  EXPECT_EQ(sliced_op("lm_head@0/4"), std::nullopt);  // no rank
  EXPECT_EQ(sliced_op("lm_head@k/4"), std::nullopt);  // no index
  EXPECT_EQ(sliced_op("lm_head@k1/"), std::nullopt);  // no count
  EXPECT_EQ(sliced_op("@k1/4"), std::nullopt);        // no op
  EXPECT_EQ(sliced_op("x/y@k1"), std::nullopt);       // slash before the @
}

}  // namespace
}  // namespace tessera::planner
