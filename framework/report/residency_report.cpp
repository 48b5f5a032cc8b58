#include "framework/report/residency_report.hpp"

#include <fmt/format.h>

#include "framework/common/units.hpp"

namespace tessera {

namespace {

struct Totals {
  double weights = 0, kv = 0;
  size_t resident = 0;
};

Totals totals_of(const planner::ResidencyRecord& r) {
  Totals t;
  for (const auto& u : r.units) {
    if (!u.resident) continue;
    ++t.resident;
    (u.kind == "kv_cache" ? t.kv : t.weights) += u.bytes;
  }
  return t;
}

}  // namespace

std::string residency_text(const planner::ResidencyRecord& r, const Machine& machine,
                           size_t streamed_rows) {
  if (r.mode == "off") return "";
  Totals t = totals_of(r);
  std::string text = fmt::format(
      "residency  {}: {} of each core's {} of SRAM holds {} of {} candidates across steps "
      "(weights {}, KV cache {}); their ops preload nothing and their writes stay on chip\n",
      r.mode, format_bytes(r.bytes_per_core),
      format_bytes(static_cast<double>(machine.sram_bytes_per_core)), t.resident, r.units.size(),
      format_bytes(t.weights), format_bytes(t.kv));
  size_t listed = 0, streamed = 0;
  for (const auto& u : r.units) {
    if (u.resident) continue;
    ++streamed;
    if (listed++ < streamed_rows)
      text += fmt::format("  streamed {} ({}): {}\n", u.label, format_bytes(u.bytes), u.why);
  }
  if (streamed > streamed_rows)
    text += fmt::format("  ... and {} more streamed\n", streamed - streamed_rows);
  return text;
}

nlohmann::json residency_json(const planner::ResidencyRecord& r) {
  if (r.mode == "off") return nullptr;
  Totals t = totals_of(r);
  nlohmann::json units = nlohmann::json::array();
  for (const auto& u : r.units)
    units.push_back({{"label", u.label},
                     {"kind", u.kind},
                     {"bytes", u.bytes},
                     {"saves_s", u.saves_s},
                     {"resident", u.resident},
                     {"why", u.why}});
  return {{"mode", r.mode},
          {"bytes_per_core", r.bytes_per_core},
          {"resident_bytes", {{"weights", t.weights}, {"kv_cache", t.kv}}},
          {"choices_tried", r.choices_tried},
          {"units", std::move(units)}};
}

}  // namespace tessera
