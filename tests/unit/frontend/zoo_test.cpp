// Zoo graphs against numbers computed here from the published architectures.
#include "framework/frontend/zoo/zoo.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <sstream>

#include "framework/frontend/model_source.hpp"
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
                                            .weight_dtype = std::nullopt,
                                            .precision = std::nullopt})
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
  EXPECT_EQ(list_zoo().size(), 13u);
}

// --- One chip's share (Shard) ---

double weight_bytes(const ir::Graph& g) {
  return ir::totals(g).weight_bytes;
}

// Spelled out: a designated initializer leaving fields out is a warning.
Shard make_shard(int64_t tp, int64_t ep = 1, int64_t first = 0,
                 std::optional<int64_t> last = std::nullopt) {
  return Shard{tp, ep, first, last, std::nullopt, std::nullopt};
}

ir::Graph build_shard(const std::string& name, const RunShape& shape, const Shard& shard) {
  return build_model(find_model(name).take(), shape, shard).take();
}

TEST(ZooShard, DefaultShardBuildsTheSameGraph) {
  ModelSpec spec = find_model("llama3.1-8b").take();
  for (auto mode : {Mode::decode, Mode::prefill}) {
    RunShape shape = run_shape(2, 256, mode);
    ir::Graph plain = build_model(spec, shape).take();
    for (const Shard& shard : {Shard{}, make_shard(1, 1, 0, 32)}) {
      ir::Graph sharded = build_model(spec, shape, shard).take();
      EXPECT_EQ(sharded.name(), plain.name());
      ASSERT_EQ(sharded.ops().size(), plain.ops().size());
      ASSERT_EQ(sharded.tensors().size(), plain.tensors().size());
      for (size_t i = 0; i < plain.ops().size(); ++i) {
        EXPECT_EQ(sharded.ops()[i].name, plain.ops()[i].name);
        EXPECT_EQ(sharded.ops()[i].einsum.str(), plain.ops()[i].einsum.str());
        EXPECT_EQ(sharded.ops()[i].einsum.ranks_str(), plain.ops()[i].einsum.ranks_str());
      }
      EXPECT_EQ(sharded.outputs(), plain.outputs());
      EXPECT_DOUBLE_EQ(weight_bytes(sharded), weight_bytes(plain));
      EXPECT_DOUBLE_EQ(ir::totals(sharded).flops, ir::totals(plain).flops);
    }
  }
}

TEST(ZooShard, TensorParallelShardsAddUpToTheWholeModel) {
  for (const char* name : {"llama3.1-8b", "llama3.1-70b"}) {
    ModelSpec spec = find_model(name).take();
    RunShape shape = run_shape(4, 512, Mode::decode);
    ir::Graph whole = build_model(spec, shape).take();
    // Norms are replicated: two per layer and the final one, full hidden on every chip.
    double norms = (2.0 * spec.layers + 1) * spec.hidden * 2;
    for (int64_t tp : {1, 2, 8}) {
      ir::Graph part = build_model(spec, shape, make_shard(tp)).take();
      EXPECT_DOUBLE_EQ(tp * weight_bytes(part), weight_bytes(whole) + (tp - 1) * norms)
          << name << " tp" << tp;
      EXPECT_DOUBLE_EQ(tp * sum_flops(part, ir::OpKind::matmul),
                       sum_flops(whole, ir::OpKind::matmul))
          << name << " tp" << tp;
      EXPECT_DOUBLE_EQ(tp * sum_flops(part, ir::OpKind::batched_matmul),
                       sum_flops(whole, ir::OpKind::batched_matmul));
      EXPECT_DOUBLE_EQ(tp * ir::totals(part).kv_cache_bytes, ir::totals(whole).kv_cache_bytes);
    }
  }
  ir::Graph g =
      build_shard("llama3.1-70b", run_shape(1, 1024, Mode::decode), make_shard(8, 1, 0, 10));
  EXPECT_EQ(g.name(), "llama3.1-70b decode b1 s1024 tp8 layers 0-10");
  for (const auto& op : g.ops())
    if (op.name == "layers.0.scores") {  // 64/8 query heads over 8/8 KV heads: one group a chip
      EXPECT_EQ(op.einsum.ranks_str(), "b=1 g=1 r=8 s=1 t=1024 d=128");
    }
}

