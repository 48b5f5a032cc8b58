// ONNX import of a 1 GB model whose weights are external data (docs/workloads.md): a Llama-like
// stack of 10 layers, hidden 2048, FFN 5632, fp16 weights (1.03 GB in one data file), written into
// a temporary directory before timing. The importer reads the data file for shapes only, i.e. not
// at all; target < 5 s and < 1 GB peak RSS. Counters: weight bytes imported, ops, peak RSS.
// And what `tessera inspect` does with a chain of 10,000 Relu nodes (import, then the workload
// summary: identical ops, repeated layers): linear in the node count; target <= 2 s.
#include <benchmark/benchmark.h>
#include <onnx/onnx_pb.h>
#include <sys/resource.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "framework/frontend/onnx/importer.hpp"
#include "framework/ir/analysis.hpp"
#include "framework/ir/workload_report.hpp"

namespace tessera::onnx_import {
namespace {

namespace fs = std::filesystem;

constexpr int64_t kLayers = 10, kHidden = 2048, kFfn = 5632, kSeq = 128, kHeads = 16;
constexpr int64_t kElementBytes = 2;  // fp16

double peak_rss_bytes() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_maxrss) * 1024;  // Linux reports KiB
}

struct Builder {
  onnx::GraphProto* graph;
  int64_t offset = 0;  // next free byte of the data file
  int nodes = 0;

  std::string weight(const std::string& name, std::vector<int64_t> dims) {
    auto* w = graph->add_initializer();
    w->set_name(name);
    w->set_data_type(onnx::TensorProto::FLOAT16);
    int64_t bytes = kElementBytes;
    for (int64_t d : dims) {
      w->add_dims(d);
      bytes *= d;
    }
    w->set_data_location(onnx::TensorProto::EXTERNAL);
    for (auto [key, value] : {std::pair<std::string, std::string>{"location", "weights.bin"},
                              {"offset", std::to_string(offset)},
                              {"length", std::to_string(bytes)}}) {
      auto* entry = w->add_external_data();
      entry->set_key(key);
      entry->set_value(value);
    }
    offset += bytes;
    return name;
  }

  std::string shape(const std::string& name, std::vector<int64_t> dims) {
    auto* t = graph->add_initializer();
    t->set_name(name);
    t->set_data_type(onnx::TensorProto::INT64);
    t->add_dims(static_cast<int64_t>(dims.size()));
    for (int64_t d : dims) t->add_int64_data(d);
    return name;
  }

  std::string node(const std::string& op, std::vector<std::string> inputs,
                   std::vector<std::pair<std::string, std::vector<int64_t>>> ints = {}) {
    auto* n = graph->add_node();
    n->set_op_type(op);
    n->set_name(op + "_" + std::to_string(nodes));
    for (const auto& in : inputs) n->add_input(in);
    std::string out = "v" + std::to_string(nodes++);
    n->add_output(out);
    for (const auto& [name, values] : ints) {
      auto* a = n->add_attribute();
      a->set_name(name);
      a->set_type(onnx::AttributeProto::INTS);
      for (int64_t v : values) a->add_ints(v);
    }
    return out;
  }

  // Attention (heads split, scores, softmax, mix) and a SwiGLU MLP, each with its residual.
  std::string layer(int i, const std::string& x) {
    std::string p = "layers." + std::to_string(i) + ".";
    std::string heads = shape(p + "heads", {1, kSeq, kHeads, kHidden / kHeads});
    std::string merged = shape(p + "merged", {1, kSeq, kHidden});
    auto split = [&](const std::string& w) {
      return node(
          "Transpose",
          {node("Reshape", {node("MatMul", {x, weight(p + w, {kHidden, kHidden})}), heads})},
          {{"perm", {0, 2, 1, 3}}});
    };
    std::string q = split("q"), k = split("k"), v = split("v");
    std::string kt = node("Transpose", {k}, {{"perm", {0, 1, 3, 2}}});
    std::string att = node("Softmax", {node("MatMul", {q, kt})});
    std::string mixed = node("Transpose", {node("MatMul", {att, v})}, {{"perm", {0, 2, 1, 3}}});
    std::string o =
        node("MatMul", {node("Reshape", {mixed, merged}), weight(p + "o", {kHidden, kHidden})});
    std::string h = node("Add", {x, o});
    std::string gate = node("MatMul", {h, weight(p + "gate", {kHidden, kFfn})});
    std::string up = node("MatMul", {h, weight(p + "up", {kHidden, kFfn})});
    std::string act = node("Mul", {node("Mul", {gate, node("Sigmoid", {gate})}), up});
    return node("Add", {h, node("MatMul", {act, weight(p + "down", {kFfn, kHidden})})});
  }
};

