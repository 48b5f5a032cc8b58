// apply_splits: output-rank slices write their part of the output and read their part of the
// weights (bytes and FLOPs add up to the op's), reduction slices chain their partial sums (one add
// per output element and slice boundary), a folded bias is added once; chains (attention) cut
// into blocks of queries; and every refusal's text.
#include "framework/planner/split.hpp"

#include <gtest/gtest.h>

#include "framework/ir/analysis.hpp"
#include "framework/ir/repeats.hpp"
#include "framework/planner/attention_tiles.hpp"

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
  Graph s = apply_splits(g, {{"fc", "n", 4, ""}}).take();
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
  Graph s = apply_splits(g, {{"fc", "k", 4, ""}}).take();
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
  Graph s = apply_splits(mlp(), {{"fc", "n", 3, ""}}).take();
  EXPECT_EQ(s.ops()[0].einsum.ranks_str(), "m=8 k=32 n=22");
  EXPECT_EQ(s.ops()[2].einsum.ranks_str(), "m=8 k=32 n=20");
  EXPECT_EQ(s.ops()[2].einsum.output.str(), "y[m,n+44]");
}

TEST(ApplySplits, RefusesWhatCannotBeSplit) {
  Graph g = mlp();
  EXPECT_EQ(apply_splits(g, {{"fc", "q", 2, ""}}).error().message,
            "op 'fc': cannot split along 'q': the op's ranks are m=8 k=32 n=64");
  EXPECT_EQ(apply_splits(g, {{"fc", "m", 6, ""}}).error().message,
            "op 'fc': rank 'm' of extent 8 cannot be cut into 6 slices (2 or more, none of them "
            "empty)");
  EXPECT_EQ(apply_splits(g, {{"fc", "m", 1, ""}}).error().message,
            "op 'fc': rank 'm' of extent 8 cannot be cut into 1 slices (2 or more, none of them "
            "empty)");
  EXPECT_EQ(apply_splits(g, {{"sm", "n", 2, ""}}).error().message,
            "op 'sm': cannot split along 'n': a softmax or normalisation needs the whole rank for "
            "its statistics");
  EXPECT_TRUE(apply_splits(g, {{"sm", "m", 2, ""}}).ok()) << "its rows are independent";
  EXPECT_EQ(apply_splits(g, {{"fc", "n", 2, ""}, {"fc", "k", 2, ""}}).error().message,
            "op 'fc': is split twice");
  EXPECT_EQ(apply_splits(g, {{"nope", "n", 2, ""}}).error().message,
            "split of op 'nope': the graph has no such op");
}

// Attention over 8 positions, 2 sequences, head dimension 4, fp16: scores = q·kᵀ, softmax over
// the keys t, out = probabilities · v. q, k and v are model inputs.
Graph attention() {
  GraphBuilder b("attention");
  for (const char* t : {"q", "k", "v"})
    b.add_tensor({t, {2, 8, 4}, DType::fp16, TensorRole::input, ""}).take();
  b.add_tensor({"scores", {2, 8, 8}, DType::fp16, TensorRole::activation, ""}).take();
  b.add_tensor({"probs", {2, 8, 8}, DType::fp16, TensorRole::activation, ""}).take();
  b.add_tensor({"out", {2, 8, 4}, DType::fp16, TensorRole::activation, ""}).take();
  b.add_op(make_op("qk", OpKind::batched_matmul, "mac", {{"b", 2}, {"s", 8}, {"t", 8}, {"d", 4}},
                   {"q[b,s,d]", "k[b,t,d]"}, "scores[b,s,t]"))
      .take();
  b.add_op(make_op("sm", OpKind::softmax, "softmax", {{"b", 2}, {"s", 8}, {"t", 8}},
                   {"scores[b,s,t]"}, "probs[b,s,t]"))
      .take();
  b.add_op(make_op("pv", OpKind::batched_matmul, "mac", {{"b", 2}, {"s", 8}, {"d", 4}, {"t", 8}},
                   {"probs[b,s,t]", "v[b,t,d]"}, "out[b,s,d]"))
      .take();
  b.mark_output("out").take();
  return b.finish();
}

