#include "framework/serve/step_cost.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

#include "framework/common/json_text.hpp"

namespace tessera::serve {

namespace {

constexpr const char* kGridFormat = "tessera-serve-grid-1";
// Prefill lengths double up to this, then go up by it (llama_generation.py's padding).
constexpr int64_t kPrefillStep = 1024;

// `first`, then `first * factor`, ... below `last`, then `last`.
std::vector<int64_t> geometric(int64_t first, int64_t factor, int64_t last) {
  std::vector<int64_t> axis;
  for (int64_t v = std::min(first, last); v < last; v *= factor) axis.push_back(v);
  axis.push_back(last);
  return axis;
}

// The segment of `axis` that `x` falls in (the first or last for x outside), and x's fraction
// along it (below 0 or above 1 outside: linear extrapolation).
std::pair<size_t, double> locate(const std::vector<int64_t>& axis, double x) {
  if (axis.size() == 1) return {0, 0};
  auto it = std::upper_bound(axis.begin(), axis.end(), x);
  size_t i = it == axis.begin() ? 0 : static_cast<size_t>(it - axis.begin()) - 1;
  i = std::min(i, axis.size() - 2);
  auto lo = static_cast<double>(axis[i]), hi = static_cast<double>(axis[i + 1]);
  return {i, (x - lo) / (hi - lo)};
}

StepCost mix(const StepCost& a, const StepCost& b, double f) {
  return {a.seconds + f * (b.seconds - a.seconds), a.joules + f * (b.joules - a.joules)};
}

StepCost non_negative(StepCost c) {
  return {std::max(0.0, c.seconds), std::max(0.0, c.joules)};
}

int64_t geometric_middle(int64_t a, int64_t b) {
  return std::llround(std::sqrt(static_cast<double>(a) * static_cast<double>(b)));
}

// Every other context interval's middle in each batch row, a checkerboard over the rows.
std::vector<HeldOut> held_out_points(const GridAxes& axes) {
  std::vector<HeldOut> held;
  for (size_t i = 0; i < axes.batches.size(); ++i) {
    const auto& row = axes.context_tokens[i];
    for (size_t j = i % 2; j + 1 < row.size(); j += 2)
      held.push_back(HeldOut{axes.batches[i], geometric_middle(row[j], row[j + 1]), 0, 0});
  }
  return held;
}

nlohmann::json costs_json(const std::vector<StepCost>& costs) {
  nlohmann::json out = nlohmann::json::array();
  for (const StepCost& c : costs) out.push_back({c.seconds, c.joules});
  return out;
}

std::vector<StepCost> costs_from(const nlohmann::json& doc) {
  std::vector<StepCost> out;
  for (const auto& c : doc) out.push_back({c.at(0).get<double>(), c.at(1).get<double>()});
  return out;
}

}  // namespace

int64_t StepShape::prefill_tokens() const {
  int64_t sum = 0;
  for (int64_t chunk : prefill_chunks) sum += chunk;
  return sum;
}

GridAxes default_axes(int64_t max_batch, int64_t kv_tokens, int64_t max_prefill_tokens,
                      int64_t max_seq) {
  GridAxes axes{geometric(1, 2, max_batch), {}, {}};
  for (int64_t b : axes.batches) {
    int64_t first = std::max<int64_t>(256, b);
    int64_t last = std::min(kv_tokens, b * std::min(max_seq, kv_tokens));
    axes.context_tokens.push_back(geometric(first, 2, std::max(first, last)));
  }
  for (int64_t p = 16; p < max_prefill_tokens; p = p < kPrefillStep ? 2 * p : p + kPrefillStep)
    axes.prefill_tokens.push_back(p);
  axes.prefill_tokens.push_back(max_prefill_tokens);
  return axes;
}

double HeldOut::error() const {
  return simulated_s > 0 ? std::abs(interpolated_s - simulated_s) / simulated_s : 0;
}

int64_t mean_context(int64_t batch, int64_t context_tokens) {
  return std::max<int64_t>(1, context_tokens / batch);
}

size_t CostGrid::bucket(double batch) const {
  auto it = std::lower_bound(axes.batches.begin(), axes.batches.end(), batch);
  return std::min(static_cast<size_t>(it - axes.batches.begin()), axes.batches.size() - 1);
}

StepCost CostGrid::decode_cost(double batch, double context_tokens) const {
  size_t r = bucket(batch);
  auto [j, f] = locate(axes.context_tokens[r], context_tokens);
  return non_negative(mix(decode[r][j], decode[r][std::min(j + 1, decode[r].size() - 1)], f));
}

StepCost CostGrid::prefill_cost(double tokens) const {
  const auto& axis = axes.prefill_tokens;
  auto it = std::lower_bound(axis.begin(), axis.end(), tokens);
  if (it != axis.end()) return prefill[static_cast<size_t>(it - axis.begin())];
  auto [i, f] = locate(axis, tokens);
  return non_negative(mix(prefill[i], prefill[std::min(i + 1, prefill.size() - 1)], f));
}

StepCost CostGrid::cost(const StepShape& s) const {
  StepCost total;
  if (s.decode_seqs > 0) {
    StepCost d = decode_cost(static_cast<double>(s.decode_seqs),
                             static_cast<double>(s.decode_context_tokens));
    total = {total.seconds + d.seconds, total.joules + d.joules};
  }
  for (int64_t chunk : s.prefill_chunks) {
    StepCost p = prefill_cost(static_cast<double>(chunk));
    total = {total.seconds + p.seconds, total.joules + p.joules};
  }
  return total;
}

GridError CostGrid::error_within(const StepShape& largest) const {
  GridError e;
  const int64_t batch = axes.batches[bucket(static_cast<double>(largest.decode_seqs))];
  for (const HeldOut& h : held_out) {
    if (h.batch > batch || h.context_tokens >= 2 * largest.decode_context_tokens) continue;
    ++e.points;
    e.worst = std::max(e.worst, h.error());
  }
  return e;
}

GridError CostGrid::error() const {
  GridError e;
  for (const HeldOut& h : held_out) {
    ++e.points;
    e.worst = std::max(e.worst, h.error());
  }
  return e;
}

Result<CostGrid> build_cost_grid(const GridAxes& axes, const SimulatePoint& simulate,
                                 const std::function<void(int, int)>& progress) {
  CostGrid grid{axes, {}, {}, held_out_points(axes)};
  size_t points = axes.prefill_tokens.size() + grid.held_out.size();
  for (const auto& row : axes.context_tokens) points += row.size();
  int done = 0;
  auto point = [&](Phase phase, int64_t batch, int64_t seq) -> Result<StepCost> {
    auto cost = simulate(phase, batch, seq);
    if (progress) progress(++done, static_cast<int>(points));
    return cost;
  };
  for (size_t i = 0; i < axes.batches.size(); ++i) {
    grid.decode.emplace_back();
    for (int64_t t : axes.context_tokens[i]) {
      auto cost = point(Phase::decode, axes.batches[i], mean_context(axes.batches[i], t));
      if (!cost) return cost.error();
      grid.decode.back().push_back(*cost);
    }
  }
  for (int64_t p : axes.prefill_tokens) {
    auto cost = point(Phase::prefill, 1, p);
    if (!cost) return cost.error();
    grid.prefill.push_back(*cost);
  }
  for (HeldOut& h : grid.held_out) {
    auto cost = point(Phase::decode, h.batch, mean_context(h.batch, h.context_tokens));
    if (!cost) return cost.error();
    h.simulated_s = cost->seconds;
    h.interpolated_s =
        grid.decode_cost(static_cast<double>(h.batch), static_cast<double>(h.context_tokens))
            .seconds;
  }
  return grid;
}

std::string cost_grid_json(const CostGrid& g, const std::string& key) {
  nlohmann::json held = nlohmann::json::array();
  for (const HeldOut& h : g.held_out)
    held.push_back({{"batch", h.batch},
                    {"context_tokens", h.context_tokens},
                    {"simulated_s", h.simulated_s},
                    {"interpolated_s", h.interpolated_s}});
  nlohmann::json decode = nlohmann::json::array();
  for (const auto& row : g.decode) decode.push_back(costs_json(row));
  nlohmann::json doc = {{"format", kGridFormat},
                        {"key", key},
                        {"batches", g.axes.batches},
                        {"context_tokens", g.axes.context_tokens},
                        {"prefill_tokens", g.axes.prefill_tokens},
                        {"decode", decode},
                        {"prefill", costs_json(g.prefill)},
                        {"held_out", held}};
  return json_text(doc, 1) + "\n";
}

Result<CostGrid> read_cost_grid(const std::string& text, const std::string& key,
                                const std::string& file) {
  try {
    nlohmann::json doc = nlohmann::json::parse(text);
    if (doc.at("format") != kGridFormat || doc.at("key") != key)
      return input_error(file +
                         ": not a step-cost grid of this model, chip and options; delete it to "
                         "rebuild it");
    CostGrid g;
    g.axes = {doc.at("batches").get<std::vector<int64_t>>(),
              doc.at("context_tokens").get<std::vector<std::vector<int64_t>>>(),
              doc.at("prefill_tokens").get<std::vector<int64_t>>()};
    for (const auto& row : doc.at("decode")) g.decode.push_back(costs_from(row));
    g.prefill = costs_from(doc.at("prefill"));
    for (const auto& h : doc.at("held_out"))
      g.held_out.push_back(
          HeldOut{h.at("batch").get<int64_t>(), h.at("context_tokens").get<int64_t>(),
                  h.at("simulated_s").get<double>(), h.at("interpolated_s").get<double>()});
    bool rows_match = g.decode.size() == g.axes.batches.size() &&
                      g.axes.context_tokens.size() == g.decode.size() && !g.decode.empty();
    for (size_t i = 0; rows_match && i < g.decode.size(); ++i)
      rows_match = g.decode[i].size() == g.axes.context_tokens[i].size() && !g.decode[i].empty();
    if (!rows_match || g.prefill.size() != g.axes.prefill_tokens.size() || g.prefill.empty())
      return input_error(file +
                         ": the grid's costs do not match its axes; delete it to rebuild it");
    return g;
  } catch (const nlohmann::json::exception& e) {
    return input_error(
        fmt::format("{}: not a step-cost grid ({}); delete it to rebuild it", file, e.what()));
  }
}

}  // namespace tessera::serve
