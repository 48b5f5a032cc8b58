// Sweep files: values and ranges as written, zip groups, the point order, and the errors a user
// meets with the file, line and key.
#include "framework/dse/sweep_spec.hpp"

#include <gtest/gtest.h>

#include "framework/dse/points.hpp"

namespace tessera::dse {
namespace {

const char* kBase = R"(name: t
base: {model: llama2-7b, target: ipu_alltoall, batch: 1, seq: 16, designs: [basic, elk-dyn]}
)";

SweepSpec parse(const std::string& axes) {
  return parse_sweep_text(std::string(kBase) + axes, "s.yaml").take();
}

std::string error_of(const std::string& text) {
  auto spec = parse_sweep_text(text, "s.yaml");
  EXPECT_FALSE(spec.ok());
  return spec ? "" : spec.error().message;
}

TEST(SweepSpec, ReadsTheBaseAndKeepsValuesAsWritten) {
  SweepSpec s = parse("axes:\n  - {path: topology.kind, values: [alltoall, mesh]}\n");
  EXPECT_EQ(s.name, "t");
  EXPECT_EQ(s.base.model, "llama2-7b");
  EXPECT_EQ(s.base.batch, 1);
  EXPECT_EQ(s.base.designs,
            (std::vector<planner::Design>{planner::Design::basic, planner::Design::elk_dyn}));
  EXPECT_TRUE(s.base.simulate);
  ASSERT_EQ(s.axes.size(), 1u);
  EXPECT_EQ(s.axes[0].values, (std::vector<std::string>{"alltoall", "mesh"}));
  EXPECT_EQ(s.axes[0].line, 4);
}

TEST(SweepSpec, LinearRangesKeepTheirEndDespiteDecimalSteps) {
  SweepSpec s = parse(
      "axes:\n  - {path: interconnect_scale, range: {from: 0.1, to: 0.3, step: 0.1}}\n"
      "  - {path: cores, range: {from: 1104, to: 2576, step: 368}}\n");
  EXPECT_EQ(s.axes[0].values, (std::vector<std::string>{"0.1", "0.2", "0.30000000000000004"}));
  EXPECT_EQ(s.axes[1].values, (std::vector<std::string>{"1104", "1472", "1840", "2208", "2576"}));
}

TEST(SweepSpec, LogRangesSpanFromTo) {
  SweepSpec s = parse(
      "axes:\n  - {path: memory.bandwidth_bytes_per_s, range: {from: 1e12, to: 16e12, count: 5, "
      "scale: log}}\n");
  EXPECT_EQ(s.axes[0].values,
            (std::vector<std::string>{"1000000000000", "2000000000000", "4000000000000",
                                      "8000000000000", "16000000000000"}));
}

TEST(SweepSpec, PointsAreTheProductOfZipGroupsFirstAxisSlowest) {
  SweepSpec s = parse(
      "axes:\n  - {path: batch, values: [1, 2]}\n"
      "  - {path: cores, values: [4, 8, 16], zip: c}\n"
      "  - {path: memory.bandwidth_bytes_per_s, values: [1e12, 2e12, 4e12], zip: c}\n");
  auto points = enumerate_points(s);
  ASSERT_EQ(points.size(), 6u);
  EXPECT_EQ(points[0].values, (std::vector<std::string>{"1", "4", "1e12"}));
  EXPECT_EQ(points[2].values, (std::vector<std::string>{"1", "16", "4e12"}));
  EXPECT_EQ(points[3].values, (std::vector<std::string>{"2", "4", "1e12"}));
  EXPECT_EQ(points[5].index, 5u);
  EXPECT_EQ(enumerate_points(parse("")).size(), 1u) << "no axes: the base point";
}

TEST(SweepSpec, Errors) {
  std::string base(kBase);
  EXPECT_EQ(
      error_of("name: t\nbase: {model: m, target: t, designs: [basic, elk-fast]}\n"),
      "s.yaml:2: 'base.designs[1]': unknown design 'elk-fast'; valid: basic, static, elk-dyn, "
      "elk-full, ideal, vendor");
  EXPECT_EQ(error_of(base + "axes:\n  - {path: batch, value: [1]}\n"),
            "s.yaml:4: 'axes[0].value': unknown key 'value' (did you mean 'values'?); valid keys: "
            "path, values, range, zip");
  EXPECT_EQ(error_of(base + "axes:\n  - {path: cores, values: [4, 8], zip: c}\n"
                            "  - {path: batch, values: [1], zip: c}\n"),
            "s.yaml:5: axes: 'batch' has 1 values but 'cores' (zip c) has 2; zipped axes advance "
            "together and need as many values");
  EXPECT_EQ(
      error_of(base + "axes:\n  - {path: batch, values: [1]}\n  - {path: batch, values: [2]}\n"),
      "s.yaml:5: axes: the path 'batch' is swept twice");
  EXPECT_EQ(
      error_of(base + "axes:\n  - {path: batch, values: [1], range: {from: 1, to: 2, step: 1}}\n"),
      "s.yaml:4: 'axes[0]': give exactly one of values (a list) or range (from, to, step|count)");
  EXPECT_EQ(error_of(base + "axes:\n  - {path: batch, range: {from: 4, to: 2, step: 1}}\n"),
            "s.yaml:4: 'axes[0].range': needs from <= to and step > 0 (got from 4, to 2, step 1)");
  EXPECT_EQ(error_of(base + "axes:\n  - {path: seq, range: {from: 1, to: 2e6, step: 1}}\n"),
            "s.yaml:4: 'axes[0].range': gives more than 10000 values; at most 10000 per axis");
  EXPECT_EQ(error_of(base + "plots: [latency_vs_hbm, roofline]\n"),
            "s.yaml:3: 'plots': unknown plot 'roofline'; known: breakdown, latency_vs_hbm, "
            "utilisation_vs_hbm, noc_hbm_heatmap, latency_vs_cores, flops_vs_bandwidth, energy, "
            "tokens_per_joule, strategies");
  EXPECT_EQ(error_of("name: t\nbase: {model: m}\n"),
            "s.yaml:2: 'base': missing required key 'target'");
  EXPECT_EQ(error_of("name: t\nbase: {model: m, target: t, simulate: maybe}\n"),
            "s.yaml:2: 'base.simulate': expected true or false, got 'maybe'");
  EXPECT_EQ(error_of("name: t\nbase: {model: m, target: t, mode: train}\n"),
            "s.yaml:2: 'base.mode': expected decode or prefill, got 'train'");
  EXPECT_EQ(error_of(base + "axes:\n  - {path: seq, range: {from: 1, to: 4, step: 1, count: 4}}\n"),
            "s.yaml:4: 'axes[0].range': give exactly one of step (linear) or count");
  EXPECT_EQ(
      error_of(base + "axes:\n  - {path: seq, range: {from: 1, to: 4, step: 1, scale: log}}\n"),
      "s.yaml:4: 'axes[0].range.step': a log range takes count, not step");
  EXPECT_EQ(
      error_of(base + "axes:\n  - {path: seq, range: {from: 0, to: 4, count: 3, scale: log}}\n"),
      "s.yaml:4: 'axes[0].range': a log range needs from > 0 and to > 0");
  EXPECT_EQ(error_of(base + "axes:\n  - {path: seq, range: {from: two, to: 4, step: 1}}\n"),
            "s.yaml:4: 'axes[0].range.from': expected a number, got 'two'");
  EXPECT_EQ(error_of(base + "axes:\n  - {path: seq, values: []}\n"),
            "s.yaml:4: 'axes[0]': the axis has no values");
  EXPECT_EQ(error_of("name: t\nbase: {model: m, target: t, groups: 16}\n"),
            "s.yaml:2: 'base.groups': core groups are gone: the simulator always runs one node per "
            "core now; remove the key");
  EXPECT_EQ(error_of("name: t\nbase: {model: m, target: t, parallel: \"tp=8,mb=0\"}\n"),
            "s.yaml:2: 'base.parallel': mb=0: expected a whole number from 1 to 4096");
  EXPECT_EQ(
      parse_sweep_text("name: t\nbase: {model: m, target: t, parallel: \"pp=4,tp=2\"}\n", "s.yaml")
          .take()
          .base.parallel,
      "pp=4,tp=2");
  EXPECT_EQ(error_of("name: t\nbase: {model: m, target: t, residency: all}\n"),
            "s.yaml:2: 'base.residency': expected off, auto, weights or weights+kv, got 'all'");
  EXPECT_EQ(
      parse_sweep_text("name: t\nbase: {model: m, target: t, residency: weights+kv}\n", "s.yaml")
          .take()
          .base.residency,
      "weights+kv");
}

TEST(SweepSpec, AZipLabelOnOneAxisIsAnError) {
  std::string base(kBase);
  EXPECT_EQ(error_of(base + "axes:\n  - {path: cores, values: [4, 8], zip: cores}\n"
                            "  - {path: memory.bandwidth_bytes_per_s, values: [1, 2], zip: cors}\n"
                            "  - {path: batch, values: [1, 2], zip: cores}\n"),
            "s.yaml:5: axes: zip label 'cors' of 'memory.bandwidth_bytes_per_s' is on no other "
            "axis, so it zips nothing; did you mean 'cores'?");
  EXPECT_EQ(error_of(base + "axes:\n  - {path: cores, values: [4, 8], zip: c}\n"),
            "s.yaml:4: axes: zip label 'c' of 'cores' is on no other axis, so it zips nothing; "
            "give the axes that advance together the same label");
}

TEST(SweepSpec, ThePointCountIsBoundedBeforeEnumerating) {
  std::string base(kBase);
  EXPECT_EQ(error_of(base + "axes:\n  - {path: batch, range: {from: 1, to: 10000, count: 10000}}\n"
                            "  - {path: seq, range: {from: 1, to: 10000, count: 10000}}\n"),
            "s.yaml:5: axes: the axes up to this one give more than 100000 points (10000 x "
            "10000); sweep fewer values, or zip axes that advance together");
  SweepSpec zipped = parse(
      "axes:\n  - {path: batch, range: {from: 1, to: 10000, count: 10000}, zip: z}\n"
      "  - {path: seq, range: {from: 1, to: 10000, count: 10000}, zip: z}\n");
  EXPECT_EQ(enumerate_points(zipped).size(), 10000u) << "zipped axes count once";
}

}  // namespace
}  // namespace tessera::dse