TEST(ZooShard, FewerKvHeadsThanChipsAreReplicated) {
  ModelSpec spec = find_model("llama3.1-8b").take();  // 32 heads, 8 KV heads
  ir::Graph g = build_model(spec, run_shape(1, 256, Mode::decode), make_shard(16)).take();
  for (const auto& op : g.ops())
    if (op.name == "layers.0.scores") {
      EXPECT_EQ(op.einsum.ranks_str(), "b=1 g=1 r=2 s=1 t=256 d=128");
    }
  // Each chip keeps its query heads' one KV head: 16 chips hold 16 KV heads' caches in all.
  EXPECT_DOUBLE_EQ(ir::totals(g).kv_cache_bytes, 2.0 * 32 * 1 * 128 * 256 * 2);
}

// PopTransformer's layer map gives the first IPU no layer (stages=0:6:7:...): that stage is the
// embedding alone, and the next, though it starts at layer 0 too, takes the hidden state; an empty
// last stage is the LM head alone. Either way the stages add up to the whole.
TEST(ZooShard, EmptyEndStagesHoldTheEmbeddingOrTheHead) {
  ModelSpec spec = find_model("llama3.1-8b").take();
  RunShape shape = run_shape(4, 256, Mode::decode);
  ir::Graph whole = build_model(spec, shape).take();
  auto stage = [&](int64_t first, int64_t last, bool embedding, bool head) {
    return build_model(spec, shape, Shard{1, 1, first, last, embedding, head}).take();
  };
  ir::Graph embedding = stage(0, 0, true, false);
  ir::Graph layers = stage(0, 32, false, false);
  ir::Graph head = stage(32, 32, false, true);
  EXPECT_NE(embedding.find_tensor("tokens"), nullptr);
  EXPECT_EQ(ir::totals(embedding).kv_cache_bytes, 0);
  EXPECT_EQ(layers.find_tensor("tokens"), nullptr) << "the embedding is the stage before";
  EXPECT_NE(layers.find_tensor("hidden_in"), nullptr);
  EXPECT_EQ(head.outputs().front(), "lm_head");
  EXPECT_DOUBLE_EQ(weight_bytes(embedding) + weight_bytes(layers) + weight_bytes(head),
                   weight_bytes(whole));
  EXPECT_DOUBLE_EQ(ir::totals(embedding).flops + ir::totals(layers).flops + ir::totals(head).flops,
                   ir::totals(whole).flops);
  EXPECT_EQ(build_model(spec, shape, Shard{1, 1, 0, 0, false, false}).error().message,
            "layers 0-0 hold no layer of llama3.1-8b: a stage is layers [first, last) with "
            "first < last, or empty at either end (the embedding alone, or the LM head alone)");
}

TEST(ZooShard, PipelineStagesAddUpToTheWhole) {
  ModelSpec spec = find_model("llama3.1-8b").take();
  for (auto mode : {Mode::decode, Mode::prefill}) {
    RunShape shape = run_shape(2, 128, mode);
    ir::Graph whole = build_model(spec, shape).take();
    double weights = 0, flops = 0, kv = 0;
    size_t ops = 0;
    for (auto [first, last] : {std::pair<int64_t, int64_t>{0, 10}, {10, 20}, {20, 32}}) {
      ir::Graph stage = build_model(spec, shape, make_shard(1, 1, first, last)).take();
      weights += weight_bytes(stage);
      flops += ir::totals(stage).flops;
      kv += ir::totals(stage).kv_cache_bytes;
      ops += stage.ops().size();
      // The first stage embeds tokens; later ones take the hidden state; all but the last hand it
      // on, the last gives the logits.
      EXPECT_EQ(stage.find_tensor("tokens") != nullptr, first == 0);
      const ir::Tensor* in = stage.find_tensor("hidden_in");
      EXPECT_EQ(in != nullptr, first != 0);
      if (in != nullptr) {
        EXPECT_EQ(in->role, ir::TensorRole::input);
        EXPECT_EQ(in->shape, (std::vector<int64_t>{2, mode == Mode::decode ? 1 : 128, 4096}));
      }
      EXPECT_EQ(stage.outputs().front(),
                last == 32 ? "lm_head" : "layers." + std::to_string(last - 1) + ".ffn_residual");
    }
    EXPECT_DOUBLE_EQ(weights, weight_bytes(whole));
    EXPECT_DOUBLE_EQ(flops, ir::totals(whole).flops);
    EXPECT_DOUBLE_EQ(kv, ir::totals(whole).kv_cache_bytes);
    EXPECT_EQ(ops, whole.ops().size());
  }
}

