// plan.yaml: a planned design reads back field for field, and bad files get one precise error.
#include "framework/planner/plan_yaml.hpp"

#include <gtest/gtest.h>

#include "framework/planner/planner.hpp"
#include "tests/unit/planner/synthetic.hpp"

namespace tessera::planner {
namespace {

Plan sample_plan() {
  PlannerInput in;
  in.class_plans = {testing::synthetic_op(0, {{100, 5}}),
                    testing::synthetic_op(3000, {{100, 0.5}, {200, 0.1}}, {{300, 0.25}}),
                    testing::synthetic_op(2000, {{100, 1.0 / 3}}, {{300, 0}, {400, 1e-9}})};
  in.classes.class_of = {0, 1, 2};
  in.machine = testing::round_machine();
  PlannerOptions options;
  options.threads = 1;
  Plan plan;
  plan.source = {"0.1.0",
                 "llama2-13b",
                 16,
                 2048,
                 "decode",
                 "fp16",
                 "",
                 "batch=16,seq=1",
                 1,
                 "llama2-13b-decode",
                 3,
                 "ipu_alltoall",
                 "ipu-pod4-hbm3e",
                 0,              // no expert skew: no expert_skew key
                 "",             // no --precision: no precision key
                 std::nullopt};  // a whole model on the whole machine: no stage keys
  plan.machine = in.machine;
  plan.result = plan_design(in, Design::elk_full, options).take();
  plan.result.ops[1].exec.label = "b/16 n/368 · rotate k×4";
  plan.result.ops[2].name = "null";  // a name YAML would otherwise read as nothing
  plan.result.ops[1].exec.core_digits = {{0, 2, 1}, {1, 3, 2}};  // a plugin's placement
  // Attention in tiles (a chain, `through` its last op), then an op split.
  plan.splits = {{"scores", "s", 256, "attn_v"}, {"lm_head", "k", 4, ""}};
  return plan;
}

void expect_same_op(const OpSchedule& a, const OpSchedule& b) {
  EXPECT_EQ(a.op, b.op);
  EXPECT_EQ(a.name, b.name);
  EXPECT_EQ(a.op_class, b.op_class);
  EXPECT_EQ(a.exec.label, b.exec.label);
  EXPECT_EQ(a.exec.tile, b.exec.tile);
  EXPECT_EQ(a.exec.compute_s, b.exec.compute_s);
  EXPECT_EQ(a.exec.exec_bytes_per_core, b.exec.exec_bytes_per_core);
  EXPECT_EQ(a.exec.core_digits, b.exec.core_digits);
  EXPECT_EQ(a.preload.distribute_s, b.preload.distribute_s);
  EXPECT_EQ(a.preload.preload_bytes_per_core, b.preload.preload_bytes_per_core);
  EXPECT_EQ(a.preload_position, b.preload_position);
  EXPECT_EQ(a.preloads_during, b.preloads_during);
  EXPECT_EQ(a.sram_bytes_per_core, b.sram_bytes_per_core);
  EXPECT_EQ(a.preload_start_s, b.preload_start_s);
  EXPECT_EQ(a.execute_end_s, b.execute_end_s);
}

TEST(PlanYaml, RoundTripIsExact) {
  Plan plan = sample_plan();
  std::string text = write_plan_yaml(plan);
  Plan back = parse_plan_yaml(text, "plan.yaml").take();
  EXPECT_EQ(back.result.design, Design::elk_full);
  EXPECT_EQ(back.source.model, "llama2-13b");
  EXPECT_EQ(back.source.batch, 16);
  EXPECT_EQ(back.source.dtype, "fp16");
  EXPECT_EQ(back.machine.sram_bytes_per_core, 1000u);
  EXPECT_EQ(back.machine.hbm_bytes_per_s, plan.machine.hbm_bytes_per_s);
  EXPECT_EQ(back.result.latency_s, plan.result.latency_s);
  EXPECT_EQ(back.result.breakdown.overlapped_s, plan.result.breakdown.overlapped_s);
  EXPECT_EQ(back.result.orders_tried, plan.result.orders_tried);
  EXPECT_EQ(back.result.preload_order, plan.result.preload_order);
  EXPECT_EQ(back.splits, plan.splits);
  EXPECT_NE(text.find("{op: lm_head, rank: k, slices: 4}"), std::string::npos)
      << "an op split has no `through`";
  ASSERT_EQ(back.result.ops.size(), plan.result.ops.size());
  for (size_t i = 0; i < plan.result.ops.size(); ++i)
    expect_same_op(back.result.ops[i], plan.result.ops[i]);
  EXPECT_EQ(write_plan_yaml(back), text);
}

TEST(PlanYaml, ThePlannedEnergyRoundTripsWhenTheChipStatesIt) {
  Plan plan = sample_plan();
  EXPECT_EQ(write_plan_yaml(plan).find("energy:"), std::string::npos) << "no rates, no section";
  plan.result.energy = EnergyBreakdown{0.125, 0.25, 0.0625, 0, 1.5, 0.375};
  std::string text = write_plan_yaml(plan);
  Plan back = parse_plan_yaml(text, "plan.yaml").take();
  ASSERT_TRUE(back.result.energy.has_value());
  EXPECT_EQ(back.result.energy->total_j(), plan.result.energy->total_j());
  EXPECT_EQ(back.result.energy->off_chip_j, 1.5);
  EXPECT_EQ(write_plan_yaml(back), text);
}

// A stage's collectives (collective_op.hpp) are written under the op they follow and read back.
TEST(PlanYaml, CollectivesRoundTripUnderTheirOp) {
  Plan plan = sample_plan();
  EXPECT_EQ(write_plan_yaml(plan).find("collectives:"), std::string::npos) << "none, no key";
  const CollectiveOp op{"op1",
                        1,
                        "after attention",
                        {collective::CollectiveKind::all_reduce,
                         collective::CollectiveAlgorithm::bidirectional_ring,
                         16384,
                         {0, 1, 3, 2}},
                        9.96e-06,
                        8.3e-06};
  plan.result.ops[1].collectives = {op};
  std::string text = write_plan_yaml(plan);
  EXPECT_NE(text.find("collectives:"), std::string::npos);
  EXPECT_NE(text.find("- {after: op1, where: after attention, kind: all_reduce, algorithm: "
                      "bidirectional_ring, bytes: 16384, group: [0, 1, 3, 2], planned_s: "
                      "9.96e-06, simulated_s: 8.3e-06}"),
            std::string::npos)
      << text;
  Plan back = parse_plan_yaml(text, "plan.yaml").take();
  ASSERT_EQ(back.result.ops[1].collectives.size(), 1u);
  EXPECT_EQ(back.result.ops[1].collectives[0], op);
  EXPECT_EQ(back.result.ops[1].collective_s, 9.96e-06);
  EXPECT_EQ(write_plan_yaml(back), text);
  std::string bad = text;
  bad.replace(bad.find("kind: all_reduce"), 16, "kind: all_reduse");
  auto r = parse_plan_yaml(bad, "p.yaml");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("all_reduse"), std::string::npos) << r.error().message;
}

// The vendor design's stream rate (a streamed stack's prefill) is written only when it has one,
// read back, and refused on another design's plan or at 0.
TEST(PlanYaml, AVendorStreamRateRoundTripsOnTheVendorsPlanAlone) {
  Plan plan = sample_plan();
  EXPECT_EQ(write_plan_yaml(plan).find("stream_bytes_per_s"), std::string::npos) << "none, no key";
  plan.result.design = Design::vendor;
  plan.result.stream_bytes_per_s = 65.6e9;
  std::string text = write_plan_yaml(plan);
  EXPECT_NE(text.find("\nstream_bytes_per_s: 65600000000\n"), std::string::npos) << text;
  Plan back = parse_plan_yaml(text, "p.yaml").take();
  EXPECT_EQ(back.result.stream_bytes_per_s, 65.6e9);
  EXPECT_EQ(write_plan_yaml(back), text);
  const int line = 1 + static_cast<int>(std::count(text.begin(),
                                                   text.begin() + text.find("stream_bytes"), '\n'));
  std::string other = text;
  other.replace(other.find("design: vendor"), 14, "design: basic");
  auto r = parse_plan_yaml(other, "p.yaml");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, "p.yaml:" + std::to_string(line) +
                                   ": 'stream_bytes_per_s': only the vendor design's plan has a "
                                   "stream rate; remove it");
  std::string zero = text;
  zero.replace(zero.find("65600000000"), 11, "0");
  r = parse_plan_yaml(zero, "p.yaml");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, "p.yaml:" + std::to_string(line) +
                                   ": 'stream_bytes_per_s': expected a rate in bytes per second > "
                                   "0 (a plan without one has no key)");
}

