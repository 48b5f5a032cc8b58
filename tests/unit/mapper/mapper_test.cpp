// The whole search: the same answer for any thread count, an infeasible workload explained, the
// GPT-3 QK case on the TPU-v4i-like spec, mapping files written and read back, the random baseline.
#include "framework/mapper/mapper.hpp"

#include <gtest/gtest.h>

#include "../temp_dir.hpp"
#include "framework/mapper/arch_spec.hpp"
#include "framework/mapper/looptree_yaml.hpp"
#include "framework/mapper/random_search.hpp"
#include "framework/mapper/reference_model.hpp"
#include "framework/mapper/workload_file.hpp"
#include "random_problems.hpp"

namespace tessera::mapper {
namespace {

MapResult map(const Problem& p, const Hierarchy& h, Objective o, int threads, int level = 1) {
  MapperOptions options;
  options.objective = o;
  options.threads = threads;
  options.pareto_level = level;
  return run_mapper(p, h, options);
}

void expect_same(const MapResult& a, const MapResult& b) {
  ASSERT_EQ(a.mappings.size(), b.mappings.size());
  for (size_t i = 0; i < a.mappings.size(); ++i) {
    EXPECT_EQ(a.mappings[i].tree, b.mappings[i].tree);
    EXPECT_EQ(a.mappings[i].metrics.energy_joules, b.mappings[i].metrics.energy_joules);
    EXPECT_EQ(a.mappings[i].metrics.latency_seconds, b.mappings[i].metrics.latency_seconds);
    EXPECT_EQ(a.mappings[i].template_index, b.mappings[i].template_index);
  }
}

TEST(Mapper, SameResultForAnyThreadCount) {
  std::mt19937_64 rng(42);
  for (int i = 0; i < 12; ++i) {
    Problem p = testing::random_problem(rng, static_cast<testing::ProblemKind>(i % 3));
    Hierarchy h = testing::random_hierarchy(rng, p);
    for (Objective o : {Objective::edp, Objective::latency, Objective::pareto}) {
      MapResult one = map(p, h, o, 1, h.num_levels() - 1);
      expect_same(one, map(p, h, o, 2, h.num_levels() - 1));
      expect_same(one, map(p, h, o, 3, h.num_levels() - 1));
    }
  }
}

Hierarchy tpu(const Problem& p) {
  return build_hierarchy(resolve_arch_spec("tpu_v4i_like").take(), p).take();
}

TEST(Mapper, Gpt3QkOnTpuIsBoundByDramTraffic) {
  Problem p = resolve_workload("gpt3-6.7b-qk").take();
  Hierarchy h = tpu(p);
  MapResult r = map(p, h, Objective::edp, 2);
  ASSERT_EQ(r.mappings.size(), 1u);
  // Q and K (512 MiB each) read once and QK (4 GiB) written once is the least DRAM traffic, at
  // 614 GB/s; the optimum reaches it.
  double dram_bytes = 5.0 * 1024 * 1024 * 1024;
  EXPECT_NEAR(r.mappings[0].metrics.latency_seconds, dram_bytes / 614e9, 1e-12);
  double dram_joules = dram_bytes * 8 * 7.03e-12;
  double mac_joules = p.points() * 0.084e-12;
  EXPECT_GT(r.mappings[0].metrics.energy_joules, dram_joules + mac_joules);
  EXPECT_NEAR(r.mappings[0].metrics.energy_joules, 0.3535, 0.0005);
  EXPECT_EQ(r.stats.dataplacements, 32u);
  EXPECT_EQ(r.stats.dataflows, 32u);
  Evaluation ev = evaluate_reference(p, h, r.mappings[0].tree);
  EXPECT_TRUE(ev.valid);
  EXPECT_EQ(ev.metrics.energy_joules, r.mappings[0].metrics.energy_joules);
}

TEST(Mapper, WorkloadThatCannotFitNamesTheLevelAndTensor) {
  Problem p = resolve_workload("gpt3-6.7b-qk").take();
  ArchSpec spec = resolve_arch_spec("tpu_v4i_like").take();
  spec.levels[3].capacity_bytes = 1;  // the register cannot hold one fp16 weight
  Hierarchy h = build_hierarchy(spec, p).take();
  MapResult r = map(p, h, Objective::edp, 1);
  EXPECT_TRUE(r.mappings.empty());
  EXPECT_EQ(r.infeasible,
            "no mapping fits: level Register (capacity 1 B per instance) overflows with tensor K "
            "(weight, 2 B for one element), which it must keep; raise its capacity_bytes or remove "
            "the tensor from its keep list");
}

TEST(MappingFile, WrittenMappingsReadBackAndEvaluateTheSame) {
  tessera::testing::TempDir dir;
  std::mt19937_64 rng(5);
  Problem p = testing::random_problem(rng, testing::ProblemKind::conv);
  Problem small = parse_workload_text(workload_yaml(p), "p.yaml").take();
  Hierarchy h = tpu(small);
  for (Objective o : {Objective::edp, Objective::pareto}) {
    MapResult r = map(small, h, o, 1);
    ASSERT_FALSE(r.mappings.empty());
    auto file = dir.write("m.yaml", mapping_yaml("tpu_v4i_like", small, h, o, r.mappings));
    MappingFile read = read_mapping_file(file).take();
    EXPECT_EQ(read.arch, "tpu_v4i_like");
    EXPECT_EQ(read.problem.str(), small.str());
    ASSERT_EQ(read.trees.size(), r.mappings.size());
    for (size_t i = 0; i < read.trees.size(); ++i) {
      LoopTree tree = looptree_from_yaml(read.trees[i], read.problem, h).take();
      EXPECT_EQ(tree, r.mappings[i].tree);
      EXPECT_EQ(evaluate_reference(small, h, tree).metrics.edp(), r.mappings[i].metrics.edp());
    }
  }
}

std::string mapping_error(const std::string& nodes) {
  tessera::testing::TempDir dir;
  std::string text =
      "tessera_mapping: 1\narch: tpu_v4i_like\nworkload:\n"
      "  einsum: Z[m,n] = A[m,k] * B[k,n]\n  ranks: {m: 4, n: 4, k: 2}\n"
      "mapping:\n" +
      nodes;
  MappingFile file = read_mapping_file(dir.write("m.yaml", text)).take();
  Hierarchy h = tpu(file.problem);
  auto tree = looptree_from_yaml(file.trees[0], file.problem, h);
  return tree ? "(no error)" : tree.error().message;
}

TEST(MappingFile, MistakesNameTheLineAndTheNearestName) {
  std::string backing =
      "  - {storage: MainMemory, tensor: A}\n  - {storage: MainMemory, tensor: B}\n"
      "  - {storage: MainMemory, tensor: Z}\n";
  EXPECT_NE(mapping_error(backing + "  - {storage: LocalBufer, tensor: A}\n")
                .find("m.yaml:10: 'mapping[3].storage': no memory level 'LocalBufer' (did you mean "
                      "'LocalBuffer'?); expected one of MainMemory, GlobalBuffer, LocalBuffer, "
                      "Register"),
            std::string::npos);
  EXPECT_NE(
      mapping_error(backing +
                    "  - {temporal: m, bound: 4}\n  - {temporal: n, bound: 2}\n"
                    "  - {temporal: k, bound: 2}\n  - {storage: LocalBuffer, tensor: A}\n"
                    "  - {storage: LocalBuffer, tensor: Z}\n  - {storage: Register, tensor: B}\n")
          .find("m.yaml:7: 'mapping': the loops over rank n multiply to 2, not its extent 4"),
      std::string::npos);
  EXPECT_NE(
      mapping_error(backing +
                    "  - {storage: Register, tensor: B}\n  - {storage: LocalBuffer, tensor: A}\n")
          .find("m.yaml:11: 'mapping[4]': LocalBuffer keeps A below a node of the inner level "
                "Register; storage nodes follow the hierarchy"),
      std::string::npos);
}

TEST(RandomSearch, IsDeterministicAndNeverBeatsTheOptimum) {
  std::mt19937_64 rng(9);
  for (int i = 0; i < 6; ++i) {
    Problem p = testing::random_problem(rng, static_cast<testing::ProblemKind>(i % 3));
    Hierarchy h = testing::random_hierarchy(rng, p);
    MapResult best = map(p, h, Objective::edp, 1);
    RandomSearchOptions o;
    o.max_samples = 2000;
    o.time_limit_seconds = 1e9;
    o.seed = 3;
    RandomSearchResult a = random_search(p, h, o), b = random_search(p, h, o);
    EXPECT_EQ(a.samples, 2000u);
    EXPECT_EQ(a.valid, b.valid);
    if (best.mappings.empty()) {
      EXPECT_FALSE(a.best.has_value());
      continue;
    }
    ASSERT_TRUE(a.best.has_value()) << p.str();
    EXPECT_EQ(a.best->tree, b.best->tree);
    EXPECT_GE(a.best->metrics.edp(), best.mappings[0].metrics.edp() * (1 - 1e-12));
  }
}

}  // namespace
}  // namespace tessera::mapper
