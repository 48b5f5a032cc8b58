// A strategy's compile written as parallel.yaml and its stage plans, and read back: the same
// figures, each stage plan reopened on one chip of the machine, and a stage plan that no longer
// matches its stage refused with the file and the field.
#include "framework/parallel/parallel_yaml.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "framework/planner/plan_yaml.hpp"
#include "tests/unit/driver/fixtures.hpp"

namespace tessera::parallel {
namespace {

namespace fs = std::filesystem;
using driver::fixtures::plugins;
using planner::Design;

std::string slurp(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

void spill(const fs::path& path, const std::string& text) {
  std::ofstream(path) << text;
}

// llama3.1-8b at pp=2,tp=4 on a T3000, written as compile -o writes it (elk-full's plans).
struct Written {
  fs::path dir;
  ParallelCompilation compiled;
  std::string parallel_yaml;
};

const Written& written() {
  static const Written w = [] {
    driver::OpenChip chip =
        driver::open_chip(plugins(), driver::ChipChoice{"mesh_tenstorrent", "wormhole-t3000"})
            .take();
    ModelRequest request;
    request.model = "llama3.1-8b";
    request.shape.batch = 1;
    request.shape.seq = 256;
    request.shape.weight_dtype = ir::DType::bfp8;
    request.shape_given = true;
    ParallelModel model = parallel_model(request).take();
    driver::CompileOptions options;
    options.designs = {Design::elk_full};
    Written out;
    out.compiled =
        compile_parallel(plugins(), chip, model, parse_strategy("pp=2,tp=4").take(), options)
            .take();
    out.dir = fs::temp_directory_path() / ("tessera_parallel_yaml_" + std::to_string(getpid()));
    fs::remove_all(out.dir);
    fs::create_directories(out.dir);
    for (size_t s = 0; s < out.compiled.stages.size(); ++s)
      spill(out.dir / stage_plan_file(out.compiled, s),
            planner::write_plan_yaml(
                out.compiled.compilations[out.compiled.stages[s].compilation].designs[0].plan));
    auto source = driver::plan_source(driver::LoadedModel{request, nullptr}, chip,
                                      *out.compiled.compilations.front().graph);
    out.parallel_yaml = write_parallel_yaml(parallel_plan(out.compiled, source, Design::elk_full));
    spill(out.dir / "parallel.yaml", out.parallel_yaml);
    return out;
  }();
  return w;
}

TEST(ParallelYaml, ReadsBackTheSameFigures) {
  const Written& w = written();
  ASSERT_TRUE(is_parallel_yaml(w.parallel_yaml));
  ParallelPlan plan = read_parallel_yaml((w.dir / "parallel.yaml").string()).take();
  EXPECT_EQ(write_parallel_yaml(plan), w.parallel_yaml);  // every number reads back exactly
  EXPECT_EQ(plan.strategy.tp, 4);
  EXPECT_EQ(plan.strategy.pp, 2);
  EXPECT_EQ(plan.strategy.stage_layers, (std::vector<int64_t>{16, 16}));
  EXPECT_EQ(plan.design, "elk-full");
  EXPECT_EQ(plan.source.model, "llama3.1-8b");
  EXPECT_EQ(plan.source.weight_dtype, "bfp8");
  ASSERT_EQ(plan.stages.size(), 2u);
  EXPECT_EQ(plan.stages[0].plan, "stage-0.yaml");
  EXPECT_EQ(plan.stages[1].plan, "stage-1.yaml");
  EXPECT_EQ(plan.stages[1].first_layer, 16);
  EXPECT_EQ(plan.stages[1].chips, w.compiled.stages[1].chips);
  ASSERT_EQ(plan.collectives.size(), w.compiled.collectives.size());
  for (size_t i = 0; i < plan.collectives.size(); ++i) {
    EXPECT_EQ(plan.collectives[i].bytes, w.compiled.collectives[i].op.bytes);
    EXPECT_EQ(plan.collectives[i].seconds, w.compiled.collectives[i].planned.seconds);
    EXPECT_EQ(plan.collectives[i].where, w.compiled.collectives[i].where);
  }
  ASSERT_EQ(plan.designs.size(), 1u);
  EXPECT_EQ(plan.designs[0].step_s, w.compiled.designs[0].planned_s);
  EXPECT_EQ(plan.designs[0].stage_s, w.compiled.designs[0].stage_planned_s);
  EXPECT_FALSE(is_parallel_yaml(slurp(w.dir / "stage-0.yaml")));
}

TEST(ParallelYaml, StagePlansReopenOnOneChipWithTheSamePlannedStep) {
  const Written& w = written();
  const std::string stage0 = (w.dir / "stage-0.yaml").string();
  planner::Plan plan = planner::read_plan_yaml(stage0).take();
  ASSERT_TRUE(plan.source.stage);
  EXPECT_EQ(plan.source.stage->one_chip_of, 8);
  EXPECT_EQ(plan.source.stage->tp, 4);
  EXPECT_EQ(plan.source.stage->last_layer, 16);
  driver::Reopened reopened = driver::reopen(plugins(), plan, stage0).take();
  EXPECT_EQ(reopened.chip.models.machine.chips, 1u);
  EXPECT_EQ(reopened.graph->ops().size(), w.compiled.compilations[0].graph->ops().size());
  EXPECT_EQ(plan.result.latency_s, w.compiled.compilations[0].designs[0].plan.result.latency_s);

  ParallelPlan parallel = read_parallel_yaml((w.dir / "parallel.yaml").string()).take();
  ReopenedParallel again =
      reopen_parallel(plugins(), parallel, (w.dir / "parallel.yaml").string(), false).take();
  ASSERT_EQ(again.compiled.designs.size(), 1u);
  EXPECT_DOUBLE_EQ(again.compiled.designs[0].planned_s, w.compiled.designs[0].planned_s);
  EXPECT_EQ(again.compiled.stages[1].all_chips, w.compiled.stages[1].all_chips);
}

std::string reopen_error(const std::string& parallel_file) {
  auto plan = read_parallel_yaml(parallel_file);
  if (!plan) return plan.error().message;
  auto reopened = reopen_parallel(plugins(), *plan, parallel_file, false);
  return reopened ? "" : reopened.error().message;
}

TEST(ParallelYaml, RefusesAStagePlanThatNoLongerMatches) {
  const Written& w = written();
  const fs::path dir = w.dir / "tampered";
  fs::create_directories(dir);
  spill(dir / "parallel.yaml", w.parallel_yaml);
  std::string stage0 = slurp(w.dir / "stage-0.yaml");
  spill(dir / "stage-1.yaml", slurp(w.dir / "stage-1.yaml"));
  const std::string shard =
      "shard: {tp: 4, ep: 1, first_layer: 0, last_layer: 16, embedding: 1, head: 0}";
  ASSERT_NE(stage0.find(shard), std::string::npos);
  // The first stage's plan swapped for the second's: its layers are not the stage's.
  spill(dir / "stage-0.yaml", slurp(w.dir / "stage-1.yaml"));
  EXPECT_EQ(reopen_error((dir / "parallel.yaml").string()),
            (dir / "stage-0.yaml").string() +
                ": source.shard: the plan is layers 16-32 at tp 4, ep 1, but its stage is "
                "layers 0-16 at tp 4, ep 1 — re-run tessera compile --parallel");
  // A stage plan that is not there: the field of parallel.yaml that names it.
  fs::remove(dir / "stage-0.yaml");
  EXPECT_EQ(reopen_error((dir / "parallel.yaml").string())
                .rfind((dir / "parallel.yaml").string() + ": stages[0].plan: ", 0),
            0u);
  // A shard a plan cannot have: refused where it is read, at its line.
  std::string bad = stage0;
  bad.replace(bad.find(shard), shard.size(),
              "shard: {tp: 4, ep: 1, first_layer: 8, last_layer: 4, embedding: 0, head: 0}");
  auto parsed = planner::parse_plan_yaml(bad, "stage-0.yaml");
  ASSERT_FALSE(parsed.ok());
  EXPECT_NE(parsed.error().message.find("stage-0.yaml:"), std::string::npos)
      << parsed.error().message;
  EXPECT_NE(parsed.error().message.find("source.shard.last_layer"), std::string::npos)
      << parsed.error().message;
  // A stage count the strategy does not have.
  std::string one_stage = w.parallel_yaml;
  size_t second = one_stage.find("  - {first_layer: 16");
  ASSERT_NE(second, std::string::npos);
  one_stage.erase(second, one_stage.find('\n', second) + 1 - second);
  spill(dir / "parallel.yaml", one_stage);
  EXPECT_EQ(reopen_error((dir / "parallel.yaml").string()),
            (dir / "parallel.yaml").string() +
                ": stages: 1 stage(s), but the strategy has 2 — re-run tessera compile --parallel");
}

}  // namespace
}  // namespace tessera::parallel
