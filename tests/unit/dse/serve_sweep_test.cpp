// Serve sweeps (`kind: serve`): their words checked as `tessera serve` checks them, with the
// file, line and key; a goal judged over points made by hand, the cheapest meeting point and the
// closest miss chosen as the rules in serve_goal.hpp say.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "framework/dse/results_table.hpp"
#include "framework/dse/serve_goal.hpp"
#include "framework/dse/serve_words.hpp"
#include "framework/dse/sweep_spec.hpp"

namespace tessera::dse {
namespace {

const std::string kHead = R"(name: s
kind: serve
base: {model: gpt2-xl, target: mesh_tenstorrent, chip: wormhole-n150, rate: 2, slo_ttft_ms: 500}
)";

std::string error_of(const std::string& text) {
  auto spec = parse_sweep_text(text, "s.yaml");
  EXPECT_FALSE(spec.ok());
  return spec ? "" : spec.error().message;
}

SweepSpec parse(const std::string& rest) {
  return parse_sweep_text(kHead + rest, "s.yaml").take();
}

TEST(ServeSweepSpec, ReadsServeWordsAndAGoal) {
  SweepSpec s = parse(
      "axes:\n  - {path: max_batch, values: [4, 16]}\n  - {path: rate, values: [1, 2.5]}\n"
      "goal: {ttft_p90_ms: 1000, tpot_p99_ms: 50, minimise: energy_per_token}\n");
  EXPECT_EQ(s.kind, SweepKind::serve);
  EXPECT_EQ(s.serve_base.at("rate"), "2");
  ASSERT_TRUE(s.goal);
  ASSERT_EQ(s.goal->latencies.size(), 2u);
  EXPECT_EQ(s.goal->latencies[0].metric, "ttft_p90");
  EXPECT_DOUBLE_EQ(s.goal->latencies[1].limit_ms, 50);
  EXPECT_EQ(s.goal->minimise, "energy_per_token");
  serve::ServeRequest r = serve_request(s, Point{3, {"16", "2.5"}});
  EXPECT_EQ(r.options.scheduler.max_batch, 16);
  EXPECT_DOUBLE_EQ(r.load.rate_per_s, 2.5);
  EXPECT_EQ(r.chip.chip, "wormhole-n150");
  EXPECT_DOUBLE_EQ(r.slo_ttft_ms, 500);
}

TEST(ServeSweepSpec, Errors) {
  EXPECT_EQ(error_of(kHead + "axes:\n  - {path: max_batch, values: [4, 0]}\n"),
            "s.yaml:5: axes: max_batch: value '0': expected a whole number in [1, 4096], got '0'");
  EXPECT_EQ(error_of(kHead + "axes:\n  - {path: max_batc, values: [4]}\n"),
            "s.yaml:5: axes: unknown path 'max_batc' for a serve sweep; did you mean "
            "'max_batch'? (a serve sweep's axes are serve words: docs/dse.md, \"Serving "
            "points\"; one target per sweep)");
  EXPECT_EQ(error_of(kHead + "axes:\n  - {path: parallel, values: [auto]}\n"),
            "s.yaml:5: axes: parallel: value 'auto': a serve point runs one strategy; sweep the "
            "strategies instead (values: [flat, \"tp=2\", ...])");
  EXPECT_EQ(error_of(kHead + "axes:\n  - {path: scheduler, values: [orca]}\n"),
            "s.yaml:5: axes: scheduler: value 'orca': expected static, continuous or chunked, "
            "got 'orca'");
  EXPECT_EQ(error_of("name: s\nkind: serve\nbase: {model: m, target: t, rate: 0}\n"),
            "s.yaml:3: 'base.rate': expected a number in (0, 1000000], got '0'");
  EXPECT_EQ(error_of("name: s\nkind: serve\nbase: {model: m, target: t, max_batc: 4}\n"),
            "s.yaml:3: 'base.max_batc': unknown key 'max_batc' (did you mean 'max_batch'?); "
            "valid keys: model, target, chip, dtype, weight_dtype, precision, design, parallel, "
            "scheduler, preemption, router, max_batch, token_budget, block_tokens, rate, "
            "requests, seed, arrivals, cv, prompt, output, trace, slo_ttft_ms, slo_tpot_ms");
  EXPECT_EQ(error_of("name: s\nkind: serve\nbase: {model: m, target: t, trace: a.csv, rate: 2}\n"),
            "s.yaml:3: 'base': trace and rate: a trace gives the requests (their arrivals and "
            "lengths); remove rate, or the trace");
  EXPECT_EQ(error_of("name: s\nkind: batch\nbase: {model: m, target: t}\n"),
            "s.yaml:2: 'kind': expected compile (the default) or serve, got 'batch'");
  EXPECT_EQ(error_of(kHead + "plots: [energy]\n"),
            "s.yaml:4: 'plots': a serve sweep draws no plots; results.csv holds every point's "
            "latencies (serve's plot_load.py draws a load sweep of one configuration)");
}

TEST(ServeSweepSpec, GoalErrors) {
  EXPECT_EQ(error_of(kHead + "goal: {ttft_p90_ms: 1s}\n"),
            "s.yaml:4: 'goal.ttft_p90_ms': expected a number in (0, 86400000], got '1s' "
            "(milliseconds, a bare number: 1000 for 1 s, 50 for 50 ms)");
  EXPECT_EQ(error_of(kHead + "goal: {ttft_p95_ms: 100}\n"),
            "s.yaml:4: 'goal.ttft_p95_ms': unknown key 'ttft_p95_ms' (did you mean "
            "'ttft_p90_ms'?); valid keys: ttft_p50_ms, ttft_p90_ms, ttft_p99_ms, tpot_p50_ms, "
            "tpot_p90_ms, tpot_p99_ms, e2e_p50_ms, e2e_p90_ms, e2e_p99_ms, slo_attained, "
            "minimise, price_per_chip_hour");
  EXPECT_EQ(error_of(kHead + "goal: {minimise: chips}\n"),
            "s.yaml:4: 'goal': names no SLO: give at least one of ttft_p90_ms, tpot_p90_ms, ... "
            "(ttft_p50_ms, ttft_p90_ms, ttft_p99_ms, tpot_p50_ms, tpot_p90_ms, tpot_p99_ms, "
            "e2e_p50_ms, e2e_p90_ms, e2e_p99_ms) or slo_attained");
  EXPECT_EQ(error_of(kHead + "goal: {ttft_p90_ms: 100, minimise: dollars}\n"),
            "s.yaml:4: 'goal.minimise': expected chips (the default), energy_per_token or "
            "cost_per_million_tokens, got 'dollars'");
  EXPECT_EQ(error_of(kHead + "goal: {slo_attained: 1.5}\n"),
            "s.yaml:4: 'goal.slo_attained': expected a share of requests in (0, 1], got 1.5");
  EXPECT_EQ(error_of("name: s\nkind: serve\nbase: {model: m, target: t}\n"
                     "goal: {slo_attained: 0.9}\n"),
            "s.yaml:4: 'goal.slo_attained': counts the requests that meet slo_ttft_ms and "
            "slo_tpot_ms, and the sweep gives neither; add them to base");
  EXPECT_EQ(error_of(kHead + "axes:\n  - {path: chip, values: [wormhole-n150, wormhole-n300]}\n"
                             "goal: {ttft_p90_ms: 100, minimise: cost_per_million_tokens,\n"
                             "       price_per_chip_hour: {wormhole-n150: 1.5}}\n"),
            "s.yaml:6: 'goal': minimise: cost_per_million_tokens: no price_per_chip_hour for "
            "chip 'wormhole-n300'; give one for every chip the sweep runs on");
  EXPECT_EQ(error_of("name: t\nbase: {model: m, target: t}\ngoal: {ttft_p90_ms: 100}\n"),
            "s.yaml:3: 'goal': a goal judges served loads against SLOs; only a serve sweep "
            "(kind: serve) takes one");
}

// A finished serve point with the figures the goal reads.
PointResult served(size_t index, const std::string& chip, int64_t chips, double ttft_p90_ms,
                   double tpot_p90_ms, double mj_per_token, bool sustainable = true) {
  PointResult r;
  r.index = index;
  r.values = {chip};
  r.ok = true;
  ServeMetrics m;
  m.chips = chips;
  m.sustainable = sustainable;
  m.offered_rps = 4;
  m.sustained_rps = sustainable ? 4 : 2.5;
  m.tokens_per_s = 1000;
  m.ttft_p90_s = ttft_p90_ms / 1e3;
  m.tpot_p90_s = tpot_p90_ms / 1e3;
  m.joules_per_token = mj_per_token / 1e3;
  r.serve = m;
  return r;
}

SweepSpec goal_spec(const std::string& goal) {
  return parse("axes:\n  - {path: chip, values: [a, b, c, d, e]}\ngoal: " + goal + "\n");
}

TEST(ServeGoal, TheCheapestMeetingPointAsComputedByHand) {
  SweepSpec spec = goal_spec("{ttft_p90_ms: 500, tpot_p90_ms: 50}");
  PointResults results;
  results[0] = served(0, "a", 1, 600, 20, 100);        // misses TTFT
  results[1] = served(1, "b", 2, 400, 40, 300);        // meets, 2 chips
  results[2] = served(2, "c", 2, 100, 10, 200);        // meets, 2 chips, less energy
  results[3] = served(3, "d", 1, 100, 10, 50, false);  // unsustained: misses
  results[4] = served(4, "e", 8, 10, 5, 10);           // meets, 8 chips
  Verdict miss = judge(spec, *spec.goal, results[0]);
  EXPECT_FALSE(miss.meets);
  EXPECT_EQ(miss.why, "TTFT P90 600.0 ms > 500 ms");
  EXPECT_DOUBLE_EQ(miss.excess, 1.2);
  EXPECT_EQ(judge(spec, *spec.goal, results[3]).why,
            "unsustainable: 4.000 req/s offered, 2.500 sustained");
  // By hand: points 1, 2 and 4 meet; the fewest chips is 2 (points 1 and 2); of those, the less
  // energy per token is point 2's.
  Choice c = choose(spec, *spec.goal, results);
  ASSERT_TRUE(c.cheapest);
  EXPECT_EQ(*c.cheapest, 2u);
  EXPECT_FALSE(c.closest);
  // Equal in everything: the earlier point.
  results[2] = served(2, "c", 2, 100, 10, 300);
  EXPECT_EQ(*choose(spec, *spec.goal, results).cheapest, 1u);
}

TEST(ServeGoal, EnergyAndCostRankWhatTheyName) {
  SweepSpec energy = goal_spec("{ttft_p90_ms: 500, minimise: energy_per_token}");
  PointResults results;
  results[0] = served(0, "a", 1, 100, 10, 120);
  results[1] = served(1, "b", 8, 100, 10, 90);
  results[2] = served(2, "c", 2, 100, 10, 0);  // no energy rates: after every one that has them
  EXPECT_EQ(*choose(energy, *energy.goal, results).cheapest, 1u);
  SweepSpec cost = goal_spec(
      "{ttft_p90_ms: 500, minimise: cost_per_million_tokens,\n"
      "  price_per_chip_hour: {a: 3.6, b: 0.36, c: 1, d: 1, e: 1}}");
  // chips x price / 3600 s / 1000 tokens per s x 1e6: a 1 x 3.6 -> 1; b 8 x 0.36 -> 0.8; c 2 x
  // 1 -> 0.556.
  EXPECT_NEAR(judge(cost, *cost.goal, results[0]).cost, 1, 1e-12);
  EXPECT_NEAR(judge(cost, *cost.goal, results[1]).cost, 0.8, 1e-12);
  EXPECT_NEAR(judge(cost, *cost.goal, results[2]).cost, 2.0 / 3.6, 1e-12);
  EXPECT_EQ(*choose(cost, *cost.goal, results).cheapest, 2u);
}

TEST(ServeGoal, WhenNoneMeetsTheClosestIsNamed) {
  SweepSpec spec = goal_spec("{ttft_p90_ms: 500, tpot_p90_ms: 50}");
  PointResults results;
  results[0] = served(0, "a", 1, 100, 10, 1, false);  // unsustained: after every sustained one
  results[1] = served(1, "b", 2, 900, 40, 1);         // 1.8 x its TTFT limit
  results[2] = served(2, "c", 2, 400, 60, 1);         // 1.2 x its TPOT limit
  results[3].index = 3;                               // failed: not judged
  results[3].values = {"d"};
  results[3].reason = "no room";
  Choice c = choose(spec, *spec.goal, results);
  EXPECT_FALSE(c.cheapest);
  ASSERT_TRUE(c.closest);
  EXPECT_EQ(*c.closest, 2u);
  std::string text = goal_text(spec, results);
  EXPECT_NE(text.find("no point meets the goal; closest: point 2 (chip=c): TPOT P90 60.0 ms > "
                      "50 ms\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("     3  chip=d  failed\n"), std::string::npos) << text;
}

TEST(ServeGoal, ResultsCarryTheVerdicts) {
  SweepSpec spec = goal_spec("{ttft_p90_ms: 500}");
  PointResults results;
  results[0] = served(0, "a", 1, 600, 10, 1);
  results[1] = served(1, "b", 2, 100, 10, 1);
  std::string csv = results_csv(spec, results);
  EXPECT_NE(csv.find(",meets,why,minimised,choice\n"), std::string::npos) << csv;
  EXPECT_NE(csv.find(",no,TTFT P90 600.0 ms > 500 ms,1,\n"), std::string::npos) << csv;
  EXPECT_NE(csv.find(",yes,,2,cheapest\n"), std::string::npos) << csv;
  std::string json = results_json(spec, results);
  EXPECT_NE(json.find("\"cheapest\": 1"), std::string::npos) << json;
  EXPECT_NE(json.find("\"kind\": \"serve\""), std::string::npos) << json;
}

// Each served row says its chip's approximation: the text, or an empty cell (null) when the chip
// file states none.
TEST(ServeTable, EachRowSaysItsChipsApproximation) {
  SweepSpec spec = goal_spec("{ttft_p90_ms: 500}");
  PointResults results;
  results[0] = served(0, "a", 1, 100, 10, 1);
  results[0].chip = "a";
  results[0].approximation = "blocks of 12 x 12 PEs";
  results[1] = served(1, "b", 1, 100, 10, 1);
  results[1].chip = "b";
  std::string csv = results_csv(spec, results);
  EXPECT_NE(csv.find("point,status,reason,model,target,chip,approximation,strategy,chips,"),
            std::string::npos)
      << csv;
  EXPECT_NE(csv.find("\n0,ok,,,,a,blocks of 12 x 12 PEs,,1,"), std::string::npos) << csv;
  EXPECT_NE(csv.find("\n1,ok,,,,b,,,1,"), std::string::npos) << csv;
  auto json = nlohmann::json::parse(results_json(spec, results));
  EXPECT_EQ(json["rows"][0]["approximation"], "blocks of 12 x 12 PEs");
  EXPECT_EQ(json["rows"][1]["approximation"], nullptr);
}

}  // namespace
}  // namespace tessera::dse