// Cut into 4 blocks of 2 queries, block after block: each block's scores and probabilities are
// tensors of their own, a quarter of the whole; FLOPs are the chain's; each block reads all of k
// and v (4 × 64 B each) and its quarter of q.
TEST(ApplySplits, AChainIsCutIntoBlocksComputedOneAfterTheOther) {
  Graph g = attention();
  Graph s = apply_splits(g, {{"qk", "s", 4, "pv"}}).take();
  ASSERT_EQ(s.ops().size(), 12u);
  EXPECT_EQ(s.ops()[3].name, "qk@s1/4");
  EXPECT_EQ(s.ops()[3].einsum.str(), "mac([b,s+2,d],[b,t,d])->[b,s,t]");
  EXPECT_EQ(s.ops()[3].einsum.output.tensor, "scores@s1/4");
  EXPECT_EQ(s.ops()[4].einsum.str(), "softmax([b,s,t])->[b,s,t]");
  EXPECT_EQ(s.ops()[4].einsum.inputs[0].tensor, "scores@s1/4");
  EXPECT_EQ(s.ops()[5].einsum.str(), "mac([b,s,t],[b,t,d])->[b,s+2,d]");
  EXPECT_EQ(s.ops()[5].einsum.inputs[0].tensor, "probs@s1/4");
  EXPECT_EQ(s.ops()[5].einsum.output.tensor, "out");
  EXPECT_EQ(s.find_tensor("probs@s3/4")->shape, (std::vector<int64_t>{2, 2, 8}));
  EXPECT_EQ(s.find_tensor("scores"), nullptr);
  Totals whole = totals(g), blocks = totals(s);
  EXPECT_DOUBLE_EQ(blocks.flops, whole.flops);
  EXPECT_DOUBLE_EQ(whole.hbm_bytes_in, 3 * 2 * 8 * 4 * 2.0);             // q, k, v once: 384 B
  EXPECT_DOUBLE_EQ(blocks.hbm_bytes_in, (1 + 2 * 4) * 2 * 8 * 4 * 2.0);  // 1152 B
  EXPECT_DOUBLE_EQ(blocks.bytes_out, whole.bytes_out);
  EXPECT_LT(blocks.peak_live_on_chip_bytes, whole.peak_live_on_chip_bytes);
  EXPECT_EQ(identical_ops(s).first_op, (std::vector<int>{0, 1, 2})) << "blocks are one class";
}

TEST(ApplySplits, RefusesWhatIsNoChain) {
  Graph g = attention();
  EXPECT_EQ(apply_splits(g, {{"qk", "t", 2, "pv"}}).error().message,
            "op 'pv': ends the chain but reduces 't'; a chain is cut along a rank its last op "
            "keeps");
  EXPECT_EQ(apply_splits(g, {{"qk", "d", 2, "sm"}}).error().message,
            "op 'sm': does not continue the chain along 'd': it must be the only reader of "
            "'scores', whose dimension 'd' indexes, and read it by one rank alone");
  EXPECT_EQ(apply_splits(g, {{"pv", "s", 2, "qk"}}).error().message,
            "op 'pv': a chain split needs ops after it, in graph order");
  EXPECT_EQ(apply_splits(g, {{"qk", "s", 2, "nope"}}).error().message,
            "split of ops 'qk' through 'nope': the graph has no such op");
  EXPECT_EQ(apply_splits(g, {{"qk", "s", 2, "sm"}, {"sm", "s", 2, "pv"}}).error().message,
            "op 'sm': is split twice (two chain splits overlap)");
  EXPECT_EQ(apply_splits(g, {{"qk", "s", 16, "pv"}}).error().message,
            "op 'qk': rank 's' of extent 8 cannot be cut into 16 blocks (2 or more, none of them "
            "empty)");
}

// The chain's block ops can be split further, by the names the chain gives them.
TEST(ApplySplits, OpSplitsNameTheBlocksOfAChain) {
  Graph s = apply_splits(attention(), {{"qk", "s", 2, "pv"}, {"qk@s1/2", "t", 2, ""}}).take();
  ASSERT_EQ(s.ops().size(), 7u);
  EXPECT_EQ(s.ops()[3].name, "qk@s1/2@t0/2");
  EXPECT_EQ(s.ops()[4].einsum.str(), "mac([b,s+4,d],[b,t+4,d])->[b,s,t+4]");
}

Machine machine(uint32_t cores, uint64_t sram_bytes) {
  Machine m;
  m.cores = cores;
  m.sram_bytes_per_core = sram_bytes;
  return m;
}

// Scores and probabilities take 512 B: on 2 cores of 64 B they are tiled into 4 blocks of 2
// queries (128 B each); on 2 cores of 256 B they fit and attention is left whole.
TEST(AttentionTiles, BlocksOfQueriesWhoseScoresFitTheSram) {
  Graph g = attention();
  EXPECT_EQ(attention_tiles(g, machine(2, 64)), (std::vector<OpSplit>{{"qk", "s", 4, "pv"}}));
  EXPECT_EQ(attention_tiles(g, machine(2, 16)), (std::vector<OpSplit>{{"qk", "s", 8, "pv"}}))
      << "at most one query per block";
  EXPECT_TRUE(attention_tiles(g, machine(2, 256)).empty());
  EXPECT_TRUE(attention_tiles(mlp(), machine(1, 1)).empty()) << "no attention";
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
