// Every ONNX fixture (models/fixtures/reference.json) imports, compiles with every design and
// simulates on an IPU (ipu-mk2-hbm3e) and on a Tenstorrent Wormhole (wormhole-n150, 80 cores of
// 1.5 MB): the fixtures are sized for today's planner on both.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "framework/driver/driver.hpp"
#include "tests/unit/temp_dir.hpp"

#ifndef TESSERA_SOURCE_DIR
#error "TESSERA_SOURCE_DIR must be defined by the build"
#endif

namespace tessera::driver {
namespace {

PluginSet& plugins() {
  static PluginSet set(Registry::discover(plugin_search_dirs({})));
  return set;
}

nlohmann::json reference() {
  std::ifstream in(std::string(TESSERA_SOURCE_DIR) + "/models/fixtures/reference.json");
  return nlohmann::json::parse(in);
}

LoadedModel load_fixture(const std::string& name, const nlohmann::json& ref) {
  ModelRequest request;
  request.model = std::string(TESSERA_SOURCE_DIR) + "/models/fixtures/" + name + ".onnx";
  request.onnx.dims = ref.at("dims").get<std::map<std::string, int64_t>>();
  if (ref.contains("past_length")) {  // as `--seq`
    request.shape.seq = ref.at("past_length").get<int64_t>();
    request.shape_given = true;
  }
  return load(request).take();
}

void compile_and_simulate(const ChipChoice& choice) {
  OpenChip chip = open_chip(plugins(), choice).take();
  CompileOptions options;
  options.designs = parse_design_choice("all").take().planned;
  options.simulate = true;
  options.threads = 2;
  nlohmann::json refs = reference();
  for (const auto& [name, ref] : refs.items()) {
    SCOPED_TRACE(name + " on " + choice.chip);
    auto compiled = compile(chip, load_fixture(name, ref), options);
    ASSERT_TRUE(compiled) << compiled.error().message;
    ASSERT_EQ(compiled->designs.size(), 5u);
    for (const auto& design : compiled->designs) {
      double planned = design.plan.result.latency_s;
      EXPECT_TRUE(std::isfinite(planned) && planned > 0) << planned;
      // Ideal is a bound no chip runs: planned only.
      ASSERT_EQ(design.simulated.has_value(), design.plan.result.design != planner::Design::ideal);
      if (!design.simulated) continue;
      double simulated = design.simulated->summary.latency_s;
      EXPECT_TRUE(std::isfinite(simulated) && simulated > 0) << simulated;
    }
  }
}

TEST(OnnxPipeline, EveryFixtureCompilesAndSimulatesOnIpuMk2) {
  compile_and_simulate({"ipu_alltoall", "ipu-mk2-hbm3e"});
}

TEST(OnnxPipeline, EveryFixtureCompilesAndSimulatesOnWormholeN150) {
  compile_and_simulate({"mesh_tenstorrent", "wormhole-n150"});
}

// x (fp32) -> QuantizeLinear (int8 zero point) -> MatMulInteger with an int8 weight.
std::string int8_matmul_model() {
  onnx::ModelProto m;
  m.set_ir_version(8);
  m.add_opset_import()->set_version(13);
  auto* g = m.mutable_graph();
  g->set_name("q");
  auto value = [](onnx::ValueInfoProto* v, const std::string& name, int32_t type,
                  std::vector<int64_t> dims) {
    v->set_name(name);
    v->mutable_type()->mutable_tensor_type()->set_elem_type(type);
    for (int64_t d : dims)
      v->mutable_type()->mutable_tensor_type()->mutable_shape()->add_dim()->set_dim_value(d);
  };
  value(g->add_input(), "x", onnx::TensorProto::FLOAT, {64, 256});
  value(g->add_output(), "y", onnx::TensorProto::INT32, {64, 128});
  auto init = [&](const std::string& name, int32_t type, std::vector<int64_t> dims) {
    auto* t = g->add_initializer();
    t->set_name(name);
    t->set_data_type(type);
    int64_t n = 1;
    for (int64_t d : dims) t->add_dims(d), n *= d;
    for (int64_t i = 0; i < n; ++i)
      type == onnx::TensorProto::FLOAT ? t->add_float_data(0.1f) : t->add_int32_data(1);
  };
  init("scale", onnx::TensorProto::FLOAT, {});
  init("zero", onnx::TensorProto::INT8, {});
  init("w", onnx::TensorProto::INT8, {256, 128});
  auto node = [&](const std::string& op, std::vector<std::string> in, const std::string& out) {
    auto* n = g->add_node();
    n->set_op_type(op);
    n->set_name(op);
    for (const auto& i : in) n->add_input(i);
    n->add_output(out);
  };
  node("QuantizeLinear", {"x", "scale", "zero"}, "q");
  node("MatMulInteger", {"q", "w"}, "y");
  return m.SerializeAsString();
}

// The simulation of Elk-Full, planned beside Basic and Ideal (which is not simulated).
const SimulatedDesign& elk_full(const Compilation& c) {
  for (const CompiledDesign& d : c.designs)
    if (d.plan.result.design == planner::Design::elk_full) return *d.simulated;
  throw std::logic_error("no elk-full design");
}

// The narrow type reaches the cost models: a Wormhole core computes int8, an IPU tile does not.
TEST(OnnxPipeline, Int8MatMulReachesTheCostModel) {
  testing::TempDir dir;
  ModelRequest request;
  request.model = dir.write("q.onnx", int8_matmul_model()).string();
  LoadedModel model = load(request).take();
  CompileOptions options;
  options.designs = parse_design_choice("elk-full").take().planned;
  options.simulate = true;
  OpenChip wormhole = open_chip(plugins(), ChipChoice{"mesh_tenstorrent", "wormhole-n150"}).take();
  auto on_wormhole = compile(wormhole, model, options);
  ASSERT_TRUE(on_wormhole) << on_wormhole.error().message;
  EXPECT_GT(elk_full(*on_wormhole).summary.latency_s, 0);
  EXPECT_GT(elk_full(*on_wormhole).energy->compute_j, 0) << "int8 is priced";
  // A chip file that prices no int8: the latency stands, the energy is left out (with a warning).
  ResolvedChip unpriced =
      resolve_chip(plugins(), ChipChoice{"mesh_tenstorrent", "wormhole-n150"}).take();
  unpriced.spec.energy->pj_per_flop.erase("int8");
  OpenChip no_int8 = open_chip(plugins(), std::move(unpriced)).take();
  auto without = compile(no_int8, model, options).take();
  EXPECT_EQ(elk_full(without).summary.latency_s, elk_full(*on_wormhole).summary.latency_s);
  EXPECT_FALSE(elk_full(without).energy.has_value());
  EXPECT_FALSE(without.designs.back().plan.result.energy.has_value());
  OpenChip ipu = open_chip(plugins(), ChipChoice{"ipu_alltoall", "ipu-mk2-hbm3e"}).take();
  auto on_ipu = compile(ipu, model, options);
  ASSERT_FALSE(on_ipu);
  EXPECT_EQ(on_ipu.error().message,
            "op 'MatMulInteger': the target's cost model gives no time for any tile of it (kind "
            "matmul, type int8); choose a target whose cores compute in it");
}

}  // namespace
}  // namespace tessera::driver
