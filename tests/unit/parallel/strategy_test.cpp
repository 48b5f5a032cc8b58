// `--parallel` text: each key, defaults, and the exact usage error for each way it can be wrong.
#include "framework/parallel/strategy.hpp"

#include <gtest/gtest.h>

namespace tessera::parallel {
namespace {

std::string error_of(const std::string& text) {
  auto s = parse_strategy(text);
  EXPECT_FALSE(s.ok()) << text;
  return s ? "" : s.error().message;
}

TEST(ParseStrategy, KeysInAnyOrderWithDefaults) {
  ParallelStrategy s = parse_strategy("pp=4,tp=2").take();
  EXPECT_FALSE(s.flat);
  EXPECT_EQ(s.tp, 2);
  EXPECT_EQ(s.pp, 4);
  EXPECT_FALSE(s.dp.has_value()) << "dp takes the chips the others leave";
  EXPECT_EQ(s.ep, 1);
  EXPECT_EQ(s.micro_batches, 1);
  EXPECT_EQ(to_string(s), "tp=2,pp=4,dp=1");
  s = parse_strategy("ep=8,tp=1,mb=2,collective=ring").take();
  EXPECT_EQ(s.ep, 8);
  EXPECT_EQ(s.algorithm, collective::CollectiveAlgorithm::ring);
  EXPECT_EQ(to_string(s), "tp=1,pp=1,dp=1,ep=8,mb=2,collective=ring");
}

TEST(ParseStrategy, FlatAndAuto) {
  EXPECT_TRUE(parse_strategy("flat")->flat);
  EXPECT_TRUE(parse_strategy("auto")->automatic);
  EXPECT_FALSE(parse_strategy("auto")->flat);
}

TEST(ParseStrategy, StagesSetThePipelineDepth) {
  ParallelStrategy s = parse_strategy("stages=0:6:7:7:7:7:7:7").take();
  EXPECT_EQ(s.pp, 8);
  EXPECT_EQ(s.stage_layers, (std::vector<int64_t>{0, 6, 7, 7, 7, 7, 7, 7}));
  EXPECT_EQ(parse_strategy("pp=2,stages=10:22")->pp, 2);
}

TEST(ParseStrategy, EachMistakeHasItsMessage) {
  EXPECT_EQ(
      error_of(""),
      "--parallel: empty; give keys tp, pp, dp, ep, mb, stages, collective, or the word auto");
  EXPECT_EQ(error_of("xp=2"),
            "--parallel: unknown key 'xp' in 'xp=2'; keys: tp, pp, dp, ep, mb, stages, collective, "
            "or the word auto");
  EXPECT_EQ(error_of("tp=0"), "--parallel: tp=0: expected a whole number from 1 to 4096");
  EXPECT_EQ(error_of("tp=2.5"), "--parallel: tp=2.5: expected a whole number from 1 to 4096");
  EXPECT_EQ(error_of("dp=99999999999999999999"),
            "--parallel: dp=99999999999999999999: expected a whole number from 1 to 4096");
  EXPECT_EQ(error_of("tp"), "--parallel: 'tp': expected tp=VALUE");
  EXPECT_EQ(error_of("tp=2,tp=4"), "--parallel: 'tp' is given twice in 'tp=2,tp=4'");
  EXPECT_EQ(error_of("auto,tp=2"),
            "--parallel: 'auto' stands alone; 'auto,tp=2' gives it beside other keys");
  EXPECT_EQ(error_of("pp=3,stages=1:2"),
            "--parallel: pp=3 but stages= lists 2 stages; give one of them, or agree");
  EXPECT_EQ(error_of("stages=1:x"),
            "--parallel: stages=1:x: expected the layers of each stage as whole numbers from 0 "
            "to 4096 separated by ':' (e.g. stages=0:6:7:7)");
  EXPECT_TRUE(error_of("collective=star").starts_with("--parallel: collective=star: "));
}

}  // namespace
}  // namespace tessera::parallel
