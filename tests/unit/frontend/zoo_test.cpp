// Zoo graphs against numbers computed here from the published architectures.
#include "framework/frontend/zoo/zoo.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "framework/frontend/zoo/builders.hpp"
#include "framework/ir/analysis.hpp"
#include "framework/ir/repeats.hpp"

namespace tessera::zoo {
namespace {

// A run shape in the entry's own element type.
RunShape run_shape(int64_t batch, int64_t seq, std::optional<Mode> mode) {
  RunShape shape;
  shape.batch = batch;
  shape.seq = seq;
  shape.mode = mode;
  return shape;
}

ir::Graph build(const std::string& name, int64_t batch, int64_t seq, Mode mode) {
  return build_model(find_model(name).take(), run_shape(batch, seq, mode)).take();
}

double sum_flops(const ir::Graph& g, ir::OpKind kind) {
  double f = 0;
  for (const auto& op : g.ops())
    if (op.kind == kind) f += ir::op_cost(g, op).flops;
  return f;
}

struct Published {
  const char* name;
  double params;  // as published (paper or released checkpoint)
};

TEST(Zoo, WeightBytesMatchPublishedParameterCountsWithinOnePercent) {
  const Published models[] = {
      {"llama2-7b", 6'738'415'616.0},
      {"llama2-13b", 13'015'864'320.0},
      {"llama2-70b", 68'976'648'192.0},
      {"llama3.1-8b", 8'030'261'248.0},    // meta-llama/Llama-3.1-8B
      {"llama3.1-70b", 70'553'706'496.0},  // meta-llama/Llama-3.1-70B
      {"mistral-7b", 7'248'023'552.0},     // mistralai/Mistral-7B-v0.3
      {"gemma2-27b", 27'227'128'320.0},
      {"opt-30b", 30.0e9},
      {"gpt3-6.7b", 6.7e9},
      {"gpt2-xl", 1'557'611'200.0},  // openai-community/gpt2-xl
      {"dit-xl", 675'129'632.0},
  };
  for (const auto& m : models) {
    ModelSpec spec = find_model(m.name).take();
    ir::Graph g = build_model(spec, run_shape(1, 256, std::nullopt)).take();
    double params = ir::totals(g).weight_bytes / static_cast<double>(element_bytes(spec.dtype));
    EXPECT_NEAR(params / m.params, 1.0, 0.01) << m.name << ": " << params;
  }
}

TEST(Zoo, DecodeKvCacheBytesFollowTheFormula) {
  struct Case {
    const char* name;
    int64_t layers, kv_heads, head_dim;
  };
  for (const auto& c : {Case{"llama2-13b", 40, 40, 128}, Case{"llama2-70b", 80, 8, 128},
                        Case{"llama3.1-8b", 32, 8, 128}, Case{"mistral-7b", 32, 8, 128},
                        Case{"gemma2-27b", 46, 16, 128}, Case{"opt-30b", 48, 56, 128}}) {
    for (auto [batch, seq] : {std::pair<int64_t, int64_t>{16, 2048}, {3, 100}}) {
      ir::Graph g = build(c.name, batch, seq, Mode::decode);
      double expected = 2.0 * c.layers * c.kv_heads * c.head_dim * seq * batch * 2;
      EXPECT_DOUBLE_EQ(ir::totals(g).kv_cache_bytes, expected) << c.name;
    }
  }
}

TEST(Zoo, Llama2DecodeFlopsAndStructure) {
  const int64_t B = 16, S = 2048, L = 40, H = 5120, F = 13824, V = 32000, heads = 40, hd = 128;
  ir::Graph g = build("llama2-13b", B, S, Mode::decode);
  // Per layer: norm, q/k/v, 2 rope, 2 cache writes, scores, softmax, attn_v, o, residual,
  // norm, gate, up, act, down, residual = 19; plus embed, final norm, lm head.
  EXPECT_EQ(g.ops().size(), static_cast<size_t>(19 * L + 3));
  double linear_params = L * (4.0 * H * H + 3.0 * H * F) + double(H) * V;
  EXPECT_DOUBLE_EQ(sum_flops(g, ir::OpKind::matmul), 2.0 * B * linear_params);
  EXPECT_DOUBLE_EQ(sum_flops(g, ir::OpKind::batched_matmul), L * 2 * (2.0 * B * heads * S * hd));
  // Decode streams every weight and the whole KV cache from HBM once.
  ir::Totals t = ir::totals(g);
  // Of the embedding table only the B looked-up rows, of the rotary table only this position's row.
  double hbm_expected = t.weight_bytes - double(V) * H * 2 + B * H * 2.0 + 2.0 * L * hd * 2 +
                        t.kv_cache_bytes + B * 4.0;
  EXPECT_NEAR(t.hbm_bytes_in / hbm_expected, 1.0, 1e-12);

  ir::OpClasses classes = ir::identical_ops(g);
  auto layers = ir::repeated_layers(g, classes, ir::edges(g));
  ASSERT_TRUE(layers);
  EXPECT_EQ(layers->count, L);
  EXPECT_EQ(layers->ops_per_layer, 19);
  EXPECT_EQ(layers->first_op, 1);
  // q, k and v projections share one Einsum (MHA), in all 40 layers.
  EXPECT_EQ(classes.count[classes.class_of[2]], 3 * L);
}

TEST(Zoo, Llama70bUsesGroupedQueryAttention) {
  ir::Graph g = build("llama2-70b", 1, 128, Mode::decode);
  const ir::Op* scores = nullptr;
  for (const auto& op : g.ops())
    if (op.name == "layers.0.scores") scores = &op;
  ASSERT_NE(scores, nullptr);
  EXPECT_EQ(scores->einsum.str(), "mac([b,s,8*g+r,d],[b,g,t,d])->[b,8*g+r,s,t]");
  EXPECT_EQ(scores->einsum.ranks_str(), "b=1 g=8 r=8 s=1 t=128 d=128");
}

TEST(Zoo, PrefillComputesAllTokensAndFillsTheCache) {
  const int64_t B = 2, S = 512, L = 32, H = 4096, heads = 32, hd = 128;
  ir::Graph g = build("llama2-7b", B, S, Mode::prefill);
  EXPECT_DOUBLE_EQ(sum_flops(g, ir::OpKind::batched_matmul),
                   L * 2 * (2.0 * B * heads * S * S * hd));
  double cache_written = 0;
  for (const auto& op : g.ops())
    if (op.name.find("_cache_write") != std::string::npos)
      cache_written += ir::op_cost(g, op).bytes_out;
  EXPECT_DOUBLE_EQ(cache_written, 2.0 * L * B * heads * hd * S * 2);
  (void)H;
}

TEST(Zoo, DitStepFlops) {
  const int64_t B = 4, N = 256, L = 28, H = 1152, heads = 16;
  ir::Graph g = build("dit-xl", B, N, Mode::prefill);
  double block_linear = 3.0 * H * H + H * H + 2.0 * 4 * H * H;  // qkv, proj, fc1, fc2
  double expected_tokens = 2.0 * B * N * (L * block_linear + H * 32);
  double expected_cond = 2.0 * B * (L * H * 6 * H + H * 2 * H + 256 * H + H * H);
  double bias_adds =
      B * N * (L * (3.0 * H + H + 4 * H + H) + 32) + B * (L * 6.0 * H + 2 * H + 2 * H);
  EXPECT_DOUBLE_EQ(sum_flops(g, ir::OpKind::matmul), expected_tokens + expected_cond + bias_adds);
  EXPECT_DOUBLE_EQ(sum_flops(g, ir::OpKind::batched_matmul),
                   L * 2 * (2.0 * B * heads * N * N * 72));
  auto layers = ir::repeated_layers(g, ir::identical_ops(g), ir::edges(g));
  ASSERT_TRUE(layers);
  EXPECT_EQ(layers->count, L);
}

TEST(Zoo, DtypeOverrideRetypesEveryFloatTensor) {
  ModelSpec gemma = find_model("gemma2-27b").take();
  ASSERT_EQ(gemma.dtype, ir::DType::bf16);
  ir::Graph g = build_model(gemma, RunShape{.batch = 1,
                                            .seq = 16,
                                            .mode = std::nullopt,
                                            .dtype = ir::DType::fp16,
                                            .weight_dtype = std::nullopt})
                    .take();
  size_t fp16 = 0;
  for (const auto& t : g.tensors()) {
    EXPECT_NE(t.dtype, ir::DType::bf16) << t.name;
    fp16 += t.dtype == ir::DType::fp16;
  }
  EXPECT_GT(fp16, g.tensors().size() / 2);
  ir::Graph bf16 = build_model(gemma, run_shape(1, 16, std::nullopt)).take();
  EXPECT_DOUBLE_EQ(ir::totals(g).weight_bytes, ir::totals(bf16).weight_bytes);
}

TEST(Zoo, WeightDtypeRetypesTheWeightsAloneAndShrinksTheirBytes) {
  ModelSpec llama = find_model("llama2-7b").take();
  ir::Graph wide = build_model(llama, run_shape(1, 256, std::nullopt)).take();
  for (auto [w, bytes] : {std::pair{ir::DType::bfp8, 1.0625}, std::pair{ir::DType::fp8, 1.0}}) {
    RunShape shape = run_shape(1, 256, std::nullopt);
    shape.weight_dtype = w;
    ir::Graph g = build_model(llama, shape).take();
    const auto& wide_tensors = wide.tensors();
    ASSERT_EQ(g.tensors().size(), wide_tensors.size());
    for (size_t i = 0; i < wide_tensors.size(); ++i) {  // token ids stay int32
      const auto& t = g.tensors()[i];
      EXPECT_EQ(t.dtype, t.role == ir::TensorRole::weight ? w : wide_tensors[i].dtype) << t.name;
    }
    ir::Totals narrow = ir::totals(g), full = ir::totals(wide);
    EXPECT_NEAR(narrow.weight_bytes / full.weight_bytes, bytes / 2, 1e-9) << ir::to_string(w);
    EXPECT_DOUBLE_EQ(narrow.kv_cache_bytes, full.kv_cache_bytes);
    EXPECT_DOUBLE_EQ(narrow.flops, full.flops);
  }
}

TEST(Zoo, ClearErrorsForShapesAModelCannotTake) {
  ModelSpec dit = find_model("dit-xl").take();
  EXPECT_EQ(build_model(dit, run_shape(1, 256, Mode::decode)).error().message,
            "dit-xl is a diffusion transformer: it has no decode mode; use --mode prefill (one "
            "denoising step over --seq latent tokens)");
  EXPECT_EQ(build_model(dit, run_shape(1, 200, std::nullopt)).error().message,
            "dit-xl: --seq 200 must be a square number of latent tokens (256 = 16x16 for "
            "256x256 images)");
  EXPECT_EQ(
      build_model(find_model("opt-30b").take(), run_shape(1, 4096, std::nullopt)).error().message,
      "opt-30b: --seq 4096 exceeds the model's 2048 learned positions");
  auto unknown = find_model("llama2-13");
  ASSERT_FALSE(unknown);
  EXPECT_EQ(unknown.error().message.substr(0, 60),
            "unknown model 'llama2-13'; did you mean 'llama2-13b'? Zoo mo");
  EXPECT_EQ(list_zoo().size(), 11u);
}

}  // namespace
}  // namespace tessera::zoo
