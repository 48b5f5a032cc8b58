// What `tessera topology` shows: a chip's cores, memory, compute, endpoints, links, hierarchy and
// example routes, gathered once (TopologySummary) and rendered as text or JSON.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "framework/common/status.hpp"
#include "framework/plugin/objects.hpp"

namespace tessera {

struct LinkGroup {
  tessera_link_class link_class;
  double bytes_per_s;
  double latency_s;
  size_t count = 0;
};

struct RouteHop {
  Link link;
  std::string from, to;
};

struct RouteSummary {
  Endpoint src, dst;
  std::vector<RouteHop> hops;
  double latency_s = 0;               // sum of per-link latencies
  double bottleneck_bytes_per_s = 0;  // slowest link on the way
};

struct TopologySummary {
  TopologyInfo info;
  std::map<std::string, double> peak_flops_per_s;  // per core, by dtype; 0 omitted
  // By dtype: the fidelity the cost model runs it at unless an op says otherwise (peak.hpp); ""
  // or absent: its rate has no fidelity.
  std::map<std::string, std::string> peak_fidelity;
  std::map<tessera_endpoint_kind, size_t> endpoints_by_kind;
  std::vector<LinkGroup> link_groups;
  std::vector<Level> levels;
  std::vector<RouteSummary> routes;
};

// Walks every endpoint and link once. `routes` are (src, dst) endpoint pairs to describe.
Result<TopologySummary> summarize(const Topology& topology,
                                  const std::vector<std::pair<uint32_t, uint32_t>>& routes);
// Fills peak_fidelity from the chip's cost model.
Status add_peak_fidelities(TopologySummary& summary, const CostModel& cost_model);
Result<RouteSummary> describe_route(const Topology& topology, uint32_t src, uint32_t dst);

// The default example routes: first core to last core, first core to the first memory controller.
std::vector<std::pair<uint32_t, uint32_t>> example_routes(const Topology& topology,
                                                          const TopologyInfo& info);

std::string render_text(const TopologySummary& summary);
nlohmann::json render_json(const TopologySummary& summary);

}  // namespace tessera
