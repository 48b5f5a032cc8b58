// Compiling with a core's tiles mapped (--core-cost tcm, chip/core_cost.hpp): the per-op plans are
// timed by the mapper, each op records how one core runs its tile, the plan keeps it through
// plan.yaml, and a plugin Partitioner's plans are re-timed by the two models' ratio.
#include <gtest/gtest.h>

#include <cmath>

#include "framework/driver/driver.hpp"
#include "framework/planner/plan_yaml.hpp"
#include "tests/unit/driver/fixtures.hpp"

namespace tessera::driver {
namespace {

using planner::Design;

using fixtures::plugins;
using fixtures::zoo_model;

OpenChip chip(const std::string& target, const std::string& name) {
  return open_chip(plugins(), ChipChoice{target, name}).take();
}

planner::DesignResult static_design(OpenChip& c, const LoadedModel& model) {
  CompileOptions options;
  options.designs = {Design::static_split};
  options.threads = 2;
  return compile(c, model, options).take().designs.at(0).plan.result;
}

TEST(CoreCostCompile, TcmNeedsACoreAndSaysWhere) {
  OpenChip tree = chip("tree_simd", "patent-2level");
  Error e = choose_core_cost(tree, CoreCost::tcm).error();
  EXPECT_EQ(e.kind, ErrorKind::usage);
  EXPECT_EQ(e.message,
            "--core-cost tcm maps each tile onto the core's memory hierarchy, and chip "
            "'patent-2level' has none: give a chip file with a core: section (an architecture "
            "preset such as tensix_core, ipu_tile or mncore2_pe, a spec file, or the spec "
            "inline; docs/mapper.md)");
  EXPECT_TRUE(choose_core_cost(tree, CoreCost::plugin).ok());
}

TEST(CoreCostCompile, EveryMatmulRecordsItsCoresMappingAndThePlanKeepsIt) {
  OpenChip ipu = chip("ipu_alltoall", "ipu-mk2-hbm3e");
  LoadedModel model = zoo_model("llama2-7b", 2, 64);
  planner::DesignResult fitted = static_design(ipu, model);
  ASSERT_TRUE(choose_core_cost(ipu, CoreCost::tcm).ok());
  planner::DesignResult mapped = static_design(ipu, model);
  size_t matmuls = 0;
  for (size_t i = 0; i < mapped.ops.size(); ++i) {
    const planner::OpSchedule& op = mapped.ops[i];
    EXPECT_FALSE(fitted.ops[i].core_mapping) << "the plugin's cost model maps nothing";
    if (!op.core_mapping) continue;
    ++matmuls;
    SCOPED_TRACE(op.name);
    EXPECT_EQ(op.core_mapping->arch, "ipu_tile");
    EXPECT_GT(op.core_mapping->tile_s, 0);
    EXPECT_GT(op.core_mapping->tile_j, 0);
    EXPECT_LE(op.core_mapping->tile_s, op.exec.compute_s * (1 + 1e-12));
    EXPECT_GT(op.core_mapping->utilization, 0);
    EXPECT_LE(op.core_mapping->utilization, 1 + 1e-9);
    EXPECT_EQ(op.core_mapping->looptree.rfind("TileMemory keeps", 0), 0u);
  }
  // q, k, v, o, gate, up, down, scores and attn_v per layer, and the head.
  EXPECT_EQ(matmuls, 9u * 32 + 1);
  planner::Plan plan{{}, ipu.models.machine, {}, mapped};
  planner::Plan back = planner::parse_plan_yaml(planner::write_plan_yaml(plan), "p.yaml").take();
  for (size_t i = 0; i < mapped.ops.size(); ++i) {
    ASSERT_EQ(back.result.ops[i].core_mapping.has_value(), mapped.ops[i].core_mapping.has_value());
    if (!mapped.ops[i].core_mapping) continue;
    EXPECT_EQ(back.result.ops[i].core_mapping->looptree, mapped.ops[i].core_mapping->looptree);
    EXPECT_EQ(back.result.ops[i].core_mapping->tile_s, mapped.ops[i].core_mapping->tile_s);
    EXPECT_EQ(back.result.ops[i].core_mapping->tile_j, mapped.ops[i].core_mapping->tile_j);
  }
}

TEST(CoreCostCompile, APluginPartitionersPlansAreRetimedByTheRatio) {
  OpenChip tree = chip("tree_simd", "mncore2-mini");
  LoadedModel model = zoo_model("dit-xl", 1, 256);
  planner::DesignResult fitted = static_design(tree, model);
  ASSERT_TRUE(choose_core_cost(tree, CoreCost::tcm).ok());
  planner::DesignResult mapped = static_design(tree, model);
  size_t recorded = 0;
  for (const planner::OpSchedule& op : mapped.ops) recorded += op.core_mapping.has_value();
  EXPECT_GT(recorded, 0u);
  EXPECT_NE(mapped.latency_s, fitted.latency_s);
  EXPECT_TRUE(std::isfinite(mapped.latency_s));
}

}  // namespace
}  // namespace tessera::driver
