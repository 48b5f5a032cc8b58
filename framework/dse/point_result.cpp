#include "framework/dse/point_result.hpp"

#include <nlohmann/json.hpp>

namespace tessera::dse {

namespace {

using nlohmann::json;

json metrics_json(const Metrics& m) {
  return {{"latency_s", m.latency_s},
          {"hbm_utilisation", m.hbm_utilisation},
          {"interconnect_utilisation", m.interconnect_utilisation},
          {"sram_utilisation", m.sram_utilisation},
          {"flops_per_s", m.flops_per_s},
          {"execution_only_s", m.execution_only_s},
          {"overlapped_s", m.overlapped_s},
          {"preload_stall_s", m.preload_stall_s},
          {"congestion_s", m.congestion_s}};
}

Metrics metrics_from(const json& j) {
  Metrics m;
  j.at("latency_s").get_to(m.latency_s);
  j.at("hbm_utilisation").get_to(m.hbm_utilisation);
  j.at("interconnect_utilisation").get_to(m.interconnect_utilisation);
  j.at("sram_utilisation").get_to(m.sram_utilisation);
  j.at("flops_per_s").get_to(m.flops_per_s);
  j.at("execution_only_s").get_to(m.execution_only_s);
  j.at("overlapped_s").get_to(m.overlapped_s);
  j.at("preload_stall_s").get_to(m.preload_stall_s);
  j.at("congestion_s").get_to(m.congestion_s);
  return m;
}

json to_json(const PointResult& r) {
  json rows = json::array();
  for (const DesignRow& d : r.rows) {
    json row = {{"design", d.design},
                {"planned", metrics_json(d.planned)},
                {"orders_tried", d.orders_tried}};
    if (d.simulated) row["simulated"] = metrics_json(d.simulated_metrics);
    rows.push_back(std::move(row));
  }
  return {{"index", r.index},
          {"values", r.values},
          {"ok", r.ok},
          {"reason", r.reason},
          {"model", r.model},
          {"target", r.target},
          {"chip", r.chip},
          {"batch", r.batch},
          {"seq", r.seq},
          {"mode", r.mode},
          {"dtype", r.dtype},
          {"cores", r.cores},
          {"hbm_peak_bytes_per_s", r.hbm_peak_bytes_per_s},
          {"hbm_sustained_bytes_per_s", r.hbm_sustained_bytes_per_s},
          {"interconnect_bytes_per_s", r.interconnect_bytes_per_s},
          {"peak_flops_per_s", r.peak_flops_per_s},
          {"rows", rows},
          {"wall_s", r.wall_s}};
}

Result<PointResult> from_json(const json& j, const std::string& where) {
  try {
    PointResult r;
    j.at("index").get_to(r.index);
    j.at("values").get_to(r.values);
    j.at("ok").get_to(r.ok);
    j.at("reason").get_to(r.reason);
    j.at("model").get_to(r.model);
    j.at("target").get_to(r.target);
    j.at("chip").get_to(r.chip);
    j.at("batch").get_to(r.batch);
    j.at("seq").get_to(r.seq);
    j.at("mode").get_to(r.mode);
    j.at("dtype").get_to(r.dtype);
    j.at("cores").get_to(r.cores);
    j.at("hbm_peak_bytes_per_s").get_to(r.hbm_peak_bytes_per_s);
    j.at("hbm_sustained_bytes_per_s").get_to(r.hbm_sustained_bytes_per_s);
    j.at("interconnect_bytes_per_s").get_to(r.interconnect_bytes_per_s);
    j.at("peak_flops_per_s").get_to(r.peak_flops_per_s);
    j.at("wall_s").get_to(r.wall_s);
    for (const json& row : j.at("rows")) {
      DesignRow d;
      row.at("design").get_to(d.design);
      d.planned = metrics_from(row.at("planned"));
      row.at("orders_tried").get_to(d.orders_tried);
      d.simulated = row.contains("simulated");
      if (d.simulated) d.simulated_metrics = metrics_from(row.at("simulated"));
      r.rows.push_back(std::move(d));
    }
    return r;
  } catch (const json::exception& e) {
    return input_error(where + ": not a sweep point result (" + e.what() +
                       "); delete the file to run the point again");
  }
}

}  // namespace

std::string point_json(const PointResult& result) { return to_json(result).dump(1) + "\n"; }

Result<PointResult> read_point_json(const std::string& text, const std::string& where) {
  return from_json(json::parse(text, nullptr, false), where);
}

}  // namespace tessera::dse