TEST(ZooShard, ClearErrorsForShardsThatDoNotSplitTheModel) {
  ModelSpec llama = find_model("llama3.1-8b").take();
  ModelSpec mixtral = find_model("mixtral-8x7b").take();
  RunShape shape = run_shape(1, 256, std::nullopt);
  auto error = [&](const ModelSpec& m, const Shard& shard) {
    auto g = build_model(m, shape, shard);
    EXPECT_FALSE(g);
    EXPECT_EQ(g ? ErrorKind::internal : g.error().kind, ErrorKind::input);
    return g ? std::string() : g.error().message;
  };
  EXPECT_EQ(error(llama, make_shard(3)),
            "tp=3 does not divide llama3.1-8b's 32 attention heads; tp may be one of 1, 2, 4, 8, "
            "16, 32");
  EXPECT_EQ(error(llama, make_shard(0)),
            "tp=0 does not divide llama3.1-8b's 32 attention heads; tp may be one of 1, 2, 4, 8, "
            "16, 32");
  ModelSpec narrow = llama;  // no zoo entry has heads that divide evenly where its FFN does not
  narrow.ffn = 100;
  EXPECT_EQ(error(narrow, make_shard(8)),
            "tp=8 does not divide llama3.1-8b's FFN width 100; tp may be one of 1, 2, 4");
  EXPECT_EQ(error(llama, make_shard(1, 1, 30, 40)),
            "layers 30-40 are outside llama3.1-8b's 32 layers");
  EXPECT_EQ(error(llama, make_shard(1, 1, -1)), "layers -1-32 are outside llama3.1-8b's 32 layers");
  EXPECT_EQ(error(llama, make_shard(1, 1, 10, 10)),
            "layers 10-10 hold no layer of llama3.1-8b: a stage is layers [first, last) with "
            "first < last, or empty at either end (the embedding alone, or the LM head alone)");
  EXPECT_EQ(error(llama, make_shard(1, 8)), "ep=8 for llama3.1-8b, which has no experts");
  EXPECT_EQ(error(mixtral, make_shard(1, 3)),
            "ep=3 does not divide mixtral-8x7b's 8 experts; ep may be one of 1, 2, 4, 8");
  EXPECT_EQ(error(find_model("dit-xl").take(), make_shard(2)),
            "dit-xl: a DiT runs whole on each chip (data parallel); tp, ep and pipeline stages "
            "apply to decoders");
  EXPECT_TRUE(check_shard(mixtral, make_shard(8, 8, 8, 16)));
}

TEST(ZooShard, OnlyZooModelsAreSplit) {
  ModelRequest request;
  request.shard.tp = 2;
  std::string graph =
      std::string(TESSERA_SOURCE_DIR) + "/tests/fuzz/corpus/workload_graph/matmul.yaml";
  for (const std::string& model : {std::string("m.onnx"), graph, std::string("ops.json")}) {
    request.model = model;
    auto g = load_model(request);
    ASSERT_FALSE(g);
    EXPECT_EQ(g.error().kind, ErrorKind::usage);
    EXPECT_EQ(g.error().message, model +
                                     ": tp, ep and pipeline stages split a zoo decoder; an ONNX "
                                     "or graph file runs whole (use dp), but for ep over an ONNX "
                                     "model's MoE blocks");
  }
  for (const std::string& zoo : {std::string("llama3.1-8b"), std::string(TESSERA_SOURCE_DIR) +
                                                                 "/models/zoo/llama3.1-8b.yaml"}) {
    request.model = zoo;
    EXPECT_EQ(load_model(request).take().name(), "llama3.1-8b decode b1 s2048 tp2");
  }
}

// --- Mixture of experts ---

struct PublishedMoe {
  const char* name;
  double total, active;
};

// Parameters one token meets: attention, norms, the router, k routed and every shared expert,
// the embedding row table and the LM head (as the releases count "active").
double active_params(const ModelSpec& m) {
  double attention = 1.0 * m.hidden * m.head_dim * (2 * m.heads + 2 * m.kv_heads);
  double experts = 3.0 * m.hidden *
                   (m.experts_per_token * m.expert_ffn + m.shared_experts * m.shared_expert_ffn);
  double layer = attention + 2.0 * m.hidden + 1.0 * m.hidden * m.experts + experts;
  return m.layers * layer + m.hidden + 2.0 * m.vocab * m.hidden;
}

