// The JSON form of one design's figures (point_result.hpp's Metrics and DesignRow): sweeps'
// point files and results.json, and `tessera compile --format json`, share these field names.
// Field names are the JSON keys; reading requires every one (json::at), so a damaged file is an
// error, never a half-filled result.
#pragma once

#include <nlohmann/json.hpp>

#include "framework/dse/point_result.hpp"

namespace tessera::dse {

// With defaults: a point written before dispatch_s reads back with none.
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(Metrics, latency_s, hbm_utilisation,
                                                interconnect_utilisation, sram_utilisation,
                                                flops_per_s, execution_only_s, overlapped_s,
                                                preload_stall_s, congestion_s, energy_j, power_w,
                                                dispatch_s)
// A point written before sim_same_as reads back as simulated for each design.
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(DesignRow, design, planned, orders_tried, simulated,
                                                simulated_metrics, sim_same_as)

}  // namespace tessera::dse
