// The PyTorch exports in models/fixtures against the PyTorch modules' own counts, which
// models/make_fixtures.py records in models/fixtures/reference.json (parameters and buffers, and
// multiply-accumulate FLOPs counted by forward hooks), and against numbers computed here from the
// architectures.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>

#include "framework/frontend/onnx/importer.hpp"
#include "framework/ir/analysis.hpp"
#include "framework/ir/repeats.hpp"

#ifndef TESSERA_SOURCE_DIR
#error "TESSERA_SOURCE_DIR must be defined by the build"
#endif

namespace tessera::onnx_import {
namespace {

ir::Graph import(const std::string& name, std::map<std::string, int64_t> dims) {
  return import_onnx_file(std::string(TESSERA_SOURCE_DIR) + "/models/fixtures/" + name,
                          OnnxOptions{std::move(dims), false, std::nullopt})
      .take();
}

// FLOPs of the multiply-accumulates alone (2 per point of every contraction).
double mac_flops(const ir::Graph& g) {
  double f = 0;
  for (const auto& op : g.ops())
    if (op.einsum.fn == "mac") f += 2 * op.einsum.points();
  return f;
}

size_t count_kind(const ir::Graph& g, ir::OpKind kind) {
  size_t n = 0;
  for (const auto& op : g.ops()) n += op.kind == kind;
  return n;
}

constexpr int64_t B = 2, S = 16;

nlohmann::json reference() {
  std::ifstream in(std::string(TESSERA_SOURCE_DIR) + "/models/fixtures/reference.json");
  return nlohmann::json::parse(in);
}

ir::Graph import_fixture(const std::string& name, const nlohmann::json& ref) {
  OnnxOptions options;
  options.dims = ref.at("dims").get<std::map<std::string, int64_t>>();
  if (ref.contains("past_length")) options.past_length = ref.at("past_length").get<int64_t>();
  return import_onnx_file(std::string(TESSERA_SOURCE_DIR) + "/models/fixtures/" + name + ".onnx",
                          options)
      .take();
}

double weight_elements(const ir::Graph& g) {
  double n = 0;
  for (const auto& t : g.tensors())
    if (t.role == ir::TensorRole::weight && t.view_of.empty()) n += t.elements();
  return n;
}

// Every fixture: the weights the importer finds are exactly what the module's export keeps (its
// parameters and buffers, BatchNorms folded into convolutions), and the importer's
// multiply-accumulate FLOPs are the module's, counted by hooks while it ran the export's example,
// within 0.5 % (the bound covers contractions a hook sees differently; today all agree exactly).
TEST(OnnxFixtures, WeightsAndFlopsMatchThePyTorchModules) {
  auto refs = reference();
  ASSERT_EQ(refs.size(), 12u);
  std::set<int> opsets;
  for (const auto& [name, ref] : refs.items()) {
    SCOPED_TRACE(name);
    ir::Graph g = import_fixture(name, ref);
    EXPECT_EQ(weight_elements(g), ref.at("exported_parameters").get<double>());
    double flops = ref.at("mac_flops").get<double>();
    EXPECT_NEAR(mac_flops(g), flops, 0.005 * flops);
    auto file = std::string(TESSERA_SOURCE_DIR) + "/models/fixtures/" + name + ".onnx";
    EXPECT_EQ(std::filesystem::file_size(file), ref.at("bytes").get<uintmax_t>());
    EXPECT_LT(std::filesystem::file_size(file), uintmax_t{2} << 20);
    opsets.insert(ref.at("opset").get<int>());
  }
  EXPECT_EQ(opsets, (std::set<int>{14, 15, 16, 17}));
}

size_t count_fn(const ir::Graph& g, const std::string& fn, size_t inputs = 0) {
  size_t n = 0;
  for (const auto& op : g.ops())
    n += op.einsum.fn == fn && (inputs == 0 || op.einsum.inputs.size() == inputs);
  return n;
}

// Norms, GELUs and masked softmaxes that the exporter spelled out op by op come back as one op
// each (2 layers per fixture, plus the final norm).
TEST(OnnxFixtures, ExportedLayersAreFusedBack) {
  auto refs = reference();
  ir::Graph llama = import_fixture("llama_decode", refs.at("llama_decode"));
  EXPECT_EQ(count_fn(llama, "rmsnorm"), 5u);
  EXPECT_EQ(count_fn(llama, "softmax", 3), 2u);  // scores, scale, causal mask
  EXPECT_EQ(count_fn(llama, "div") + count_fn(llama, "reciprocal") + count_fn(llama, "pow"), 0u);
  ir::Graph gpt2 = import_fixture("gpt2_decode", refs.at("gpt2_decode"));
  EXPECT_EQ(count_fn(gpt2, "layernorm"), 5u);  // opset 16: exported as 9 ops each
  EXPECT_EQ(count_fn(gpt2, "gelu_tanh"), 2u);
  EXPECT_EQ(count_fn(gpt2, "tanh"), 0u);
  ir::Graph vit = import_fixture("vit_like", refs.at("vit_like"));
  EXPECT_EQ(count_fn(vit, "gelu"), 2u);
  EXPECT_EQ(count_fn(vit, "erf"), 0u);
  EXPECT_EQ(count_fn(import_fixture("mistral_like", refs.at("mistral_like")), "rmsnorm"), 5u);
  ir::Graph unet = import_fixture("unet_like", refs.at("unet_like"));
  EXPECT_EQ(count_fn(unet, "layernorm", 3), 1u);  // GroupNorm: x, scale, bias
  EXPECT_EQ(count_kind(unet, ir::OpKind::normalization), 1u);
}

// A decode step's present outputs are the KV caches in HBM, of past + 1 positions, each updated by
// one op that writes only the new position.
TEST(OnnxFixtures, DecodeGraphsWriteTheirKvCachesInPlace) {
  auto refs = reference();
  for (const char* name : {"llama_decode", "gpt2_decode"}) {
    SCOPED_TRACE(name);
    const auto& ref = refs.at(name);
    ir::Graph g = import_fixture(name, ref);
    ir::Totals t = ir::totals(g);
    EXPECT_DOUBLE_EQ(t.kv_cache_bytes, ref.at("kv_cache_elements").get<double>() * 4);
    int writes = 0;
    for (const auto& op : g.ops()) {
      const ir::Tensor& out = g.storage_tensor(op.einsum.output.tensor);
      if (out.role != ir::TensorRole::kv_cache) continue;
      ++writes;
      ir::OpCost c = ir::op_cost(g, op);
      EXPECT_TRUE(c.writes_hbm);
      EXPECT_DOUBLE_EQ(c.bytes_out, out.bytes() / static_cast<double>(out.shape[2]));
      EXPECT_EQ(op.einsum.output.index[2].str(), "d2+" + std::to_string(out.shape[2] - 1));
    }
    EXPECT_EQ(writes, ref.at("kv_caches").get<int>());
  }
}

TEST(OnnxFixtures, GptLike) {
  const int64_t V = 256, H = 64, heads = 4, F = 256, L = 2, P = 64, hd = H / heads;
  ir::Graph g = import("gpt_like.onnx", {{"batch", B}, {"seq", S}});
  // make_fixtures.py: "gpt_like: 136960 parameters, 0 buffer elements".
  const int64_t params =
      V * H + P * H + L * (4 * H + 4 * H * H + 4 * H + 2 * H * F + F + H) + 2 * H + H * V;
  ASSERT_EQ(params, 136960);
  ir::Totals t = ir::totals(g);
  EXPECT_DOUBLE_EQ(t.weight_bytes, params * 4.0);
  double linear = 2.0 * B * S * (L * (4 * H * H + 2 * H * F) + H * V);
  double attention = L * 2 * (2.0 * B * heads * S * S * hd);
  EXPECT_DOUBLE_EQ(mac_flops(g), linear + attention);
  EXPECT_EQ(count_kind(g, ir::OpKind::softmax), static_cast<size_t>(L));
  EXPECT_EQ(count_kind(g, ir::OpKind::normalization), static_cast<size_t>(2 * L + 1));
  EXPECT_EQ(count_kind(g, ir::OpKind::batched_matmul), static_cast<size_t>(2 * L));
  auto layers = ir::repeated_layers(g, ir::identical_ops(g), ir::edges(g));
  ASSERT_TRUE(layers);
  EXPECT_EQ(layers->count, L);
  EXPECT_EQ(layers->ops_per_layer, 27);  // GELU's five exported ops fused into one
}

TEST(OnnxFixtures, LlamaLike) {
  const int64_t V = 256, H = 64, heads = 4, kv = 2, F = 172, L = 2, P = 64, hd = H / heads;
  ir::Graph g = import("llama_like.onnx", {{"batch", B}, {"seq", S}});
  // "llama_like: 123712 parameters, 2048 buffer elements" (rotary cos and sin tables).
  const int64_t params = V * H + L * (2 * H + 2 * H * H + 2 * H * kv * hd + 3 * H * F) + H + H * V;
  ASSERT_EQ(params, 123712);
  ASSERT_EQ(2 * P * hd, 2048);
  EXPECT_DOUBLE_EQ(ir::totals(g).weight_bytes, (params + 2 * P * hd) * 4.0);
  double linear = 2.0 * B * S * (L * (2 * H * H + 2 * H * kv * hd + 3 * H * F) + H * V);
  double attention = L * 2 * (2.0 * B * heads * S * S * hd);
  EXPECT_DOUBLE_EQ(mac_flops(g), linear + attention);
  EXPECT_EQ(count_kind(g, ir::OpKind::softmax), static_cast<size_t>(L));
  auto layers = ir::repeated_layers(g, ir::identical_ops(g), ir::edges(g));
  ASSERT_TRUE(layers);
  EXPECT_EQ(layers->count, L);
}

TEST(OnnxFixtures, SmallCnn) {
  const int64_t C = 16, K = 10, image = 32;
  ir::Graph g = import("small_cnn.onnx", {{"batch", B}});
  // "small_cnn: 6058 parameters, 64 buffer elements". In eval mode the exporter folds each
  // BatchNorm into the conv before it: the 2 x 2C BatchNorm parameters and the running statistics
  // disappear, and the bias-less stem conv gains a bias of C.
  const int64_t stem = 3 * C * 9, bn = 2 * C, grouped = C * (C / 4) * 9 + C;
  const int64_t conv_b = 2 * C * C * 9 + 2 * C, linear = 2 * C * K + K;
  const int64_t params = stem + bn + grouped + bn + conv_b + linear;
  ASSERT_EQ(params, 6058);
  EXPECT_DOUBLE_EQ(ir::totals(g).weight_bytes, (params - 4 * C + C) * 4.0);
  EXPECT_EQ(count_kind(g, ir::OpKind::conv), 3u);
  double stem_flops = 2.0 * B * C * image * image * 3 * 9;
  double grouped_flops = 2.0 * B * C * (image / 2) * (image / 2) * (C / 4) * 9;
  double strided_flops = 2.0 * B * 2 * C * (image / 4) * (image / 4) * C * 9;
  double head_flops = 2.0 * B * 2 * C * K;
  EXPECT_DOUBLE_EQ(mac_flops(g), stem_flops + grouped_flops + strided_flops + head_flops);
  const ir::Op* conv_a = nullptr;
  for (const auto& op : g.ops())
    if (op.name == "/conv_a/Conv") conv_a = &op;
  ASSERT_NE(conv_a, nullptr);
  // groups=4, dilation 2, padding 2.
  EXPECT_EQ(conv_a->einsum.str(),
            "mac([n,4*g+c,p0+2*r0-2,p1+2*r1-2],[4*g+m,c,r0,r1],[4*g+m])->[n,4*g+m,p0,p1]");
}

}  // namespace
}  // namespace tessera::onnx_import
