// Every ONNX fixture (models/fixtures/reference.json) imports, compiles with every design and
// simulates on an IPU (ipu-mk2-hbm3e) and on a Tenstorrent Wormhole (wormhole-n150, 80 cores of
// 1.5 MB): the fixtures are sized for today's planner on both.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>

#include "framework/driver/driver.hpp"

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
      ASSERT_TRUE(design.simulated);
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

}  // namespace
}  // namespace tessera::driver
