// Precision files: the parser's errors, word for word, and what a file does to a zoo graph (each
// tensor group's type, each op group's fidelity), against counts made here by hand.
#include "framework/frontend/zoo/precision.hpp"

#include <gtest/gtest.h>
#include <tessera/plugin_abi.h>

#include <filesystem>

#include "framework/frontend/zoo/builders.hpp"
#include "framework/frontend/zoo/zoo.hpp"
#include "framework/ir/analysis.hpp"

namespace tessera::zoo {
namespace {

Precision parse(const std::string& text) {
  return parse_precision_text(text, "p.yaml").take();
}

std::string error_of(const std::string& text) {
  auto p = parse_precision_text(text, "p.yaml");
  EXPECT_FALSE(p.ok()) << text;
  return p.ok() ? "" : p.error().message;
}

TEST(Precision, ReadsTensorGroupsActivationsAndFidelity) {
  Precision p = parse(
      "format: tessera-precision-1\n"
      "tensors: {mlp.ff1: bfp4, attention.wqkv: bfp8, kv_cache: bfp8, activations: bf16}\n"
      "fidelity: {li_ff1_3: lofi, sdpa_prefill: hifi4}\n");
  EXPECT_EQ(p.tensors.size(), 3u);
  EXPECT_EQ(p.tensors.at("mlp.ff1"), ir::DType::bfp4);
  EXPECT_EQ(p.tensors.at("kv_cache"), ir::DType::bfp8);
  EXPECT_EQ(p.activations, ir::DType::bf16);
  EXPECT_EQ(p.fidelity.at("li_ff1_3"), uint32_t{TESSERA_MATH_FIDELITY_LOFI});
  EXPECT_EQ(p.fidelity.at("sdpa_prefill"), uint32_t{TESSERA_MATH_FIDELITY_HIFI4});
  // Written out and read again: the same settings (plan.yaml keeps them this way).
  EXPECT_EQ(parse(precision_yaml(p)), p);
}

TEST(Precision, RefusesBadFilesNamingLineKeyAndWhatFits) {
  EXPECT_EQ(error_of("tensors: {mlp.ff1: bfp4}\n"), "p.yaml:1: missing required key 'format'");
  EXPECT_EQ(error_of("format: tessera-precision-9\n"),
            "p.yaml:1: 'format': expected tessera-precision-1, got 'tessera-precision-9'");
  EXPECT_EQ(error_of("format: tessera-precision-1\ntensors:\n  mlp.ff9: bfp4\n"),
            "p.yaml:3: 'tensors.mlp.ff9': is not a tensor group; expected one of "
            "attention.wqkv, attention.wo, mlp.ff1, mlp.ff3, mlp.ff2, lm_head, embedding, "
            "kv_cache, activations");
  EXPECT_EQ(error_of("format: tessera-precision-1\ntensors:\n  mlp.ff1: bfp3\n"),
            "p.yaml:3: 'tensors.mlp.ff1': expected one of fp32, fp16, bf16, fp8, bfp8, bfp4, "
            "bfp2, got 'bfp3'");
  EXPECT_EQ(error_of("format: tessera-precision-1\ntensors:\n  activations: bfp8\n"),
            "p.yaml:3: 'tensors.activations': expected one of fp32, fp16, bf16, fp8, got 'bfp8'");
  EXPECT_EQ(error_of("format: tessera-precision-1\nfidelity:\n  li_ff1_3: hifi5\n"),
            "p.yaml:3: 'fidelity.li_ff1_3': expected one of lofi, hifi2, hifi3, hifi4, got "
            "'hifi5'");
  EXPECT_EQ(error_of("format: tessera-precision-1\nfidelity:\n  matmul: lofi\n"),
            "p.yaml:3: 'fidelity.matmul': is not an op group; expected one of li_ff1_3, li_ff2, "
            "li_qkv_decode, li_qkv_prefill, li_o_decode, li_o_prefill, sdpa_decode, "
            "sdpa_prefill, lm_head");
}

TEST(Precision, NamesZooTensorsAndOpsByGroup) {
  EXPECT_EQ(weight_group("layers.3.q_proj.weight"), "attention.wqkv");
  EXPECT_EQ(weight_group("layers.3.v_proj.bias"), "attention.wqkv");
  EXPECT_EQ(weight_group("layers.3.gate_proj.weight"), "mlp.ff1");
  EXPECT_EQ(weight_group("layers.0.experts.7.down_proj.weight"), "mlp.ff2");
  EXPECT_EQ(weight_group("embed.weight"), "embedding");
  EXPECT_EQ(weight_group("layers.3.attn_norm.weight"), "");
  EXPECT_EQ(weight_group("layers.3.q_proj"), "") << "an activation, not a weight";
  EXPECT_EQ(op_group("layers.3.up_proj", true), "li_ff1_3");
  EXPECT_EQ(op_group("layers.3.o_proj", false), "li_o_prefill");
  EXPECT_EQ(op_group("layers.3.scores", true), "sdpa_decode");
  EXPECT_EQ(op_group("layers.3.softmax", true), "");
}

// Llama 3.1 8B at tt-metal's performance precision: ff1 and ff3 (gate, up) in bfp4, every other
// projection, the head and the KV cache in bfp8; the embedding and the norms keep bf16.
TEST(Precision, RetypesALlamaAsTtMetalsPerformanceConfig) {
  Precision p =
      parse_precision_file(std::string(TESSERA_SOURCE_DIR) + "/configs/precision/tt-perf.yaml")
          .take();
  RunShape shape;
  shape.seq = 1024;
  shape.precision = p;
  ir::Graph g = build_model(find_model("llama3.1-8b").take(), shape).take();
  // Hand count (hidden 4096, ffn 14336, 32 layers, 8 KV heads of 128, vocab 128256):
  const double layers = 32, hidden = 4096, ffn = 14336, kv = 8 * 128, vocab = 128256;
  const double ff13 = 2 * hidden * ffn, ff2 = hidden * ffn;
  const double attn = hidden * hidden * 2 + 2 * hidden * kv;  // q, o and k, v
  const double norms = (2 * layers + 1) * hidden;
  double expected = layers * (ff13 * 0.5625 + (ff2 + attn) * 1.0625) + vocab * hidden * 1.0625 +
                    vocab * hidden * 2 + norms * 2;
  EXPECT_NEAR(ir::totals(g).weight_bytes / expected, 1.0, 1e-9);
  // KV cache: 32 layers x K and V x 1024 positions x 1024 values, bfp8.
  EXPECT_NEAR(ir::totals(g).kv_cache_bytes, layers * 2 * 1024 * kv * 1.0625, 1.0);
  for (const auto& op : g.ops()) {
    std::string group = op_group(op.name, true);
    uint32_t want = group.empty() ? 0 : p.fidelity.at(group);
    EXPECT_EQ(op.math_fidelity, want) << op.name;
  }
}

TEST(Precision, RefusesATensorGroupTheModelHasNot) {
  RunShape shape;
  shape.seq = 64;
  shape.precision = parse("format: tessera-precision-1\ntensors: {mlp.ff1: bfp4}\n");
  auto g = build_model(find_model("gpt2-xl").take(), shape);
  ASSERT_FALSE(g.ok());
  EXPECT_EQ(g.error().message,
            "precision: tensor group 'mlp.ff1' matches no tensor of gpt2-xl decode b1 s64; its "
            "groups are: attention.wo, attention.wqkv, embedding, kv_cache, mlp.ff2, mlp.ff3");
}

}  // namespace
}  // namespace tessera::zoo
