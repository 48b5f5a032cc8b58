#include "framework/dse/point_result.hpp"

#include "framework/common/json_text.hpp"
#include "framework/dse/point_json.hpp"

namespace tessera::dse {

NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(StrategyRow, collective_s, bubble)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(PointResult, index, values, ok, reason, model, target, chip,
                                   mode, dtype, batch, seq, strategy, tokens, strategy_rows,
                                   residency, resident_bytes_per_core, cores, hbm_peak_bytes_per_s,
                                   hbm_sustained_bytes_per_s, interconnect_bytes_per_s,
                                   peak_flops_per_s, rows, wall_s)

std::string point_json(const PointResult& result) {
  return json_text(nlohmann::json(result), 1) + "\n";
}

Result<PointResult> read_point_json(const std::string& text, const std::string& where) {
  try {
    return nlohmann::json::parse(text, nullptr, false).get<PointResult>();
  } catch (const nlohmann::json::exception& e) {
    return input_error(where + ": not a sweep point result (" + e.what() +
                       "); delete the file to run the point again");
  }
}

}  // namespace tessera::dse
