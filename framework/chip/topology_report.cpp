#include "framework/chip/topology_report.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "framework/common/table.hpp"
#include "framework/common/units.hpp"
#include "framework/plugin/peak.hpp"

namespace tessera {

Result<RouteSummary> describe_route(const Topology& topology, uint32_t src, uint32_t dst) {
  RouteSummary r;
  auto a = topology.endpoint(src);
  if (!a) return a.error();
  auto b = topology.endpoint(dst);
  if (!b) return b.error();
  r.src = *a;
  r.dst = *b;
  auto links = topology.route(src, dst);
  if (!links) return links.error();
  r.bottleneck_bytes_per_s = links->empty() ? 0 : std::numeric_limits<double>::infinity();
  for (uint32_t index : *links) {
    auto link = topology.link(index);
    if (!link) return link.error();
    auto from = topology.endpoint(link->src);
    auto to = topology.endpoint(link->dst);
    if (!from) return from.error();
    if (!to) return to.error();
    r.latency_s += link->latency_s;
    r.bottleneck_bytes_per_s = std::min(r.bottleneck_bytes_per_s, link->bytes_per_s);
    r.hops.push_back({*link, from->name, to->name});
  }
  return r;
}

std::vector<std::pair<uint32_t, uint32_t>> example_routes(const Topology& topology,
                                                          const TopologyInfo& info) {
  std::vector<std::pair<uint32_t, uint32_t>> routes;
  if (info.num_cores == 0) return routes;
  if (info.num_cores > 1) routes.emplace_back(0, info.num_cores - 1);
  for (uint32_t e = info.num_cores; e < info.num_endpoints; ++e) {
    auto ep = topology.endpoint(e);
    if (ep && ep->kind == TESSERA_ENDPOINT_MEMORY_CONTROLLER) {
      routes.emplace_back(e, 0);
      break;
    }
  }
  return routes;
}

Result<TopologySummary> summarize(const Topology& topology,
                                  const std::vector<std::pair<uint32_t, uint32_t>>& routes) {
  TopologySummary s;
  auto info = topology.info();
  if (!info) return info.error();
  s.info = *info;
  for (uint32_t d = 0; d < TESSERA_DTYPE_COUNT; ++d) {
    auto flops = topology.peak_flops_per_s(d);
    if (!flops) return flops.error();
    if (*flops > 0) s.peak_flops_per_s[dtype_name(d)] = *flops;
  }
  for (uint32_t e = 0; e < s.info.num_endpoints; ++e) {
    auto ep = topology.endpoint(e);
    if (!ep) return ep.error();
    ++s.endpoints_by_kind[ep->kind];
  }
  for (uint32_t l = 0; l < s.info.num_links; ++l) {
    auto link = topology.link(l);
    if (!link) return link.error();
    auto same = [&](const LinkGroup& g) {
      return g.link_class == link->link_class && g.bytes_per_s == link->bytes_per_s &&
             g.latency_s == link->latency_s;
    };
    auto it = std::find_if(s.link_groups.begin(), s.link_groups.end(), same);
    if (it == s.link_groups.end())
      it = s.link_groups.insert(s.link_groups.end(),
                                LinkGroup{link->link_class, link->bytes_per_s, link->latency_s});
    ++it->count;
  }
  for (uint32_t i = 0; i < s.info.num_levels; ++i) {
    auto level = topology.level(i);
    if (!level) return level.error();
    s.levels.push_back(*level);
  }
  for (const auto& [src, dst] : routes) {
    auto r = describe_route(topology, src, dst);
    if (!r) return r.error();
    s.routes.push_back(*r);
  }
  return s;
}

Status add_peak_fidelities(TopologySummary& summary, const CostModel& cost_model) {
  for (uint32_t d = 0; d < TESSERA_DTYPE_COUNT; ++d) {
    if (!summary.peak_flops_per_s.contains(dtype_name(d))) continue;
    auto fidelity = default_fidelity(cost_model, d);
    if (!fidelity) return fidelity.error();
    if (!fidelity->empty()) summary.peak_fidelity[dtype_name(d)] = *fidelity;
  }
  return ok_status();
}

namespace {

std::string render_routes(const std::vector<RouteSummary>& routes) {
  std::string out;
  for (const auto& r : routes) {
    out += fmt::format("\nroute {} -> {}: {} links, latency {}, bottleneck {}\n", r.src.name,
                       r.dst.name, r.hops.size(), format_seconds(r.latency_s),
                       format_bytes_per_s(r.bottleneck_bytes_per_s));
    Table t({"#", "from", "to", "class", "net", "bandwidth", "latency"},
            {Table::Align::right, Table::Align::left, Table::Align::left, Table::Align::left,
             Table::Align::right, Table::Align::right, Table::Align::right});
    for (size_t i = 0; i < r.hops.size(); ++i) {
      const auto& h = r.hops[i];
      t.add_row({std::to_string(i + 1), h.from, h.to, to_string(h.link.link_class),
                 std::to_string(h.link.network), format_bytes_per_s(h.link.bytes_per_s),
                 format_seconds(h.link.latency_s)});
    }
    if (!r.hops.empty()) out += t.render();
  }
  return out;
}

}  // namespace

std::string render_text(const TopologySummary& s) {
  const auto& i = s.info;
  std::string out;
  out += fmt::format("chip         {}\n", i.name);
  out += fmt::format("cores        {} on {} chip{}\n", i.num_cores, i.num_chips,
                     i.num_chips == 1 ? "" : "s");
  out += fmt::format("SRAM         {} per core, {} in total\n",
                     format_bytes(double(i.sram_bytes_per_core)),
                     format_bytes(double(i.sram_bytes_per_core) * i.num_cores));
  out += fmt::format("SRAM port    {} per core\n", format_bytes_per_s(i.sram_bytes_per_s));
  out += fmt::format("clock        {}\n", format_hz(i.clock_hz));
  for (const auto& [dtype, flops] : s.peak_flops_per_s) {
    auto fidelity = s.peak_fidelity.find(dtype);
    out +=
        fmt::format("peak {:<7} {} per core{}, {} on {} cores\n", dtype, format_flops_per_s(flops),
                    fidelity == s.peak_fidelity.end() ? "" : " at " + fidelity->second,
                    format_flops_per_s(flops * i.num_cores), i.num_cores);
  }
  std::string kinds;
  for (const auto& [kind, count] : s.endpoints_by_kind)
    kinds += fmt::format("{}{} {}", kinds.empty() ? "" : ", ", count, to_string(kind));
  out += fmt::format("endpoints    {} ({})\n", i.num_endpoints, kinds);
  out += fmt::format("links        {} directed\n", i.num_links);
  Table links({"class", "count", "bandwidth each", "latency"},
              {Table::Align::left, Table::Align::right, Table::Align::right, Table::Align::right});
  for (const auto& g : s.link_groups)
    links.add_row({to_string(g.link_class), std::to_string(g.count),
                   format_bytes_per_s(g.bytes_per_s), format_seconds(g.latency_s)});
  out += "\n" + links.render();
  if (!s.levels.empty()) {
    Table levels({"level", "name", "fanout", "nodes", "memory each", "down", "up"},
                 {Table::Align::right, Table::Align::left, Table::Align::right, Table::Align::right,
                  Table::Align::right, Table::Align::right, Table::Align::right});
    for (size_t l = 0; l < s.levels.size(); ++l) {
      const auto& v = s.levels[l];
      levels.add_row({std::to_string(l), v.name, std::to_string(v.fanout), std::to_string(v.nodes),
                      format_bytes(double(v.memory_bytes)), format_bytes_per_s(v.down_bytes_per_s),
                      format_bytes_per_s(v.up_bytes_per_s)});
    }
    out += "\n" + levels.render();
  }
  return out + render_routes(s.routes);
}

nlohmann::json render_json(const TopologySummary& s) {
  const auto& i = s.info;
  nlohmann::json j = {{"chip", i.name},
                      {"cores", i.num_cores},
                      {"chips", i.num_chips},
                      {"sram_bytes_per_core", i.sram_bytes_per_core},
                      {"sram_bytes_per_s", i.sram_bytes_per_s},
                      {"clock_hz", i.clock_hz},
                      {"peak_flops_per_s_per_core", s.peak_flops_per_s},
                      {"peak_fidelity", s.peak_fidelity},
                      {"endpoints", i.num_endpoints},
                      {"links", i.num_links}};
  for (const auto& [kind, count] : s.endpoints_by_kind)
    j["endpoints_by_kind"][to_string(kind)] = count;
  for (const auto& g : s.link_groups)
    j["link_groups"].push_back({{"class", to_string(g.link_class)},
                                {"count", g.count},
                                {"bytes_per_s", g.bytes_per_s},
                                {"latency_s", g.latency_s}});
  for (const auto& v : s.levels)
    j["levels"].push_back({{"name", v.name},
                           {"fanout", v.fanout},
                           {"nodes", v.nodes},
                           {"memory_bytes", v.memory_bytes},
                           {"down_bytes_per_s", v.down_bytes_per_s},
                           {"up_bytes_per_s", v.up_bytes_per_s}});
  for (const auto& r : s.routes) {
    nlohmann::json hops = nlohmann::json::array();
    for (const auto& h : r.hops)
      hops.push_back({{"link", h.link.index},
                      {"from", h.from},
                      {"to", h.to},
                      {"class", to_string(h.link.link_class)},
                      {"network", h.link.network},
                      {"bytes_per_s", h.link.bytes_per_s},
                      {"latency_s", h.link.latency_s}});
    j["routes"].push_back({{"src", r.src.name},
                           {"dst", r.dst.name},
                           {"latency_s", r.latency_s},
                           {"bottleneck_bytes_per_s", r.bottleneck_bytes_per_s},
                           {"hops", hops}});
  }
  return j;
}

}  // namespace tessera
