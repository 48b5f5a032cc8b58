#include "framework/dse/serve_spec.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <tessera/sdk/nearest.hpp>

#include "framework/common/user_text.hpp"
#include "framework/driver/option_bounds.hpp"
#include "framework/dse/serve_words.hpp"

namespace tessera::dse {

namespace {

// The chips a serve sweep's points run on, as it writes them (the chip axis's, else the base's).
std::vector<std::string> chip_words(const SweepSpec& spec) {
  for (const Axis& a : spec.axes)
    if (a.path == "chip") return a.values;
  auto it = spec.serve_base.find("chip");
  return it == spec.serve_base.end() ? std::vector<std::string>{} : std::vector{it->second};
}

bool gives_word(const SweepSpec& spec, const std::string& word) {
  if (spec.serve_base.count(word)) return true;
  for (const Axis& a : spec.axes)
    if (a.path == word) return true;
  return false;
}

void parse_goal_prices(const YamlNode& node, const SweepSpec& spec, ServeGoal& goal) {
  const std::string cost = "cost_per_million_tokens";
  if (node.has("price_per_chip_hour")) {
    YamlNode prices = node.child("price_per_chip_hour");
    if (goal.minimise != cost)
      throw prices.fail("prices rank points by cost; add minimise: " + cost +
                        ", or remove the prices");
    if (!prices.is_map()) throw prices.fail("expected a map: CHIP: price of one chip for an hour");
    for (const auto& [chip, price] : prices.entries()) {
      double value = as_number(price);
      if (!(value > 0)) throw price.fail(fmt::format("expected a price > 0, got {}", value));
      goal.price_per_chip_hour[chip] = value;
    }
  }
  if (goal.minimise != cost) return;
  std::vector<std::string> chips = chip_words(spec);
  if (chips.empty())
    throw node.fail("minimise: " + cost +
                    " prices each point's chips, and the sweep names none; give base chip (or a "
                    "chip axis) and its price_per_chip_hour");
  for (const std::string& chip : chips)
    if (!goal.price_per_chip_hour.count(chip))
      throw node.fail("minimise: " + cost + ": no price_per_chip_hour for chip " + in_quotes(chip) +
                      "; give one for every chip the sweep runs on");
}

}  // namespace

ServeGoal parse_goal(const YamlNode& node, const SweepSpec& spec) {
  if (!node.is_map()) throw node.fail("expected a map: SLOs (ttft_p90_ms, ...) and minimise");
  std::vector<std::string> keys = goal_latency_keys();
  keys.insert(keys.end(), {"slo_attained", "minimise", "price_per_chip_hour"});
  node.only_keys(keys);
  ServeGoal goal;
  const driver::OptionBound& bound = *driver::find_option_bound("serve", "--slo-ttft-ms");
  for (const std::string& key : goal_latency_keys()) {
    if (!node.has(key)) continue;
    YamlNode value = node.child(key);
    std::string text = value.as_string();
    if (std::string problem = driver::bound_violation(bound, text); !problem.empty())
      throw value.fail(problem + " (milliseconds, a bare number: 1000 for 1 s, 50 for 50 ms)");
    goal.latencies.push_back({key.substr(0, key.size() - 3), std::stod(text)});
  }
  if (node.has("slo_attained")) {
    YamlNode value = node.child("slo_attained");
    double share = as_number(value);
    if (!(share > 0 && share <= 1))
      throw value.fail(fmt::format("expected a share of requests in (0, 1], got {}", share));
    if (!gives_word(spec, "slo_ttft_ms") && !gives_word(spec, "slo_tpot_ms"))
      throw value.fail(
          "counts the requests that meet slo_ttft_ms and slo_tpot_ms, and the sweep gives "
          "neither; add them to base");
    goal.slo_attained = share;
  }
  if (goal.latencies.empty() && !goal.slo_attained)
    throw node.fail("names no SLO: give at least one of ttft_p90_ms, tpot_p90_ms, ... (" +
                    fmt::format("{}", fmt::join(goal_latency_keys(), ", ")) + ") or slo_attained");
  goal.minimise = node.get_string("minimise", "chips");
  if (goal.minimise != "chips" && goal.minimise != "energy_per_token" &&
      goal.minimise != "cost_per_million_tokens")
    throw node.child("minimise")
        .fail("expected chips (the default), energy_per_token or cost_per_million_tokens, got " +
              in_quotes(goal.minimise));
  parse_goal_prices(node, spec, goal);
  return goal;
}

// A serve sweep's base: serve words (serve_words.hpp), each checked as `tessera serve` checks it.
std::map<std::string, std::string> parse_serve_base(const YamlNode& node) {
  if (!node.is_map()) throw node.fail("expected a map: model, target, chip, rate, ...");
  node.only_keys(serve_words());
  node.child("model");  // required, as for compile sweeps
  node.child("target");
  std::map<std::string, std::string> base;
  for (const auto& [word, value] : node.entries()) {
    std::string text = value.as_string();
    if (std::string problem = serve_word_problem(word, text); !problem.empty())
      throw value.fail(problem);
    base[word] = text;
  }
  return base;
}

// A serve sweep's axes move serve words; every value is checked before any point runs.
void check_serve_axes(const YamlNode& axes_node, const std::vector<Axis>& axes) {
  for (const Axis& axis : axes) {
    auto where = fmt::format("{}:{}: axes: ", printable(axes_node.file()), axis.line);
    const auto& known = serve_words();
    if (std::find(known.begin(), known.end(), axis.path) == known.end() || axis.path == "target") {
      std::string near = sdk::nearest(axis.path, known);
      throw Failure(input_error(
          where + "unknown path " + in_quotes(axis.path) + " for a serve sweep" +
          (near.empty() ? "" : "; did you mean " + in_quotes(near) + "?") +
          " (a serve sweep's axes are serve words: docs/dse.md, \"Serving points\"; one target "
          "per sweep)"));
    }
    for (const std::string& value : axis.values)
      if (std::string problem = serve_word_problem(axis.path, value); !problem.empty())
        throw Failure(
            input_error(where + axis.path + ": value " + in_quotes(value) + ": " + problem));
  }
}

// A trace gives the requests: a synthetic load's words beside it would be ignored.
void check_trace_alone(const YamlNode& root, const SweepSpec& spec) {
  if (!gives_word(spec, "trace")) return;
  for (const std::string& word : synthetic_load_words())
    if (gives_word(spec, word))
      throw root.child("base").fail(
          "trace and " + word +
          ": a trace gives the requests (their arrivals and lengths); remove " + word +
          ", or the trace");
}

}  // namespace tessera::dse