TEST(ZooMoe, ParameterCountsMatchThePublishedTotalsWithinOnePercent) {
  for (const auto& p : {PublishedMoe{"mixtral-8x7b", 46.7e9, 12.9e9},
                        PublishedMoe{"qwen1.5-moe-a2.7b", 14.3e9, 2.7e9}}) {
    ModelSpec spec = find_model(p.name).take();
    // A batch large enough that every expert expects tokens: the graph holds them all.
    RunShape shape = run_shape(1024, 64, Mode::decode);
    ASSERT_EQ(expert_load(spec, shape, {}).experts, spec.experts) << p.name;
    ir::Graph g = build_model(spec, shape).take();
    double params = weight_bytes(g) / 2;
    EXPECT_NEAR(params / p.total, 1.0, 0.01) << p.name << ": " << params;
    EXPECT_NEAR(active_params(spec) / p.active, 1.0, 0.01) << p.name << ": " << active_params(spec);
  }
}

int64_t experts_in_layer0(const ir::Graph& g) {
  int64_t n = 0;
  for (const auto& op : g.ops())
    n += op.name.starts_with("layers.0.experts.") && op.name.ends_with(".gate_proj");
  return n;
}

TEST(ZooMoe, ExpectedActiveExpertsFollowTheRouting) {
  ModelSpec mixtral = find_model("mixtral-8x7b").take();
  struct Case {
    int64_t batch, ep, experts, rows;
  };
  // b1: each expert is active with probability 1 - (1 - 2/8)^1 = 0.25, 8 x 0.25 = 2 experts of
  // one row each. b32: 1 - 0.75^32 per expert, so all 8, over 64 routed tokens. Under ep the
  // chip's experts serve the tokens of all ep replicas: b1 ep8 routes 8 x 2 tokens, 2 to expert 0
  // (active with probability 1 - 0.75^8); b32 ep8 routes 512, 64 to it; b32 ep2 128, 16 to each
  // of the chip's 4.
  for (const auto& c : {Case{1, 1, 2, 1}, Case{32, 1, 8, 8}, Case{1, 8, 1, 2}, Case{32, 8, 1, 64},
                        Case{32, 2, 4, 16}}) {
    RunShape shape = run_shape(c.batch, 256, Mode::decode);
    Shard shard{.ep = c.ep};
    ExpertLoad load = expert_load(mixtral, shape, shard);
    EXPECT_EQ(load.experts, c.experts) << c.batch << " ep" << c.ep;
    EXPECT_EQ(load.rows, c.rows) << c.batch << " ep" << c.ep;
    ir::Graph g = build_model(mixtral, shape, shard).take();
    EXPECT_EQ(experts_in_layer0(g), c.experts) << c.batch << " ep" << c.ep;
    const ir::Tensor* dispatch = g.find_tensor("layers.0.experts.0.dispatch");
    ASSERT_NE(dispatch, nullptr);
    EXPECT_EQ(dispatch->shape, (std::vector<int64_t>{c.rows, 4096}));
  }
  // Expert weights: an ep=8 chip holds one expert per layer; tp splits each expert's width.
  ir::Graph one = build_model(mixtral, run_shape(32, 256, Mode::decode), make_shard(2, 8)).take();
  EXPECT_EQ(one.find_tensor("layers.0.experts.0.gate_proj.weight")->shape,
            (std::vector<int64_t>{4096, 7168}));
  EXPECT_EQ(one.name(), "mixtral-8x7b decode b32 s256 tp2 ep8");
}