void add_value(google::protobuf::RepeatedPtrField<onnx::ValueInfoProto>* list,
               const std::string& name) {
  auto* v = list->Add();
  v->set_name(name);
  auto* t = v->mutable_type()->mutable_tensor_type();
  t->set_elem_type(onnx::TensorProto::FLOAT16);
  for (int64_t d : {int64_t{1}, kSeq, kHidden}) t->mutable_shape()->add_dim()->set_dim_value(d);
}

// Writes model.onnx and its 1 GB weights.bin into `dir`; returns the weight bytes.
int64_t write_model(const fs::path& dir) {
  onnx::ModelProto m;
  m.set_ir_version(8);
  m.add_opset_import()->set_version(17);
  Builder b{m.mutable_graph()};
  b.graph->set_name("llama_like_1gb");
  add_value(b.graph->mutable_input(), "x");
  std::string x = "x";
  for (int i = 0; i < kLayers; ++i) x = b.layer(i, x);
  add_value(b.graph->mutable_output(), x);
  std::ofstream(dir / "model.onnx", std::ios::binary) << m.SerializeAsString();
  std::ofstream(dir / "weights.bin", std::ios::binary).close();
  fs::resize_file(dir / "weights.bin", static_cast<uintmax_t>(b.offset));
  return b.offset;
}

void BM_ImportOneGigabyteExternalData(benchmark::State& state) {
  fs::path dir = fs::temp_directory_path() / ("tessera_onnx_bench_" + std::to_string(getpid()));
  fs::create_directories(dir);
  int64_t weight_bytes = write_model(dir);
  double imported_bytes = 0, ops = 0;
  for (auto _ : state) {
    auto g = import_onnx_file((dir / "model.onnx").string(), {});
    if (!g) {
      state.SkipWithError(g.error().message.c_str());
      break;
    }
    imported_bytes = ir::totals(*g).weight_bytes;
    ops = static_cast<double>(g->ops().size());
  }
  fs::remove_all(dir);
  if (imported_bytes != static_cast<double>(weight_bytes))
    state.SkipWithError("the imported weight bytes differ from the model's");
  state.counters["weight_GB"] = imported_bytes / 1e9;
  state.counters["ops"] = ops;
  state.counters["peak_rss_MB"] = peak_rss_bytes() / 1e6;
}
BENCHMARK(BM_ImportOneGigabyteExternalData)->Unit(benchmark::kMillisecond)->Iterations(3);

// A chain of `nodes` Relu nodes over a [1, 64] input, serialized.
std::string relu_chain(int64_t nodes) {
  onnx::ModelProto m;
  m.set_ir_version(8);
  m.add_opset_import()->set_version(17);
  Builder b{m.mutable_graph()};
  b.graph->set_name("relu_chain");
  auto* in = b.graph->add_input();
  in->set_name("x");
  auto* t = in->mutable_type()->mutable_tensor_type();
  t->set_elem_type(onnx::TensorProto::FLOAT);
  for (int64_t d : {1, 64}) t->mutable_shape()->add_dim()->set_dim_value(d);
  std::string x = "x";
  for (int64_t i = 0; i < nodes; ++i) x = b.node("Relu", {x});
  auto* out = b.graph->add_output();
  out->set_name(x);
  auto* out_type = out->mutable_type()->mutable_tensor_type();
  out_type->set_elem_type(onnx::TensorProto::FLOAT);
  for (int64_t d : {1, 64}) out_type->mutable_shape()->add_dim()->set_dim_value(d);
  return m.SerializeAsString();
}

void BM_InspectReluChain(benchmark::State& state) {
  std::string model = relu_chain(state.range(0));
  double ops = 0;
  for (auto _ : state) {
    auto g = import_onnx_bytes(model, "relu_chain.onnx", {});
    if (!g) {
      state.SkipWithError(g.error().message.c_str());
      break;
    }
    auto summary = workload_summary(*g);
    benchmark::DoNotOptimize(summary);
    ops = static_cast<double>(g->ops().size());
  }
  state.counters["ops"] = ops;
}
BENCHMARK(BM_InspectReluChain)->Arg(1000)->Arg(10000)->Unit(benchmark::kMillisecond)->Iterations(1);

}  // namespace
}  // namespace tessera::onnx_import

BENCHMARK_MAIN();