// The sample's text with `from` (which must occur) replaced by `to`, parsed.
Error parse_edited(const std::string& from, const std::string& to) {
  std::string text = write_plan_yaml(sample_plan());
  size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  auto r = parse_plan_yaml(text, "p.yaml");
  EXPECT_FALSE(r.ok());
  return r.ok() ? Error{} : r.error();
}

int line_of(const std::string& key) {
  std::string text = write_plan_yaml(sample_plan());
  size_t at = text.find(key);
  return 1 + static_cast<int>(std::count(text.begin(), text.begin() + at, '\n'));
}

TEST(PlanYaml, UnknownKeyNamesTheNearest) {
  Error e = parse_edited("  hbm_latency_s:", "  hbm_latncy_s:");
  EXPECT_EQ(e.kind, ErrorKind::input);
  EXPECT_EQ(e.message.rfind("p.yaml:" + std::to_string(line_of("hbm_latency_s")) +
                                ": 'machine.hbm_latncy_s': unknown key 'hbm_latncy_s' (did you "
                                "mean 'hbm_latency_s'?)",
                            0),
            0u)
      << e.message;
}

TEST(PlanYaml, BadNumberNamesTheField) {
  Error e = parse_edited("  latency_s: ", "  latency_s: fast #");
  EXPECT_EQ(e.message, "p.yaml:" + std::to_string(line_of("  latency_s:")) +
                           ": 'totals.latency_s': expected a number (e.g. 1.5e-3), got 'fast'");
}

