#include "framework/dse/serve_goal.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <map>
#include <tuple>

#include "framework/dse/serve_words.hpp"

namespace tessera::dse {

namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();

double latency_s(const ServeMetrics& m, const std::string& metric) {
  static const std::map<std::string, double ServeMetrics::*> fields = {
      {"ttft_p50", &ServeMetrics::ttft_p50_s}, {"ttft_p90", &ServeMetrics::ttft_p90_s},
      {"ttft_p99", &ServeMetrics::ttft_p99_s}, {"tpot_p50", &ServeMetrics::tpot_p50_s},
      {"tpot_p90", &ServeMetrics::tpot_p90_s}, {"tpot_p99", &ServeMetrics::tpot_p99_s},
      {"e2e_p50", &ServeMetrics::e2e_p50_s},   {"e2e_p90", &ServeMetrics::e2e_p90_s},
      {"e2e_p99", &ServeMetrics::e2e_p99_s}};
  return m.*fields.at(metric);
}

// "ttft_p90" -> "TTFT P90".
std::string metric_label(const std::string& metric) {
  std::string out;
  for (char c : metric) out += c == '_' ? ' ' : static_cast<char>(std::toupper(c));
  return out;
}

// Energy per token ranks only where the chip states energy rates: none ranks after any.
double energy_rank(const ServeMetrics& m) {
  return m.joules_per_token > 0 ? m.joules_per_token : kInfinity;
}

double cost_of(const SweepSpec& spec, const ServeGoal& goal, const PointResult& r) {
  const ServeMetrics& m = *r.serve;
  if (goal.minimise == "energy_per_token") return energy_rank(m);
  if (goal.minimise == "chips") return static_cast<double>(m.chips);
  const double price =
      goal.price_per_chip_hour.at(serve_word(spec, Point{r.index, r.values}, "chip"));
  if (!(m.tokens_per_s > 0)) return kInfinity;
  return static_cast<double>(m.chips) * price / 3600.0 / m.tokens_per_s * 1e6;
}

std::string point_words(const SweepSpec& spec, const PointResult& r) {
  std::string out;
  for (size_t a = 0; a < spec.axes.size(); ++a)
    out += (a ? " " : "") + spec.axes[a].path + "=" + r.values.at(a);
  return out.empty() ? "the base" : out;
}

std::string goal_line(const ServeGoal& goal) {
  std::string slos;
  for (const SloLimit& l : goal.latencies)
    slos += (slos.empty() ? "" : ", ") +
            fmt::format("{} <= {:g} ms", metric_label(l.metric), l.limit_ms);
  if (goal.slo_attained)
    slos += (slos.empty() ? "" : ", ") +
            fmt::format("{:g} % of requests within the per-request SLOs", *goal.slo_attained * 100);
  return fmt::format("goal: {}, the load sustained; minimise {}\n", slos, goal.minimise);
}

std::string cost_text(const ServeGoal& goal, double cost) {
  if (cost == kInfinity)
    return goal.minimise == "energy_per_token" ? "no energy rates" : "no tokens";
  if (goal.minimise == "chips") return fmt::format("{:g} chip{}", cost, cost == 1 ? "" : "s");
  return fmt::format("{:.4g} {}", shown_cost(goal, cost), cost_label(goal));
}

// The latencies the goal bounds, as the point reached them.
std::string bounded_text(const ServeGoal& goal, const ServeMetrics& m) {
  std::string out;
  for (const SloLimit& l : goal.latencies)
    out += (out.empty() ? "" : ", ") +
           fmt::format("{} {:.1f} ms", metric_label(l.metric), latency_s(m, l.metric) * 1e3);
  if (goal.slo_attained)
    out += (out.empty() ? "" : ", ") +
           fmt::format("{:.1f} % within the SLOs", std::max(m.slo_attained, 0.0) * 100);
  return out;
}

// How a tie at the cheapest figure was broken, when there was one.
std::string tie_text(const SweepSpec& spec, const ServeGoal& goal, const PointResults& results,
                     double cost, const ServeMetrics& chosen) {
  size_t tied = 0;
  for (const auto& [index, r] : results) {
    const Verdict v = judge(spec, goal, r);
    tied += v.meets && v.cost == cost ? 1 : 0;
  }
  if (tied < 2) return "";
  return fmt::format(
      "; {} meeting points tie at {}: fewer chips, then less energy per token (this one's {}), "
      "then the earlier point broke it",
      tied, cost_text(goal, cost),
      chosen.joules_per_token > 0 ? fmt::format("{:.1f} mJ", chosen.joules_per_token * 1e3)
                                  : "none stated");
}

}  // namespace