TEST(ZooMoe, SkewedRoutingMakesChipZeroBusier) {
  ModelSpec qwen = find_model("qwen1.5-moe-a2.7b").take();
  RunShape uniform = run_shape(8, 512, Mode::decode);
  RunShape skewed = uniform;
  skewed.expert_skew = 1.2;
  for (int64_t ep : {1, 4, 60}) {
    ExpertLoad even = expert_load(qwen, uniform, make_shard(1, ep));
    ExpertLoad busy = expert_load(qwen, skewed, make_shard(1, ep));
    if (ep == 1) {
      EXPECT_NEAR(busy.tokens, even.tokens, 1e-9);  // one chip gets every routed token
    } else {
      EXPECT_GT(busy.tokens, even.tokens) << "ep" << ep;
      EXPECT_GE(busy.rows, even.rows) << "ep" << ep;
    }
    // The chip's share of the ep replicas' 8 users' 4 routed tokens each: 8 x 4 tokens.
    EXPECT_NEAR(even.tokens, 8.0 * 4, 1e-9);
  }
  // Few experts share most tokens under skew: fewer experts are expected active.
  EXPECT_LT(expert_load(qwen, skewed, {}).experts, expert_load(qwen, uniform, {}).experts);
  for (double bad : {-0.5, 5.0, std::nan("")}) {
    RunShape shape = uniform;
    shape.expert_skew = bad;
    auto g = build_model(qwen, shape);
    ASSERT_FALSE(g);
    std::ostringstream text;
    text << bad;
    EXPECT_EQ(g.error().message,
              "qwen1.5-moe-a2.7b: expert skew " + text.str() + " is out of range [0, 4]");
  }
}

TEST(ZooMoe, LayerStructure) {
  ModelSpec qwen = find_model("qwen1.5-moe-a2.7b").take();
  const int64_t B = 2, S = 64;
  ir::Graph g = build_model(qwen, run_shape(B, S, Mode::prefill)).take();
  ExpertLoad load = expert_load(qwen, run_shape(B, S, Mode::prefill), {});
  EXPECT_EQ(load.experts, 60);
  EXPECT_EQ(load.rows, (B * S * 4 + 59) / 60);
  const ir::Op* combine = nullptr;
  const ir::Op* topk = nullptr;
  for (const auto& op : g.ops()) {
    if (op.name == "layers.0.moe") combine = &op;
    if (op.name == "layers.0.router_topk") topk = &op;
  }
  ASSERT_NE(combine, nullptr);
  ASSERT_NE(topk, nullptr);
  EXPECT_EQ(topk->einsum.str(), "topk([b,s,e])->[b,s,j]");
  EXPECT_EQ(topk->einsum.ranks_str(), "b=2 s=64 e=60 j=4");
  // Each token's 4 expert rows weighed by their router scores, plus the shared expert's output.
  EXPECT_EQ(combine->einsum.str(), "mac([b,s,j],[$0,n],[b,s,$0],[b,s,n])->[b,s,n]");
  EXPECT_DOUBLE_EQ(ir::op_cost(g, *combine).flops, 2.0 * B * S * 4 * 2048 + B * S * 2048);
  // Routed experts' matmuls: 3 projections over rows x hidden x 1408 for each expert.
  double routed = 0;
  for (const auto& op : g.ops())
    if (op.name.starts_with("layers.0.experts.") && op.kind == ir::OpKind::matmul)
      routed += ir::op_cost(g, op).flops;
  EXPECT_DOUBLE_EQ(routed, 60 * 3 * 2.0 * load.rows * 2048 * 1408);
}

TEST(ZooMoe, EntryErrors) {
  auto parse = [](const std::string& extra) {
    auto root = YamlNode::load_string(
        "name: m\nfamily: decoder\nlayers: 2\nhidden: 64\nheads: 4\nvocab: 100\n" + extra,
        "m.yaml");
    try {
      parse_model_spec(*root);
      return std::string("parsed");
    } catch (const Failure& f) {
      return f.error().message;
    }
  };
  EXPECT_EQ(parse("ffn: 128\n"), "parsed");
  EXPECT_EQ(parse("experts: 4\nexperts_per_token: 2\nexpert_ffn: 32\n"), "parsed");
  EXPECT_NE(parse("ffn: 128\nexpert_ffn: 32\n").find("give experts"), std::string::npos);
  EXPECT_NE(
      parse("experts: 4\nexperts_per_token: 2\nexpert_ffn: 32\nffn: 128\n").find("instead of ffn"),
      std::string::npos);
  EXPECT_NE(parse("experts: 4\nexperts_per_token: 5\nexpert_ffn: 32\n").find("at most experts"),
            std::string::npos);
  EXPECT_NE(parse("experts: 4\nexpert_ffn: 32\n").find("experts_per_token"), std::string::npos);
}

}  // namespace
}  // namespace tessera::zoo
