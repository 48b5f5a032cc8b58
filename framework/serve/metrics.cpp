#include "framework/serve/metrics.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

#include "framework/common/json_text.hpp"

namespace tessera::serve {

namespace {

// Served at less than this share of the offered rate, with more than a batch waiting when the last
// request arrived: the queue was growing. A load the machine keeps up with is served at the
// offered rate but for the last requests' latency, a small share of any run of many requests.
constexpr double kServedShare = 0.95;

Spread spread(std::vector<double> values) {
  if (values.empty()) return {};
  double sum = 0;
  for (double v : values) sum += v;
  return {sum / static_cast<double>(values.size()), percentile(values, 0.5),
          percentile(values, 0.9), percentile(values, 0.99)};
}

std::optional<double> tpot(const RequestRecord& r) {
  if (r.request.output_tokens < 2) return std::nullopt;
  return (r.finish_s - r.first_token_s) / static_cast<double>(r.request.output_tokens - 1);
}

bool meets(const RequestRecord& r, const Slo& slo) {
  if (slo.ttft_s && r.first_token_s - r.request.arrival_s > *slo.ttft_s) return false;
  auto t = tpot(r);
  return !(slo.tpot_s && t && *t > *slo.tpot_s);
}

void judge_load(const ServerRun& run, int64_t max_batch, ServeSummary& s) {
  const auto& records = run.records;
  double first = records.front().request.arrival_s, last = records.back().request.arrival_s;
  double window = last - first;
  s.offered_rps = window > 0 ? static_cast<double>(records.size() - 1) / window : 0;
  s.sustained_rps = static_cast<double>(records.size()) / std::max(run.end_s - first, 1e-12);
  const int64_t slots = max_batch * static_cast<int64_t>(std::max<size_t>(1, run.replicas.size()));
  s.sustainable =
      !(run.waiting_at_last_arrival > slots && s.sustained_rps < kServedShare * s.offered_rps);
  for (const Sample& sample : run.samples)
    s.peak_waiting = std::max(s.peak_waiting, sample.waiting);
}

}  // namespace

double percentile(std::vector<double>& values, double p) {
  std::sort(values.begin(), values.end());
  double rank = p * static_cast<double>(values.size() - 1);
  auto lo = static_cast<size_t>(std::floor(rank));
  size_t hi = std::min(lo + 1, values.size() - 1);
  return values[lo] + (rank - static_cast<double>(lo)) * (values[hi] - values[lo]);
}

ServeSummary summarize(const ServerRun& run, const Slo& slo, int64_t max_batch) {
  ServeSummary s;
  s.requests = static_cast<int64_t>(run.records.size());
  s.steps = run.steps;
  s.preemptions = run.preemptions;
  if (run.records.empty()) return s;
  std::vector<double> ttft, tpots, e2e;
  int64_t met = 0;
  for (const RequestRecord& r : run.records) {
    ttft.push_back(r.first_token_s - r.request.arrival_s);
    e2e.push_back(r.finish_s - r.request.arrival_s);
    if (auto t = tpot(r)) tpots.push_back(*t);
    s.output_tokens += r.request.output_tokens;
    met += meets(r, slo) ? 1 : 0;
  }
  s.ttft_s = spread(std::move(ttft));
  s.tpot_s = spread(std::move(tpots));
  s.e2e_s = spread(std::move(e2e));
  s.duration_s = run.end_s - run.records.front().request.arrival_s;
  s.tokens_per_s = static_cast<double>(s.output_tokens) / s.duration_s;
  s.requests_per_s = static_cast<double>(s.requests) / s.duration_s;
  if (slo.ttft_s || slo.tpot_s) {
    s.goodput_rps = static_cast<double>(met) / s.duration_s;
    s.slo_attained = static_cast<double>(met) / static_cast<double>(s.requests);
  }
  // Over busy replica-seconds, each replica's use of its own pool.
  double busy_block_seconds = 0;
  for (const ReplicaRun& r : run.replicas)
    busy_block_seconds += r.busy_s * static_cast<double>(r.kv_blocks);
  const auto blocks = static_cast<double>(run.kv_blocks);
  s.kv_utilisation_mean = busy_block_seconds > 0 ? run.kv_block_seconds / busy_block_seconds : 0;
  for (const ReplicaRun& r : run.replicas)
    s.replicas.push_back(ReplicaSummary{
        r.requests, r.preemptions, s.duration_s > 0 ? r.busy_s / s.duration_s : 0,
        r.busy_s > 0 ? r.kv_block_seconds / r.busy_s / static_cast<double>(r.kv_blocks) : 0,
        static_cast<double>(r.kv_blocks_peak) / static_cast<double>(r.kv_blocks), r.role});
  for (const Sample& sample : run.samples)
    s.kv_utilisation_peak =
        std::max(s.kv_utilisation_peak, static_cast<double>(sample.kv_blocks_used) / blocks);
  s.joules_per_token = run.joules / static_cast<double>(s.output_tokens);
  s.joules_per_request = run.joules / static_cast<double>(s.requests);
  if (run.transfers)
    s.link = LinkSummary{run.transfers->transfers, run.transfers->bytes,
                         s.duration_s > 0 ? run.transfers->busy_s / s.duration_s : 0,
                         run.transfers->joules, spread(run.transfers->seconds)};
  judge_load(run, max_batch, s);
  return s;
}

std::string requests_csv(const ServerRun& run) {
  std::string out =
      "id,arrival_s,prompt_tokens,output_tokens,ttft_s,tpot_s,e2e_s,preemptions,joules\n";
  for (const RequestRecord& r : run.records) {
    auto t = tpot(r);
    out += fmt::format("{},{},{},{},{},{},{},{},{}\n", r.request.id, r.request.arrival_s,
                       r.request.prompt_tokens, r.request.output_tokens,
                       r.first_token_s - r.request.arrival_s, t ? fmt::format("{}", *t) : "",
                       r.finish_s - r.request.arrival_s, r.preemptions, r.joules);
  }
  return out;
}

std::string requests_json(const ServerRun& run) {
  nlohmann::json rows = nlohmann::json::array();
  for (const RequestRecord& r : run.records) {
    auto t = tpot(r);
    rows.push_back({{"id", r.request.id},
                    {"arrival_s", r.request.arrival_s},
                    {"prompt_tokens", r.request.prompt_tokens},
                    {"output_tokens", r.request.output_tokens},
                    {"ttft_s", r.first_token_s - r.request.arrival_s},
                    {"tpot_s", t ? nlohmann::json(*t) : nlohmann::json()},
                    {"e2e_s", r.finish_s - r.request.arrival_s},
                    {"preemptions", r.preemptions},
                    {"joules", r.joules}});
  }
  return json_text({{"format", "tessera-serve-requests-1"}, {"requests", rows}}, 1) + "\n";
}

std::string occupancy_csv(const ServerRun& run, size_t rows) {
  std::string out = "time_s,waiting,running,kv_utilisation\n";
  if (run.samples.empty() || rows == 0) return out;
  size_t stride = std::max<size_t>(1, run.samples.size() / rows);
  for (size_t i = 0; i < run.samples.size(); i += stride) {
    const Sample& s = run.samples[i];
    out += fmt::format("{},{},{},{}\n", s.time_s, s.waiting, s.running,
                       static_cast<double>(s.kv_blocks_used) / static_cast<double>(run.kv_blocks));
  }
  return out;
}

}  // namespace tessera::serve
