// A serve sweep's goal judged over its points (sweep_spec.hpp's ServeGoal): each finished point
// meets it or misses it and why, and the sweep names the cheapest point that meets it — or, when
// none does, the one that came closest.
//
//   meets      the load was sustained (serve/metrics.hpp) and every latency the goal bounds is
//              within its limit and the share of requests meeting the per-request SLOs is at
//              least slo_attained
//   cheapest   the least `minimise` among the points that meet: chips (the machine's), energy
//              per token (a point whose chip states no energy rates ranks after every one that
//              does), or cost per million output tokens = chips x price per chip-hour / 3600 /
//              tokens per s x 1e6; ties go to fewer chips, then less energy per token, then the
//              earlier point
//   closest    among the points that miss: sustained before unsustained; then the least excess,
//              the largest ratio of a figure to its limit (measured / limit for latencies,
//              slo_attained / attained for the share) or, unsustained, offered / sustained rate;
//              ties to the earlier point
#pragma once

#include <optional>
#include <string>

#include "framework/dse/results_table.hpp"

namespace tessera::dse {

struct Verdict {
  bool judged = false;  // false: the point failed (nothing to judge)
  bool meets = false;
  std::string why;    // what it missed: "TTFT P90 1234.5 ms > 1000 ms; ..." (empty: it meets)
  double cost = 0;    // the minimised figure: chips, J per token, or cost per million tokens
  double excess = 0;  // how far it missed (see above); 1 or less when it meets
};

Verdict judge(const SweepSpec& spec, const ServeGoal& goal, const PointResult& r);

struct Choice {
  std::optional<size_t> cheapest;  // point index of the cheapest meeting point
  std::optional<size_t> closest;   // when none meets: the point that came closest
};

Choice choose(const SweepSpec& spec, const ServeGoal& goal, const PointResults& results);

// What `tessera sweep` prints after its summary: one line per point (its values, meets or misses
// and why, the minimised figure), then the cheapest meeting point or, when none meets, that no
// point does and which came closest and by how much.
std::string goal_text(const SweepSpec& spec, const PointResults& results);

// The minimised figure's name and unit as the table and text show it ("chips", "mJ/token",
// "cost/Mtok").
std::string cost_label(const ServeGoal& goal);
// The minimised figure as shown: chips as is, energy in mJ per token, cost per million tokens.
double shown_cost(const ServeGoal& goal, double cost);

}  // namespace tessera::dse
