#include "framework/memsim/memory_report.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "framework/common/table.hpp"
#include "framework/common/units.hpp"

namespace tessera {

tessera_memory_stats MemoryRunReport::total() const {
  tessera_memory_stats t{};
  t.struct_size = sizeof(t);
  t.cycles = cycles;
  double latency_sum = 0;
  for (const auto& c : channels) {
    const tessera_memory_stats& s = c.stats;
    t.reads += s.reads;
    t.writes += s.writes;
    t.row_hits += s.row_hits;
    t.row_misses += s.row_misses;
    t.activates += s.activates;
    t.refreshes += s.refreshes;
    t.bytes_per_s += s.bytes_per_s;
    t.energy_j += s.energy_j;
    latency_sum += s.avg_read_latency_cycles * static_cast<double>(s.reads);
  }
  t.avg_read_latency_cycles = t.reads == 0 ? 0 : latency_sum / static_cast<double>(t.reads);
  return t;
}

Histogram MemoryRunReport::total_read_latency() const {
  Histogram all;
  for (const auto& c : channels) all.merge(c.read_latency);
  return all;
}

namespace {

double seconds_of(const MemoryRunReport& r, double cycles) {
  return cycles / r.info.clock_hz;
}

double hit_rate(const tessera_memory_stats& s) {
  uint64_t column = s.row_hits + s.row_misses;
  return column == 0 ? 0.0 : static_cast<double>(s.row_hits) / column;
}

std::string histogram_text(const MemoryRunReport& r, const Histogram& h) {
  std::string out = "read latency histogram (cycles)\n";
  std::vector<Histogram::Bin> bins = h.bins(12);
  uint64_t tallest = 1;
  for (const auto& b : bins) tallest = std::max(tallest, b.count);
  for (const auto& b : bins) {
    std::string bar(static_cast<size_t>(40.0 * b.count / tallest + (b.count > 0 ? 0.5 : 0)), '#');
    out += fmt::format("  [{:>6}, {:>6})  {:>9}  {:<40}  {}\n", b.low, b.high, b.count, bar,
                       format_seconds(seconds_of(r, static_cast<double>(b.low))));
  }
  return out;
}

std::string channel_table(const MemoryRunReport& r) {
  using A = Table::Align;
  Table table({"channel", "reads", "writes", "bandwidth", "% peak", "avg read lat", "p99",
               "row hits", "ACT", "REF", "energy"},
              {A::right, A::right, A::right, A::right, A::right, A::right, A::right, A::right,
               A::right, A::right, A::right});
  const double channel_peak = r.info.peak_bytes_per_s / std::max<size_t>(1, r.channels.size());
  for (const auto& c : r.channels) {
    const tessera_memory_stats& s = c.stats;
    table.add_row({std::to_string(c.channel), std::to_string(s.reads), std::to_string(s.writes),
                   format_bytes_per_s(s.bytes_per_s),
                   fmt::format("{:.1f}%", 100 * s.bytes_per_s / channel_peak),
                   fmt::format("{:.1f}", s.avg_read_latency_cycles),
                   std::to_string(c.read_latency.percentile(0.99)),
                   fmt::format("{:.1f}%", 100 * hit_rate(s)), std::to_string(s.activates),
                   std::to_string(s.refreshes), fmt::format("{:.3g} uJ", s.energy_j * 1e6)});
  }
  return table.render();
}

}  // namespace

std::string render_text(const MemoryRunReport& r) {
  const tessera_memory_stats t = r.total();
  const Histogram latency = r.total_read_latency();
  const double run_s = seconds_of(r, static_cast<double>(r.cycles));
  std::string out;
  out += fmt::format("config       {}\n", r.config);
  out += fmt::format("device       {}\n", r.device);
  out += fmt::format("system       {} stack{}, {} channels, clock {}, peak {}\n", r.stacks,
                     r.stacks == 1 ? "" : "s", r.info.channels, format_hz(r.info.clock_hz),
                     format_bytes_per_s(r.info.peak_bytes_per_s));
  out += fmt::format("traffic      {}\n", r.traffic);
  out += fmt::format("simulated    {} cycles ({})\n", r.cycles, format_seconds(run_s));
  out += fmt::format("requests     {} accepted, {} reads and {} writes finished\n", r.accepted,
                     t.reads, t.writes);
  out += fmt::format("bandwidth    {} ({:.1f}% of peak)\n", format_bytes_per_s(t.bytes_per_s),
                     100 * t.bytes_per_s / r.info.peak_bytes_per_s);
  out += fmt::format("read latency avg {:.1f} cycles ({}), p50 {}, p99 {}, max {}\n",
                     t.avg_read_latency_cycles,
                     format_seconds(seconds_of(r, t.avg_read_latency_cycles)),
                     latency.percentile(0.5), latency.percentile(0.99), latency.max());
  out += fmt::format("row hits     {:.1f}% ({} of {} column commands)\n", 100 * hit_rate(t),
                     t.row_hits, t.row_hits + t.row_misses);
  out += fmt::format("commands     ACT {}, REF {}, RD/WR {}\n", t.activates, t.refreshes,
                     t.row_hits + t.row_misses);
  out += fmt::format("energy       {:.4g} uJ (average power {:.3g} W)\n", t.energy_j * 1e6,
                     run_s > 0 ? t.energy_j / run_s : 0.0);
  if (latency.count() > 0) out += "\n" + histogram_text(r, latency);
  out += "\nper channel\n" + channel_table(r);
  return out;
}

namespace {

nlohmann::json stats_json(const tessera_memory_stats& s, const Histogram& latency,
                          double clock_hz) {
  nlohmann::json bins = nlohmann::json::array();
  for (const auto& b : latency.bins(20)) bins.push_back({b.low, b.high, b.count});
  return {{"reads", s.reads},
          {"writes", s.writes},
          {"bytes_per_s", s.bytes_per_s},
          {"avg_read_latency_cycles", s.avg_read_latency_cycles},
          {"avg_read_latency_s", s.avg_read_latency_cycles / clock_hz},
          {"read_latency_p50_cycles", latency.percentile(0.5)},
          {"read_latency_p99_cycles", latency.percentile(0.99)},
          {"read_latency_max_cycles", latency.max()},
          {"read_latency_histogram", bins},
          {"row_hits", s.row_hits},
          {"row_misses", s.row_misses},
          {"row_hit_rate", hit_rate(s)},
          {"activates", s.activates},
          {"refreshes", s.refreshes},
          {"energy_j", s.energy_j}};
}

}  // namespace

nlohmann::json render_json(const MemoryRunReport& r) {
  nlohmann::json channels = nlohmann::json::array();
  for (const auto& c : r.channels) {
    nlohmann::json j = stats_json(c.stats, c.read_latency, r.info.clock_hz);
    j["channel"] = c.channel;
    channels.push_back(std::move(j));
  }
  return {{"config", r.config},
          {"device", r.device},
          {"traffic", r.traffic},
          {"stacks", r.stacks},
          {"channels", r.info.channels},
          {"clock_hz", r.info.clock_hz},
          {"peak_bytes_per_s", r.info.peak_bytes_per_s},
          {"capacity_bytes", r.info.capacity_bytes},
          {"cycles", r.cycles},
          {"accepted", r.accepted},
          {"total", stats_json(r.total(), r.total_read_latency(), r.info.clock_hz)},
          {"per_channel", channels},
          {"histogram_columns", {"low_cycles", "high_cycles", "count"}}};
}

}  // namespace tessera