TEST(PlanYaml, ACoreDigitIsThreeNumbers) {
  Error e = parse_edited("core_digits: [[0, 2, 1], [1, 3, 2]]", "core_digits: [[0, 2, 1], [1, 3]]");
  EXPECT_EQ(e.message, "p.yaml:" + std::to_string(line_of("core_digits: [[0, 2, 1]")) +
                           ": 'ops[1].exec.core_digits[1]': expected [rank, count, core_stride]");
}

TEST(PlanYaml, MissingKeyAndNegativeValue) {
  Error missing = parse_edited("  orders_tried:", "  orders_tired:");
  EXPECT_NE(missing.message.find("unknown key 'orders_tired' (did you mean 'orders_tried'?)"),
            std::string::npos)
      << missing.message;
  Error negative = parse_edited("sram_bytes_per_core: 1000", "sram_bytes_per_core: -4");
  EXPECT_NE(negative.message.find("'machine.sram_bytes_per_core': must be in [0, "),
            std::string::npos)
      << negative.message;
}

TEST(PlanYaml, UnknownDesignListsTheValidOnes) {
  Error e = parse_edited("design: elk-full", "design: elk-fast");
  EXPECT_EQ(e.message, "p.yaml:" + std::to_string(line_of("design:")) +
                           ": 'design': unknown design 'elk-fast'; valid: basic, static, "
                           "elk-dyn, elk-full, ideal, vendor");
}

TEST(PlanYaml, OpsOutOfOrderAndBadPreloadOrder) {
  Error e = parse_edited("- op: 1\n", "- op: 2\n");
  EXPECT_NE(e.message.find("'ops[1].op': expected op 1 (ops are listed in execution order), got 2"),
            std::string::npos)
      << e.message;
  Error order = parse_edited("preload_order: [1, 2]", "preload_order: [2, 1]");
  EXPECT_NE(order.message.find("'preload_order[0]': preload 0 names op 2, whose preload_position "
                               "is not 0"),
            std::string::npos)
      << order.message;
}