std::string cost_label(const ServeGoal& goal) {
  if (goal.minimise == "energy_per_token") return "mJ/token";
  if (goal.minimise == "cost_per_million_tokens") return "cost/Mtok";
  return "chips";
}

double shown_cost(const ServeGoal& goal, double cost) {
  return goal.minimise == "energy_per_token" ? cost * 1e3 : cost;
}

Verdict judge(const SweepSpec& spec, const ServeGoal& goal, const PointResult& r) {
  Verdict v;
  if (!r.ok || !r.serve) return v;
  const ServeMetrics& m = *r.serve;
  v.judged = true;
  v.cost = cost_of(spec, goal, r);
  if (!m.sustainable) {
    v.why = fmt::format("unsustainable: {:.3f} req/s offered, {:.3f} sustained", m.offered_rps,
                        m.sustained_rps);
    v.excess = m.sustained_rps > 0 ? m.offered_rps / m.sustained_rps : kInfinity;
    return v;
  }
  std::vector<std::string> missed;
  for (const SloLimit& l : goal.latencies) {
    const double ms = latency_s(m, l.metric) * 1e3;
    v.excess = std::max(v.excess, ms / l.limit_ms);
    if (ms > l.limit_ms)
      missed.push_back(
          fmt::format("{} {:.1f} ms > {:g} ms", metric_label(l.metric), ms, l.limit_ms));
  }
  if (goal.slo_attained) {
    const double attained = std::max(m.slo_attained, 0.0);
    v.excess = std::max(v.excess, attained > 0 ? *goal.slo_attained / attained : kInfinity);
    if (attained < *goal.slo_attained)
      missed.push_back(fmt::format("{:.1f} % of requests within the SLOs < {:g} %", attained * 100,
                                   *goal.slo_attained * 100));
  }
  v.meets = missed.empty();
  for (const std::string& m_text : missed) v.why += (v.why.empty() ? "" : "; ") + m_text;
  return v;
}

Choice choose(const SweepSpec& spec, const ServeGoal& goal, const PointResults& results) {
  Choice c;
  std::tuple<double, int64_t, double> best{};
  std::tuple<bool, double> nearest{};
  for (const auto& [index, r] : results) {
    const Verdict v = judge(spec, goal, r);
    if (!v.judged) continue;
    if (v.meets) {
      std::tuple<double, int64_t, double> key{v.cost, r.serve->chips, energy_rank(*r.serve)};
      if (!c.cheapest || key < best) c.cheapest = index, best = key;
      continue;
    }
    std::tuple<bool, double> key{!r.serve->sustainable, v.excess};
    if (!c.closest || key < nearest) c.closest = index, nearest = key;
  }
  if (c.cheapest) c.closest.reset();
  return c;
}

std::string goal_text(const SweepSpec& spec, const PointResults& results) {
  const ServeGoal& goal = *spec.goal;
  std::string out = goal_line(goal);
  for (const auto& [index, r] : results) {
    const Verdict v = judge(spec, goal, r);
    std::string verdict =
        !v.judged ? "failed"
        : v.meets ? "meets   " + cost_text(goal, v.cost) + "  " + bounded_text(goal, *r.serve)
                  : "misses  " + cost_text(goal, v.cost) + "  " + v.why;
    out += fmt::format("  {:>4}  {}  {}\n", index, point_words(spec, r), verdict);
  }
  const Choice c = choose(spec, goal, results);
  if (c.cheapest) {
    const PointResult& r = results.at(*c.cheapest);
    const double cost = judge(spec, goal, r).cost;
    return out + fmt::format("cheapest meeting point: {} ({}): {}{}\n", *c.cheapest,
                             point_words(spec, r), cost_text(goal, cost),
                             tie_text(spec, goal, results, cost, *r.serve));
  }
  if (!c.closest) return out + "no point meets the goal, and none ran to be judged\n";
  const PointResult& r = results.at(*c.closest);
  const Verdict v = judge(spec, goal, r);
  return out + fmt::format("no point meets the goal; closest: point {} ({}): {}\n", *c.closest,
                           point_words(spec, r), v.why);
}

}  // namespace tessera::dse
