#include "framework/dse/point_result.hpp"

#include "framework/common/json_text.hpp"
#include "framework/dse/point_json.hpp"

namespace tessera::dse {

NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(StrategyRow, collective_s, bubble)
// Every key required: a point file written before `approximation` existed is refused rather than
// read back as exact (docs/dse.md, "results.csv columns").
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(PointResult, index, values, ok, reason, model, target, chip,
                                   approximation, mode, dtype, batch, seq, strategy, tokens,
                                   strategy_rows, residency, resident_bytes_per_core, cores,
                                   hbm_peak_bytes_per_s, hbm_sustained_bytes_per_s,
                                   interconnect_bytes_per_s, peak_flops_per_s, rows, wall_s)

NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(ServeMetrics, chips, requests, sustainable, offered_rps,
                                   sustained_rps, requests_per_s, tokens_per_s, ttft_p50_s,
                                   ttft_p90_s, ttft_p99_s, tpot_p50_s, tpot_p90_s, tpot_p99_s,
                                   e2e_p50_s, e2e_p90_s, e2e_p99_s, goodput_rps, slo_attained,
                                   joules_per_token, grid_error, trusted)

// A compile point's file has no "serve" key, and a decode's no "first_token_host_s", so their
// bytes are as before those existed.
std::string point_json(const PointResult& result) {
  nlohmann::json j(result);
  if (result.serve) j["serve"] = *result.serve;
  if (result.first_token_host_s > 0) j["first_token_host_s"] = result.first_token_host_s;
  return json_text(j, 1) + "\n";
}

Result<PointResult> read_point_json(const std::string& text, const std::string& where) {
  try {
    nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
    PointResult result = j.get<PointResult>();
    if (j.contains("serve")) result.serve = j.at("serve").get<ServeMetrics>();
    if (j.contains("first_token_host_s"))
      result.first_token_host_s = j.at("first_token_host_s").get<double>();
    return result;
  } catch (const nlohmann::json::exception& e) {
    return input_error(where + ": not a sweep point result (" + e.what() +
                       "); delete the file to run the point again");
  }
}

}  // namespace tessera::dse
