// The event loop and its schedulers against what can be worked out by hand: M/D/1's mean wait
// (Pollaczek-Khinchine), static batching's deterministic cycle, chunked prefill's chunks, and
// preemption by recompute when the KV blocks run out.
#include <gtest/gtest.h>

#include "framework/serve/event_loop.hpp"
#include "framework/serve/metrics.hpp"
#include "framework/serve/serve_report.hpp"

namespace tessera::serve {
namespace {

// A decode step costs `decode_s` whatever it holds; a prefill step `prefill_s_per_token` per token.
StepCostFn fixed_costs(double decode_s, double prefill_s_per_token) {
  return [=](const StepShape& s) {
    double t = (s.decode_seqs > 0 ? decode_s : 0) +
               prefill_s_per_token * static_cast<double>(s.prefill_tokens());
    return StepCost{t, t};  // a watt: joules follow seconds
  };
}

std::vector<Request> at_once(int64_t count, int64_t prompt, int64_t output) {
  std::vector<Request> requests;
  for (int64_t i = 0; i < count; ++i) requests.push_back(Request{i, 0.0, prompt, output});
  return requests;
}

// One request at a time, each one step of D (a prompt and its only token): M/D/1, whose mean
// wait in the queue is rho D / (2 (1 - rho)) (Pollaczek-Khinchine with a deterministic service).
TEST(Server, OneAtATimeWithAFixedStepWaitsAsMD1) {
  const double d = 0.010, rate = 50;  // rho = 0.5: W_q = 5 ms
  SyntheticLoad load{ArrivalKind::poisson,      rate,   1, {LengthKind::fixed, 100, 0},
                     {LengthKind::fixed, 1, 0}, 400000, 7};
  auto requests = synthetic_requests(load).take();
  SchedulerOptions options{Policy::continuous, 1, 512};
  auto run = run_server(requests, options, KvBlocks(1000, 16), fixed_costs(0, d / 100)).take();
  double wait = 0;
  for (const RequestRecord& r : run.records) wait += r.first_token_s - r.request.arrival_s - d;
  wait /= static_cast<double>(run.records.size());
  const double rho = rate * d, expected = rho * d / (2 * (1 - rho));
  EXPECT_NEAR(wait / expected, 1.0, 0.01) << wait << " s against " << expected << " s";
  RecordProperty("mean_wait_over_closed_form", std::to_string(wait / expected));
  ServeSummary s = summarize(run, {}, 1);
  EXPECT_TRUE(s.sustainable);
  EXPECT_NEAR(s.requests_per_s / rate, 1.0, 0.01);
}

// A static batch of B requests all waiting: one prefill of B prompts, then O - 1 decode steps of
// the whole batch; batch k (from 0) ends at (k + 1) cycles, its first tokens a prefill after k.
TEST(Server, StaticBatchesRunInADeterministicCycle) {
  const int64_t batch = 4, prompt = 100, output = 10;
  const double decode_s = 0.020, per_token_s = 0.0001;
  auto run = run_server(at_once(3 * batch, prompt, output),
                        SchedulerOptions{Policy::static_batch, batch, 512}, KvBlocks(1000, 16),
                        fixed_costs(decode_s, per_token_s))
                 .take();
  const double prefill_s = per_token_s * batch * prompt;
  const double cycle = prefill_s + (output - 1) * decode_s;  // 0.04 + 0.18 s
  for (const RequestRecord& r : run.records) {
    double k = static_cast<double>(r.request.id / batch);
    EXPECT_NEAR(r.first_token_s, k * cycle + prefill_s, 1e-12) << r.request.id;
    EXPECT_NEAR(r.finish_s, (k + 1) * cycle, 1e-12) << r.request.id;
  }
  EXPECT_EQ(run.steps, 3 * output);
  EXPECT_NEAR(run.joules, 3 * cycle, 1e-12);
}

// A static batch pads: a request that finished keeps its slot, and the batch ends with its longest.
TEST(Server, StaticBatchesWaitForTheirLongestOutput) {
  std::vector<Request> requests = {{0, 0, 16, 2}, {1, 0, 16, 5}, {2, 0, 16, 1}};
  std::vector<StepShape> shapes;
  StepCostFn cost = [&shapes](const StepShape& s) {
    shapes.push_back(s);
    return StepCost{0.01, 0};
  };
  auto run =
      run_server(requests, SchedulerOptions{Policy::static_batch, 2, 512}, KvBlocks(100, 16), cost)
          .take();
  EXPECT_DOUBLE_EQ(run.records[0].finish_s, 0.05);  // ended with request 1's batch
  EXPECT_DOUBLE_EQ(run.records[1].finish_s, 0.05);
  EXPECT_DOUBLE_EQ(run.records[2].first_token_s, 0.06);
  ASSERT_EQ(shapes.size(), 6u);
  EXPECT_EQ(shapes[4].decode_seqs, 2);  // request 0 done, still computed
}

// Chunked prefill splits a 100-token prompt into budget-sized chunks; decodes ride along.
TEST(Server, ChunkedPrefillFillsATokenBudget) {
  std::vector<StepShape> shapes;
  StepCostFn cost = [&shapes](const StepShape& s) {
    shapes.push_back(s);
    return StepCost{0.001 * static_cast<double>(s.prefill_tokens() + s.decode_seqs), 0};
  };
  std::vector<Request> requests = {{0, 0, 20, 3}, {1, 0, 100, 2}};
  auto run = run_server(requests, SchedulerOptions{Policy::chunked, 8, 32}, KvBlocks(100, 16), cost)
                 .take();
  // Step 1: request 0's 20 tokens and 12 of request 1's; then 1 decode + 31, 1 decode + 31,
  // then request 1's last 26; then its one decode.
  ASSERT_EQ(shapes.size(), 5u);
  EXPECT_EQ(shapes[0].prefill_chunks, (std::vector<int64_t>{20, 12}));
  EXPECT_EQ(shapes[1].decode_seqs, 1);
  EXPECT_EQ(shapes[1].decode_context_tokens, 21);
  EXPECT_EQ(shapes[1].prefill_tokens(), 31);
  EXPECT_EQ(shapes[3].prefill_tokens(), 26);
  EXPECT_EQ(shapes[3].decode_seqs, 0);
  EXPECT_NEAR(run.records[1].first_token_s, 0.032 + 0.032 + 0.032 + 0.026, 1e-12);
}

// Two sequences that outgrow a pool of 5 blocks: the later one is preempted, prefilled again with
// the tokens it made, and both finish; no block is lost.
TEST(Server, ContinuousBatchingPreemptsTheLatestByRecompute) {
  auto requests = at_once(2, 16, 40);  // each needs 55 positions: 4 blocks of 16
  auto run = run_server(requests, SchedulerOptions{Policy::continuous, 8, 512}, KvBlocks(5, 16),
                        fixed_costs(0.01, 0.001))
                 .take();
  EXPECT_EQ(run.preemptions, 1);
  EXPECT_EQ(run.records[1].preemptions, 1);
  EXPECT_EQ(run.records[0].preemptions, 0);
  EXPECT_LT(run.records[0].finish_s, run.records[1].finish_s);
  EXPECT_EQ(run.samples.back().kv_blocks_used, 0);
  EXPECT_EQ(run.samples.back().running, 0);
}

// Prompts longer than the grid's longest prefill are priced by extrapolation; the run says how
// many steps and requests were, and the longest. Continuous batching admits one long prompt per
// step (at least one, beyond max_prefill_tokens): 100 tokens, then 9000, then 12000.
TEST(Server, PrefillsBeyondTheGridAreCountedAndSaid) {
  std::vector<Request> requests{{0, 0.0, 100, 2}, {1, 0.0, 9000, 2}, {2, 0.0, 12000, 2}};
  auto run = run_server(requests, SchedulerOptions{Policy::continuous, 8, 512, 8192},
                        KvBlocks(10000, 16), fixed_costs(0.01, 0.001))
                 .take();
  Extrapolation x = extrapolation(run, 8192);
  EXPECT_EQ(x.steps, 2);
  EXPECT_EQ(x.requests, 2);
  EXPECT_EQ(x.longest_tokens, 12000);
  EXPECT_EQ(extrapolation_text(x),
            "extrap 2 prefill steps of 2 requests went beyond the grid's longest prefill (8192 "
            "tokens), up to 12000 tokens: priced by extrapolation from its last two lengths, not "
            "simulated\n");
  EXPECT_EQ(extrapolation_text(extrapolation(run, 10000)),
            "extrap 1 prefill step of 1 request went beyond the grid's longest prefill (10000 "
            "tokens), up to 12000 tokens: priced by extrapolation from its last two lengths, not "
            "simulated\n");
  EXPECT_EQ(extrapolation_text(extrapolation(run, 12000)), "");
}

// The progress a run reports: after every step, requests done rising to all of them at the run's
// simulated end.
TEST(Server, ProgressFollowsEveryStepToTheEnd) {
  std::vector<RunProgress> seen;
  auto run =
      run_server(at_once(3, 16, 4), SchedulerOptions{Policy::continuous, 2, 512}, KvBlocks(100, 16),
                 fixed_costs(0.01, 0.001), [&seen](const RunProgress& p) { seen.push_back(p); })
          .take();
  ASSERT_EQ(static_cast<int64_t>(seen.size()), run.steps);
  for (size_t i = 1; i < seen.size(); ++i) EXPECT_GE(seen[i].finished, seen[i - 1].finished);
  EXPECT_EQ(seen.back().finished, 3);
  EXPECT_EQ(seen.back().requests, 3);
  EXPECT_DOUBLE_EQ(seen.back().simulated_s, run.end_s);
  EXPECT_EQ(seen.front().finished, 0);
}

// The same two sequences preempted by swap: the later one's 32 positions (16 of prompt, 16 made)
// go out when the third block of both does not fit, and come back once the first has finished and
// freed its 4 blocks; it never prefills again. Each swapped position costs 1 ms here.
TEST(Server, ContinuousBatchingPreemptsBySwapWithoutPrefillingAgain) {
  int64_t swapped = 0, prefilled = 0;
  StepCostFn costs = [&](const StepShape& s) {
    swapped += s.swap_tokens;
    prefilled += s.prefill_tokens();
    return StepCost{0.01 + 1e-3 * static_cast<double>(s.swap_tokens), 0};
  };
  SchedulerOptions swap{Policy::continuous, 8, 512, 0, Preemption::swap};
  auto run = run_server(at_once(2, 16, 40), swap, KvBlocks(5, 16), costs).take();
  EXPECT_EQ(run.preemptions, 1);
  EXPECT_EQ(run.records[1].preemptions, 1);
  EXPECT_EQ(swapped, 2 * 32);
  EXPECT_EQ(prefilled, 2 * 16);
  EXPECT_EQ(run.records[1].longest_prefill_tokens, 16);
  // 1 prefill step, 39 decode steps of the first (16 with the second beside it), then the
  // second's 23 left; the swaps' 64 ms on top.
  EXPECT_NEAR(run.end_s, 0.01 * (1 + 39 + 23) + 0.064, 1e-12);
  EXPECT_EQ(run.samples.back().kv_blocks_used, 0);
  EXPECT_EQ(parse_preemption("evict").error().message,
            "--preemption evict: expected recompute or swap");
}

// A load above what the machine does: reported as unsustainable, with the rate it sustained.
TEST(Server, AnOverloadIsAVerdictNotALatency) {
  SyntheticLoad load{ArrivalKind::poisson,      200,   1, {LengthKind::fixed, 100, 0},
                     {LengthKind::fixed, 1, 0}, 20000, 1};
  auto run =
      run_server(synthetic_requests(load).take(), SchedulerOptions{Policy::continuous, 1, 512},
                 KvBlocks(100, 16), fixed_costs(0, 0.0001))
          .take();  // 10 ms a request: 100 req/s
  ServeSummary s = summarize(run, {}, 1);
  EXPECT_FALSE(s.sustainable);
  EXPECT_NEAR(s.sustained_rps, 100, 1);
  EXPECT_NEAR(s.offered_rps, 200, 4);
}

TEST(Server, GoodputCountsRequestsWithinEverySlo) {
  auto run = run_server(at_once(4, 10, 3), SchedulerOptions{Policy::continuous, 1, 512},
                        KvBlocks(100, 16), fixed_costs(0.01, 0.001))
                 .take();  // each: 10 ms prefill, 2 decodes of 10 ms
  ServeSummary s = summarize(run, Slo{0.045, 0.0101}, 1);  // TTFT 10, 40, 70, 100 ms; TPOT 10
  EXPECT_NEAR(*s.slo_attained, 0.5, 1e-12);
  EXPECT_NEAR(s.tpot_s.mean, 0.010, 1e-12);
  EXPECT_NEAR(s.ttft_s.p50, 0.055, 1e-12);
}

// Requests every `period_s`, from 0.
std::vector<Request> every(double period_s, int64_t count, int64_t prompt, int64_t output) {
  std::vector<Request> requests;
  for (int64_t i = 0; i < count; ++i)
    requests.push_back(Request{i, static_cast<double>(i) * period_s, prompt, output});
  return requests;
}

// A step whose time grows with what it holds, so that batching shows in every latency.
StepCost batch_dependent(const StepShape& s) {
  double t = (s.decode_seqs > 0 ? 0.008 + 0.0005 * static_cast<double>(s.decode_seqs) +
                                      1e-6 * static_cast<double>(s.decode_context_tokens)
                                : 0) +
             2e-5 * static_cast<double>(s.prefill_tokens());
  return StepCost{t, t};
}

// Two replicas routed round-robin, at twice the rate, each see one replica's stream (one of them
// shifted by half a period): every request's TTFT and TPOT are those of its twin at one replica.
TEST(Server, ReplicasRoundRobinAtTwiceTheRateServeAsOneAtTheRate) {
  const double period_s = 0.05;
  SchedulerOptions one{Policy::continuous, 8, 512};
  auto alone =
      run_server(every(period_s, 200, 300, 40), one, KvBlocks(400, 16), batch_dependent).take();
  SchedulerOptions two = one;
  two.replicas = 2;
  two.router = Router::round_robin;
  auto pair =
      run_server(every(period_s / 2, 400, 300, 40), two, KvBlocks(400, 16), batch_dependent).take();
  ASSERT_EQ(pair.replicas.size(), 2u);
  EXPECT_EQ(pair.replicas[0].requests, 200);
  EXPECT_EQ(pair.replicas[1].requests, 200);
  ServeSummary s = summarize(alone, {}, 8);
  EXPECT_GT(s.tpot_s.mean, 0.0105);  // batches of several: the check is not of one at a time
  for (const RequestRecord& r : pair.records) {
    const RequestRecord& twin = alone.records[static_cast<size_t>(r.request.id / 2)];
    const double ttft = r.first_token_s - r.request.arrival_s;
    const double twin_ttft = twin.first_token_s - twin.request.arrival_s;
    EXPECT_NEAR(ttft / twin_ttft, 1.0, 1e-9) << r.request.id;
    const double tpot = (r.finish_s - r.first_token_s) / 39;
    const double twin_tpot = (twin.finish_s - twin.first_token_s) / 39;
    EXPECT_NEAR(tpot / twin_tpot, 1.0, 1e-9) << r.request.id;
  }
  EXPECT_EQ(pair.steps, 2 * alone.steps);
  EXPECT_EQ(pair.kv_blocks, 800);
  ServeSummary both = summarize(pair, {}, 8);
  EXPECT_NEAR(both.kv_utilisation_mean, s.kv_utilisation_mean, 1e-9);
  EXPECT_NEAR(both.replicas[0].kv_utilisation_mean, s.kv_utilisation_mean, 1e-9);
}

// Least-loaded: each request to the replica with the fewest tokens still to prefill and make.
TEST(Server, LeastLoadedRoutesToTheFewestOutstandingTokens) {
  // At 0: a long request (to replica 0), a short one (to 1), then another short one: replica 1
  // has 10 + 5 tokens outstanding to replica 0's 1000 + 100.
  std::vector<Request> requests = {{0, 0, 1000, 100}, {1, 0, 10, 5}, {2, 0, 10, 5}};
  SchedulerOptions options{Policy::continuous, 8, 512};
  options.replicas = 2;
  auto run = run_server(requests, options, KvBlocks(400, 16), fixed_costs(0.01, 1e-5)).take();
  EXPECT_EQ(run.replicas[0].requests, 1);
  EXPECT_EQ(run.replicas[1].requests, 2);
  options.router = Router::round_robin;
  auto turns = run_server(requests, options, KvBlocks(400, 16), fixed_costs(0.01, 1e-5)).take();
  EXPECT_EQ(turns.replicas[0].requests, 2);
  EXPECT_EQ(turns.replicas[1].requests, 1);
}

TEST(Server, ParseRouterSaysWhatItTakes) {
  EXPECT_EQ(parse_router("round-robin").take(), Router::round_robin);
  EXPECT_EQ(parse_router("least-loaded").take(), Router::least_loaded);
  EXPECT_EQ(parse_router("random").error().message,
            "--router random: expected round-robin or least-loaded");
}

// Prefill on one group, decode on another, the KV over a link: one request at a time, TTFT is the
// prefill step plus the transfer (bytes / rate + latency) and TPOT the decode group's step.
TEST(Server, DisaggregatedOneAtATimeAddsTheTransferToTtftAlone) {
  const double per_token_s = 2e-5, decode_s = 0.015, bytes_per_token = 160e3;
  const ServerGroup prefill{SchedulerOptions{Policy::continuous, 8, 512}, KvBlocks(400, 16),
                            fixed_costs(0.5, per_token_s)};
  SchedulerOptions decoding{Policy::continuous, 8, 512};
  decoding.preemption = Preemption::swap;
  const ServerGroup decode{decoding, KvBlocks(400, 16), fixed_costs(decode_s, 1.0)};
  KvLink link{"test", {}, 12.5e9, 2e-6, 25e-12};
  auto run =
      run_disaggregated(every(10.0, 5, 300, 40), prefill, decode, KvHandoff{link, bytes_per_token})
          .take();
  const double bytes = 300 * bytes_per_token;
  const double ttft = 300 * per_token_s + bytes / 12.5e9 + 2e-6;
  for (const RequestRecord& r : run.records) {
    EXPECT_NEAR((r.first_token_s - r.request.arrival_s) / ttft, 1.0, 1e-9) << r.request.id;
    EXPECT_NEAR((r.finish_s - r.first_token_s) / 39 / decode_s, 1.0, 1e-9) << r.request.id;
  }
  ASSERT_TRUE(run.transfers.has_value());
  EXPECT_EQ(run.transfers->transfers, 5);
  EXPECT_NEAR(run.transfers->bytes, 5 * bytes, 1e-3);
  EXPECT_NEAR(run.transfers->joules, 5 * bytes * 25e-12, 1e-12);
  EXPECT_NEAR(run.transfers->seconds[0], bytes / 12.5e9 + 2e-6, 1e-15);
  ASSERT_EQ(run.replicas.size(), 2u);
  EXPECT_EQ(run.replicas[0].role, Role::prefill);
  EXPECT_EQ(run.replicas[1].role, Role::decode);
  EXPECT_EQ(run.replicas[1].steps, 5 * 39);
}

// Transfers share the link first come, first served: two prompts prefilled in one step leave
// together, the second waiting for the first's bytes.
TEST(Server, DisaggregatedTransfersQueueOnTheLink) {
  const ServerGroup prefill{SchedulerOptions{Policy::continuous, 8, 4096}, KvBlocks(400, 16),
                            fixed_costs(0.5, 1e-5)};
  SchedulerOptions decoding{Policy::continuous, 8, 512};
  decoding.preemption = Preemption::swap;
  const ServerGroup decode{decoding, KvBlocks(400, 16), fixed_costs(0.01, 1.0)};
  KvLink link{"test", {}, 1e9, 1e-3, std::nullopt};
  auto run = run_disaggregated(at_once(2, 100, 3), prefill, decode, KvHandoff{link, 1e6}).take();
  const double prefill_s = 200 * 1e-5, serial_s = 100 * 1e6 / 1e9;
  EXPECT_NEAR(run.records[0].first_token_s, prefill_s + serial_s + 1e-3, 1e-12);
  EXPECT_NEAR(run.records[1].first_token_s, prefill_s + 2 * serial_s + 1e-3, 1e-12);
  EXPECT_NEAR(run.transfers->busy_s, 2 * serial_s, 1e-12);
  EXPECT_EQ(run.transfers->joules, 0);
}

TEST(Metrics, PercentilesInterpolateBetweenOrderStatistics) {
  std::vector<double> v = {4, 1, 3, 2};
  EXPECT_DOUBLE_EQ(percentile(v, 0.5), 2.5);
  EXPECT_DOUBLE_EQ(percentile(v, 0.0), 1);
  EXPECT_DOUBLE_EQ(percentile(v, 1.0), 4);
}

}  // namespace
}  // namespace tessera::serve