TEST(PlanYaml, WrongFormatAndSyntax) {
  Error e = parse_edited("format: tessera-plan-14", "format: tessera-plan-3");
  EXPECT_EQ(e.message,
            "p.yaml:3: 'format': expected 'tessera-plan-14' (written by this version of "
            "tessera), got 'tessera-plan-3'; re-run `tessera compile` to write a "
            "current plan");
  auto bad = parse_plan_yaml("ops: [\n", "x.yaml");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().message.rfind("x.yaml:", 0), 0u);
  auto scalar = parse_plan_yaml("42\n", "x.yaml");
  ASSERT_FALSE(scalar.ok());
  EXPECT_NE(scalar.error().message.find("expected a map"), std::string::npos);
}

TEST(PlanYaml, NoWallClockTimeIsWritten) {
  Plan plan = sample_plan();
  std::string text = write_plan_yaml(plan);
  plan.result.search_s = 123.5;  // the planner's own time: reported by compile, not stored
  EXPECT_EQ(write_plan_yaml(plan), text);
  EXPECT_EQ(text.find("search"), std::string::npos);
}

TEST(PlanYaml, NumbersNoCompileWritesAreRefusedWithTheirLine) {
  Error bytes = parse_edited("shift_bytes: 0", "shift_bytes: 9223372036854775807");
  EXPECT_EQ(bytes.message, "p.yaml:" + std::to_string(line_of("shift_bytes: 0")) +
                               ": 'ops[0].exec.shift_bytes': must be at most 9.0072e+15 bytes, got "
                               "9223372036854775807; no plan tessera compile writes comes near it");
  Error time = parse_edited("  latency_s: ", "  latency_s: 1e300 #");
  EXPECT_EQ(time.message, "p.yaml:" + std::to_string(line_of("  latency_s:")) +
                              ": 'totals.latency_s': must be at most 1e+06 s, got 1e300; no plan "
                              "tessera compile writes comes near it");
  Error nan = parse_edited("  latency_s: ", "  latency_s: .nan #");
  EXPECT_NE(nan.message.find("'totals.latency_s': expected a number (e.g. 1.5e-3), got '.nan'"),
            std::string::npos)
      << nan.message;
  Error zero = parse_edited("cores_used: 1", "cores_used: 0");
  EXPECT_NE(zero.message.find("'ops[0].exec.cores_used': 0 cores; an op runs on at least one core"),
            std::string::npos)
      << zero.message;
  Error overlap = parse_edited("preloads_during: 0", "preloads_during: 3");
  EXPECT_NE(overlap.message.find("3 preloads cannot overlap one op of a plan with 3 ops"),
            std::string::npos)
      << overlap.message;
}

TEST(PlanYaml, ADuplicatedKeyIsRefused) {
  Error e = parse_edited("design: elk-full\n", "design: elk-full\ndesign: basic\n");
  EXPECT_EQ(e.message, "p.yaml:" + std::to_string(line_of("design:") + 1) +
                           ": 'design' is given twice (first on line " +
                           std::to_string(line_of("design:")) + "); keep one of them");
}

}  // namespace
}  // namespace tessera::planner

namespace tessera::planner {
namespace {

// The fuzz corpus's valid seed (a compiled plan cut to three ops) must stay readable, so the
// fuzzer keeps reaching the writer.
TEST(PlanYaml, FuzzSeedReads) {
  auto plan = read_plan_yaml(TESSERA_SOURCE_DIR "/tests/fuzz/corpus/plan_yaml/three_ops.yaml");
  ASSERT_TRUE(plan.ok()) << plan.error().message;
  EXPECT_EQ(plan->result.ops.size(), 3u);
  EXPECT_EQ(plan->result.design, Design::elk_dyn);
  auto missing = read_plan_yaml("/nonexistent/plan.yaml");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().message,
            "/nonexistent/plan.yaml: cannot open the file (does it exist? `tessera compile -o DIR` "
            "writes DIR/plan.yaml)");
}

}  // namespace
}  // namespace tessera::planner
