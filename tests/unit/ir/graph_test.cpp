#include "framework/ir/graph.hpp"

#include <gtest/gtest.h>

#include "framework/ir/analysis.hpp"
#include "framework/ir/repeats.hpp"

namespace tessera::ir {
namespace {

Op make_op(const std::string& name, OpKind kind, const std::string& fn, std::vector<Rank> ranks,
           const std::vector<std::string>& inputs, const std::string& output) {
  Op op{name, kind, {std::move(ranks), {}, parse_operand(output).take(), fn}, "test"};
  for (const auto& in : inputs) op.einsum.inputs.push_back(parse_operand(in).take());
  return op;
}

TEST(DType, Bfp8IsABlockTypeOfOneAndASixteenthBytes) {
  // bfp8_b: 16 values share one exponent byte; a 32x32 tile is 1024 + 64 = 1088 bytes.
  EXPECT_DOUBLE_EQ(element_bytes(DType::bfp8), 1.0625);
  EXPECT_EQ(block_elements(DType::bfp8), 16);
  EXPECT_EQ(storage_bytes(DType::bfp8, 32 * 32), 1088);
  EXPECT_EQ(storage_bytes(DType::bfp8, 17), 34) << "a partial block takes a whole one";
  EXPECT_EQ(storage_bytes(DType::bfp8, 0), 0);
  EXPECT_EQ(storage_bytes(DType::fp16, 17), 34);
  EXPECT_DOUBLE_EQ(element_bytes(DType::fp8), 1);
  EXPECT_DOUBLE_EQ(element_bytes(DType::fp16), 2);
  EXPECT_EQ(block_elements(DType::fp16), 1);
  EXPECT_EQ(parse_dtype("bfp8"), DType::bfp8);
  EXPECT_STREQ(to_string(DType::bfp8), "bfp8");
  EXPECT_EQ(to_abi(DType::bfp8), TESSERA_DTYPE_BFP8);
  EXPECT_EQ(abi_minor_since(DType::bfp8), 2u);
  EXPECT_EQ(abi_minor_since(DType::fp8), 0u);
  EXPECT_EQ(abi_minor_since(DType::int64), std::nullopt);
  Tensor w{"w", {4096, 4096}, DType::bfp8, TensorRole::weight, ""};
  EXPECT_DOUBLE_EQ(w.bytes(), 4096.0 * 4096 * 1.0625);
}

TEST(DType, Bfp4AndBfp2KeepTheExponentBytePerSixteenValues) {
  // bfp4_b and bfp2_b: 16 values of 4 or 2 bits and one shared exponent byte, a block of 16 in 9
  // or 5 bytes; a 32x32 tile is 512 + 64 = 576 or 256 + 64 = 320 bytes (tt-metal Tile).
  EXPECT_DOUBLE_EQ(element_bytes(DType::bfp4), 0.5625);
  EXPECT_DOUBLE_EQ(element_bytes(DType::bfp2), 0.3125);
  EXPECT_EQ(storage_bytes(DType::bfp4, 16), 9);
  EXPECT_EQ(storage_bytes(DType::bfp2, 16), 5);
  EXPECT_EQ(storage_bytes(DType::bfp4, 32 * 32), 576);
  EXPECT_EQ(storage_bytes(DType::bfp2, 32 * 32), 320);
  EXPECT_EQ(storage_bytes(DType::bfp4, 17), 18) << "a partial block takes a whole one";
  EXPECT_EQ(block_elements(DType::bfp4), 16);
  EXPECT_EQ(parse_dtype("bfp4"), DType::bfp4);
  EXPECT_STREQ(to_string(DType::bfp2), "bfp2");
  EXPECT_EQ(to_abi(DType::bfp4), TESSERA_DTYPE_BFP4);
  EXPECT_EQ(to_abi(DType::bfp2), TESSERA_DTYPE_BFP2);
  EXPECT_EQ(abi_minor_since(DType::bfp4), 5u);
  EXPECT_EQ(abi_minor_since(DType::bfp2), 5u);
}

// y = relu(x · w1) · w2, fp16, m=8 k=16 n=32.
Graph two_layer_mlp() {
  GraphBuilder b("mlp");
  b.add_tensor({"x", {8, 16}, DType::fp16, TensorRole::input, ""}).take();
  b.add_tensor({"w1", {16, 32}, DType::fp16, TensorRole::weight, ""}).take();
  b.add_tensor({"w2", {32, 16}, DType::fp16, TensorRole::weight, ""}).take();
  b.add_tensor({"h", {8, 32}, DType::fp16, TensorRole::activation, ""}).take();
  b.add_tensor({"a", {8, 32}, DType::fp16, TensorRole::activation, ""}).take();
  b.add_tensor({"y", {8, 16}, DType::fp32, TensorRole::activation, ""}).take();
  b.add_op(make_op("fc1", OpKind::matmul, "mac", {{"m", 8}, {"k", 16}, {"n", 32}},
                   {"x[m,k]", "w1[k,n]"}, "h[m,n]"))
      .take();
  b.add_op(make_op("relu", OpKind::unary, "relu", {{"m", 8}, {"n", 32}}, {"h[m,n]"}, "a[m,n]"))
      .take();
  b.add_op(make_op("fc2", OpKind::matmul, "mac", {{"m", 8}, {"k", 32}, {"n", 16}},
                   {"a[m,k]", "w2[k,n]"}, "y[m,n]"))
      .take();
  b.mark_output("y").take();
  return b.finish();
}

TEST(OpCost, DerivesFlopsAndBytesFromTheEinsum) {
  Graph g = two_layer_mlp();
  OpCost fc1 = op_cost(g, g.ops()[0]);
  EXPECT_DOUBLE_EQ(fc1.flops, 2.0 * 8 * 16 * 32);
  EXPECT_DOUBLE_EQ(fc1.hbm_bytes_in, (8 * 16 + 16 * 32) * 2.0);  // x and w1 live in HBM
  EXPECT_DOUBLE_EQ(fc1.on_chip_bytes_in, 0.0);
  EXPECT_DOUBLE_EQ(fc1.bytes_out, 8 * 32 * 2.0);
  OpCost relu = op_cost(g, g.ops()[1]);
  EXPECT_DOUBLE_EQ(relu.flops, 8.0 * 32);
  EXPECT_DOUBLE_EQ(relu.on_chip_bytes_in, 8 * 32 * 2.0);
  EXPECT_DOUBLE_EQ(op_cost(g, g.ops()[2]).bytes_out, 8 * 16 * 4.0);
}

TEST(OpCost, CountsInputsBeyondTheArityAsEpilogueAdds) {
  GraphBuilder b("bias");
  b.add_tensor({"x", {4, 8}, DType::fp32, TensorRole::input, ""}).take();
  b.add_tensor({"w", {8, 2}, DType::fp32, TensorRole::weight, ""}).take();
  b.add_tensor({"bias", {2}, DType::fp32, TensorRole::weight, ""}).take();
  b.add_tensor({"y", {4, 2}, DType::fp32, TensorRole::activation, ""}).take();
  b.add_op(make_op("gemm", OpKind::matmul, "mac", {{"m", 4}, {"k", 8}, {"n", 2}},
                   {"x[m,k]", "w[k,n]", "bias[n]"}, "y[m,n]"))
      .take();
  Graph g = b.finish();
  EXPECT_DOUBLE_EQ(op_cost(g, g.ops()[0]).flops, 2.0 * 4 * 8 * 2 + 4 * 2);
}

TEST(Edges, LifetimesAndPeakLiveBytes) {
  Graph g = two_layer_mlp();
  Edges e = edges(g);
  EXPECT_EQ(e.op_preds[2], std::vector<int>{1});
  auto life = lifetimes(g, e);
  EXPECT_EQ(life[3].first_op, 0);  // h
  EXPECT_EQ(life[3].last_op, 1);
  EXPECT_EQ(life[5].last_op, 2);  // y is a model output
  Totals t = totals(g);
  EXPECT_DOUBLE_EQ(t.weight_bytes, (16 * 32 + 32 * 16) * 2.0);
  EXPECT_DOUBLE_EQ(t.flops, 2.0 * 8 * 16 * 32 + 8 * 32 + 2.0 * 8 * 32 * 16);
  // At relu, h and a are alive; at fc2, a and y.
  EXPECT_DOUBLE_EQ(t.peak_live_on_chip_bytes, 8 * 32 * 2.0 + 8 * 16 * 4.0);
}

TEST(GraphBuilder, RejectsInconsistentOps) {
  GraphBuilder b("bad");
  b.add_tensor({"x", {8, 16}, DType::fp16, TensorRole::input, ""}).take();
  b.add_tensor({"h", {8, 16}, DType::fp16, TensorRole::activation, ""}).take();
  b.add_tensor({"y", {8, 16}, DType::fp16, TensorRole::activation, ""}).take();
  EXPECT_EQ(
      b.add_op(make_op("a", OpKind::unary, "relu", {{"m", 8}}, {"x[m]"}, "h[m,0]")).error().message,
      "op 'a': input x[m]: tensor 'x' has 2 dimensions but 1 index expressions are given");
  EXPECT_EQ(
      b.add_op(make_op("a", OpKind::unary, "relu", {{"m", 8}, {"n", 16}}, {"h[m,n]"}, "y[m,n]"))
          .error()
          .message,
      "op 'a': reads 'h' before any op produces it (ops are listed in execution order)");
  EXPECT_EQ(
      b.add_op(make_op("a", OpKind::unary, "relu", {{"m", 8}, {"n", 17}}, {"x[m,n]"}, "y[m,n]"))
          .error()
          .message,
      "op 'a': output y[m,n]: index 'n' spans [0, 16] but dimension 1 of 'y' has extent 16");
  EXPECT_EQ(b.add_op(make_op("a", OpKind::unary, "frob", {{"m", 8}}, {}, "y[m,0]"))
                .error()
                .message.substr(0, 40),
            "op 'a': unknown point function 'frob'; k");
  EXPECT_EQ(b.add_op(make_op("a", OpKind::unary, "relu", {{"m", 8}}, {"x[m,q]"}, "y[m,0]"))
                .error()
                .message,
            "op 'a': input x[m,q]: index 'q' uses rank 'q', which is not one of the op's ranks "
            "(m=8)");
  EXPECT_EQ(b.add_op(make_op("a", OpKind::unary, "relu", {{"m", 8}}, {"y[m,0]"}, "x[m,0]"))
                .error()
                .message,
            "op 'a': reads 'y' before any op produces it (ops are listed in execution order)");
  EXPECT_EQ(b.add_tensor({"v", {3, 3}, DType::fp16, TensorRole::activation, "h"}).error().message,
            "tensor 'v': a view must have as many elements as 'h'");
  EXPECT_TRUE(b.graph().ops().empty());
}

// The slices of a split op: x · w[:, 0:16] and x · w[:, 16:32] write disjoint halves of y.
TEST(GraphBuilder, SlicesMayWriteDisjointRangesOfOneTensor) {
  GraphBuilder b("slices");
  b.add_tensor({"x", {8, 16}, DType::fp16, TensorRole::input, ""}).take();
  b.add_tensor({"w", {16, 32}, DType::fp16, TensorRole::weight, ""}).take();
  b.add_tensor({"y", {8, 32}, DType::fp16, TensorRole::activation, ""}).take();
  b.add_tensor({"z", {8, 32}, DType::fp16, TensorRole::activation, ""}).take();
  std::vector<Rank> half = {{"m", 8}, {"k", 16}, {"n", 16}};
  b.add_op(make_op("mm@n0/2", OpKind::matmul, "mac", half, {"x[m,k]", "w[k,n]"}, "y[m,n]")).take();
  EXPECT_EQ(
      b.add_op(make_op("mm@bad", OpKind::matmul, "mac", half, {"x[m,k]", "w[k,n+8]"}, "y[m,n+8]"))
          .error()
          .message,
      "op 'mm@bad': writes 'y', which op 'mm@n0/2' already writes (ops may share an output "
      "only by writing disjoint ranges of it)");
  b.add_op(make_op("mm@n1/2", OpKind::matmul, "mac", half, {"x[m,k]", "w[k,n+16]"}, "y[m,n+16]"))
      .take();
  b.add_op(make_op("relu", OpKind::unary, "relu", {{"m", 8}, {"n", 32}}, {"y[m,n]"}, "z[m,n]"))
      .take();
  Graph g = b.finish();
  Edges e = edges(g);
  EXPECT_EQ(e.op_preds[2], (std::vector<int>{0, 1})) << "a reader waits for every slice";
  EXPECT_EQ(e.producer[2], 0) << "the tensor lives from its first slice on";
  EXPECT_EQ(op_signature(g, g.ops()[0]), op_signature(g, g.ops()[1]))
      << "slices reading and writing inside their tensors are one class";
  EXPECT_EQ(identical_ops(g).first_op, (std::vector<int>{0, 2}));
}

TEST(Repeats, FindsIdenticalOpsAndRepeatedLayers) {
  // Four identical "layers" of two ops each (matmul, relu), between a prologue and an epilogue.
  GraphBuilder b("stack");
  b.add_tensor({"x", {4, 8}, DType::fp16, TensorRole::input, ""}).take();
  b.add_tensor({"x0", {4, 8}, DType::fp16, TensorRole::activation, ""}).take();
  b.add_op(make_op("pro", OpKind::unary, "neg", {{"m", 4}, {"n", 8}}, {"x[m,n]"}, "x0[m,n]"))
      .take();
  std::string prev = "x0";
  for (int l = 0; l < 4; ++l) {
    std::string p = "l" + std::to_string(l);
    b.add_tensor({p + ".w", {8, 8}, DType::fp16, TensorRole::weight, ""}).take();
    b.add_tensor({p + ".h", {4, 8}, DType::fp16, TensorRole::activation, ""}).take();
    b.add_tensor({p + ".y", {4, 8}, DType::fp16, TensorRole::activation, ""}).take();
    b.add_op(make_op(p + ".mm", OpKind::matmul, "mac", {{"m", 4}, {"k", 8}, {"n", 8}},
                     {prev + "[m,k]", p + ".w[k,n]"}, p + ".h[m,n]"))
        .take();
    b.add_op(make_op(p + ".relu", OpKind::unary, "relu", {{"m", 4}, {"n", 8}}, {p + ".h[m,n]"},
                     p + ".y[m,n]"))
        .take();
    prev = p + ".y";
  }
  Graph g = b.finish();
  OpClasses classes = identical_ops(g);
  EXPECT_EQ(classes.first_op.size(), 3u);  // neg, matmul, relu
  EXPECT_EQ(classes.count[classes.class_of[1]], 4);
  auto layers = repeated_layers(g, classes, edges(g));
  ASSERT_TRUE(layers);
  EXPECT_EQ(layers->first_op, 1);
  EXPECT_EQ(layers->ops_per_layer, 2);
  EXPECT_EQ(layers->count, 4);
  EXPECT_EQ(layers->layer_of(8), 3);
  EXPECT_EQ(layers->layer_of(0), -1);
}

}  // namespace
}  // namespace tessera::ir
