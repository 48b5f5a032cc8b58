// The off-chip footprint by kind, activations counted only beyond the chip's SRAM, and a machine
// without a stated capacity never refusing.
#include "framework/planner/capacity.hpp"

#include <gtest/gtest.h>

#include "framework/ir/analysis.hpp"

namespace tessera::planner {
namespace {

using namespace tessera::ir;

Op make_op(const std::string& name, const std::vector<Rank>& ranks,
           const std::vector<std::string>& inputs, const std::string& output) {
  Op op{name, OpKind::matmul, {ranks, {}, parse_operand(output).take(), "mac"}, "test"};
  for (const auto& in : inputs) op.einsum.inputs.push_back(parse_operand(in).take());
  return op;
}

// x[8,16] (input) · w[16,32] (weight) -> h[8,32], then h · kv[32,4] (KV cache) -> y[8,4]; fp16.
Graph two_ops() {
  GraphBuilder b("two");
  b.add_tensor({"x", {8, 16}, DType::fp16, TensorRole::input, ""}).take();
  b.add_tensor({"w", {16, 32}, DType::fp16, TensorRole::weight, ""}).take();
  b.add_tensor({"kv", {32, 4}, DType::fp16, TensorRole::kv_cache, ""}).take();
  b.add_tensor({"h", {8, 32}, DType::fp16, TensorRole::activation, ""}).take();
  b.add_tensor({"y", {8, 4}, DType::fp16, TensorRole::activation, ""}).take();
  b.add_op(make_op("a", {{"m", 8}, {"k", 16}, {"n", 32}}, {"x[m,k]", "w[k,n]"}, "h[m,n]")).take();
  b.add_op(make_op("b", {{"m", 8}, {"k", 32}, {"n", 4}}, {"h[m,k]", "kv[k,n]"}, "y[m,n]")).take();
  b.mark_output("y").take();
  return b.finish();
}

Machine machine(uint32_t cores, uint64_t sram_bytes, uint64_t off_chip_bytes) {
  Machine m;
  m.chip = "c";
  m.cores = cores;
  m.sram_bytes_per_core = sram_bytes;
  m.off_chip_bytes = off_chip_bytes;
  return m;
}

TEST(OffChip, FootprintByKindAndActivationsOnlyBeyondSram) {
  Graph g = two_ops();
  OffChipFootprint f = off_chip_footprint(g, machine(4, 1024, 0));
  EXPECT_DOUBLE_EQ(f.weight_bytes, 16 * 32 * 2);
  EXPECT_DOUBLE_EQ(f.kv_cache_bytes, 32 * 4 * 2);
  EXPECT_DOUBLE_EQ(f.input_bytes, 8 * 16 * 2);
  EXPECT_DOUBLE_EQ(f.activation_bytes, 0) << "h and y fit in 4 KiB of SRAM";
  double peak = ir::totals(g).peak_live_on_chip_bytes;
  ASSERT_GT(peak, 100);
  OffChipFootprint tight = off_chip_footprint(g, machine(1, 100, 0));
  EXPECT_DOUBLE_EQ(tight.activation_bytes, peak - 100);
  EXPECT_EQ(describe(f), "weights 1.0 KiB, KV cache 256 B, inputs 256 B");
  EXPECT_EQ(describe(OffChipFootprint{}), "nothing");
}

TEST(OffChip, Bfp8WeightsTakeOneAndASixteenthBytesAndTheRestKeepsItsType) {
  for (auto [narrow, ratio] : {std::pair{DType::bfp8, 1.0625 / 2}, std::pair{DType::fp8, 0.5}}) {
    Graph g = two_ops();
    GraphBuilder b("narrow");
    for (const auto& t : g.tensors()) {
      Tensor copy = t;
      if (copy.role == TensorRole::weight) copy.dtype = narrow;
      b.add_tensor(copy).take();
    }
    for (const auto& op : g.ops()) b.add_op(op).take();
    b.mark_output("y").take();
    Graph n = b.finish();
    OffChipFootprint wide = off_chip_footprint(g, machine(4, 1024, 0));
    OffChipFootprint f = off_chip_footprint(n, machine(4, 1024, 0));
    EXPECT_NEAR(f.weight_bytes / wide.weight_bytes, ratio, 1e-9) << to_string(narrow);
    EXPECT_DOUBLE_EQ(f.kv_cache_bytes, wide.kv_cache_bytes);
    EXPECT_DOUBLE_EQ(f.input_bytes, wide.input_bytes);
    // The op reads its weight from HBM at the narrow size (and its fp16 input x as before).
    EXPECT_NEAR(op_cost(n, n.ops()[0]).hbm_bytes_in, 8 * 16 * 2 + 16 * 32 * 2 * ratio, 1e-9);
  }
}

TEST(OffChip, FitsAgainstTheTotalAndAnUnstatedCapacityNeverRefuses) {
  Graph g = two_ops();
  OffChipFootprint f = off_chip_footprint(g, machine(4, 1024, 0));
  EXPECT_TRUE(fits_off_chip(f, machine(4, 1024, 0)));
  EXPECT_TRUE(fits_off_chip(f, machine(4, 1024, 1536)));
  EXPECT_FALSE(fits_off_chip(f, machine(4, 1024, 1535)));
}

}  // namespace
}  // namespace tessera::planner
