#include "framework/serve/step_cost.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

#include "framework/common/json_text.hpp"

namespace tessera::serve {

namespace {

constexpr const char* kGridFormat = "tessera-serve-grid-2";
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

// The geometric middles of [lo, t] and [t, hi] in a row of `batch`, where the middle is a step of
// its own: its mean context strictly between its ends'. Between neighbouring mean contexts there
// is no other step to simulate, so such an interval is not split further.
std::vector<int64_t> halves(int64_t batch, int64_t lo, int64_t t, int64_t hi) {
  std::vector<int64_t> out;
  for (auto [a, b] : {std::pair{lo, t}, std::pair{t, hi}}) {
    const int64_t m = geometric_middle(a, b), seq = mean_context(batch, m);
    if (mean_context(batch, a) < seq && seq < mean_context(batch, b)) out.push_back(m);
  }
  return out;
}

// Builds a grid: its points, its held-out points, then refinement's rounds. Counts every point
// simulated for `progress`, whose total grows by each round's new held-out points.
class GridBuilder {
 public:
  GridBuilder(const GridAxes& axes, const SimulatePoint& simulate,
              const std::function<void(int, int)>& progress, const Refinement& refine)
      : grid_{axes, {}, {}, {}, {}, false},
        simulate_(simulate),
        progress_(progress),
        refine_(refine) {}

  Result<CostGrid> build() {
    std::vector<HeldOut> pending = held_out_points(grid_.axes);
    total_ = static_cast<int>(grid_.axes.prefill_tokens.size() + pending.size());
    for (const auto& row : grid_.axes.context_tokens) total_ += static_cast<int>(row.size());
    if (Status ok = simulate_axes(); !ok) return ok.error();
    while (!pending.empty()) {
      auto next = check(std::move(pending));
      if (!next) return next.error();
      pending = std::move(*next);
    }
    for (HeldOut& h : grid_.held_out) h.interpolated_s = interpolated(h);
    return std::move(grid_);
  }

 private:
  Result<StepCost> point(Phase phase, int64_t batch, int64_t seq, bool report = true) {
    auto cost = simulate_(phase, batch, seq);
    ++done_;
    if (report && progress_) progress_(done_, total_);
    return cost;
  }

  double interpolated(const HeldOut& h) const {
    return grid_.decode_cost(static_cast<double>(h.batch), static_cast<double>(h.context_tokens))
        .seconds;
  }

  Status simulate_axes() {
    const GridAxes& axes = grid_.axes;
    for (size_t i = 0; i < axes.batches.size(); ++i) {
      grid_.decode.emplace_back();
      for (int64_t t : axes.context_tokens[i]) {
        auto cost = point(Phase::decode, axes.batches[i], mean_context(axes.batches[i], t));
        if (!cost) return cost.error();
        grid_.decode.back().push_back(*cost);
      }
    }
    for (int64_t p : axes.prefill_tokens) {
      auto cost = point(Phase::prefill, 1, p);
      if (!cost) return cost.error();
      grid_.prefill.push_back(*cost);
    }
    return ok_status();
  }

  // One round: `pending` simulated and compared with interpolation; those missing by more than
  // the threshold, the worst first, added to their rows while the bound allows. Returns the next
  // round's held-out points. The round's last point is reported once the next round's are
  // counted, so that done reaches total only at the grid's end.
  Result<std::vector<HeldOut>> check(std::vector<HeldOut> pending) {
    std::vector<StepCost> costs;
    for (size_t i = 0; i < pending.size(); ++i) {
      HeldOut& h = pending[i];
      auto cost = point(Phase::decode, h.batch, mean_context(h.batch, h.context_tokens),
                        i + 1 < pending.size());
      if (!cost) return cost.error();
      costs.push_back(*cost);
      h.simulated_s = cost->seconds;
      h.interpolated_s = interpolated(h);
    }
    std::vector<size_t> order(pending.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&pending](size_t a, size_t b) {
      return pending[a].error() > pending[b].error();
    });
    std::vector<HeldOut> next;
    std::vector<bool> added(pending.size(), false);
    for (size_t i : order) {
      if (pending[i].error() <= refine_.threshold) break;
      if (static_cast<int>(grid_.refined.size()) >= refine_.max_points) {
        grid_.refinement_bounded = true;
        break;
      }
      added[i] = true;
      for (int64_t t : add_point(pending[i], costs[i]))
        next.push_back(HeldOut{pending[i].batch, t, 0, 0});
    }
    for (size_t i = 0; i < pending.size(); ++i)
      if (!added[i]) grid_.held_out.push_back(pending[i]);
    total_ += static_cast<int>(next.size());
    if (progress_) progress_(done_, total_);
    return next;
  }

  // `h` made a point of its row at `cost`; the contexts to hold out in the two intervals it splits.
  std::vector<int64_t> add_point(const HeldOut& h, const StepCost& cost) {
    grid_.refined.push_back(h);
    const size_t r = static_cast<size_t>(
        std::find(grid_.axes.batches.begin(), grid_.axes.batches.end(), h.batch) -
        grid_.axes.batches.begin());
    auto& row = grid_.axes.context_tokens[r];
    const auto at = std::upper_bound(row.begin(), row.end(), h.context_tokens) - row.begin();
    const int64_t lo = row[static_cast<size_t>(at) - 1], hi = row[static_cast<size_t>(at)];
    row.insert(row.begin() + at, h.context_tokens);
    grid_.decode[r].insert(grid_.decode[r].begin() + at, cost);
    return halves(h.batch, lo, h.context_tokens, hi);
  }

  CostGrid grid_;
  const SimulatePoint& simulate_;
  const std::function<void(int, int)>& progress_;
  Refinement refine_;
  int done_ = 0, total_ = 0;
};

nlohmann::json held_json(const std::vector<HeldOut>& points) {
  nlohmann::json out = nlohmann::json::array();
  for (const HeldOut& h : points)
    out.push_back({{"batch", h.batch},
                   {"context_tokens", h.context_tokens},
                   {"simulated_s", h.simulated_s},
                   {"interpolated_s", h.interpolated_s}});
  return out;
}

std::vector<HeldOut> held_from(const nlohmann::json& doc) {
  std::vector<HeldOut> out;
  for (const auto& h : doc)
    out.push_back(HeldOut{h.at("batch").get<int64_t>(), h.at("context_tokens").get<int64_t>(),
                          h.at("simulated_s").get<double>(), h.at("interpolated_s").get<double>()});
  return out;
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
                      int64_t max_seq, int64_t batch_step) {
  GridAxes axes{geometric(batch_step, 2, max_batch), {}, {}};
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
                                 const std::function<void(int, int)>& progress,
                                 const Refinement& refine) {
  return GridBuilder(axes, simulate, progress, refine).build();
}

std::string cost_grid_json(const CostGrid& g, const std::string& key) {
  nlohmann::json decode = nlohmann::json::array();
  for (const auto& row : g.decode) decode.push_back(costs_json(row));
  nlohmann::json doc = {{"format", kGridFormat},
                        {"key", key},
                        {"batches", g.axes.batches},
                        {"context_tokens", g.axes.context_tokens},
                        {"prefill_tokens", g.axes.prefill_tokens},
                        {"decode", decode},
                        {"prefill", costs_json(g.prefill)},
                        {"held_out", held_json(g.held_out)},
                        {"refined", held_json(g.refined)},
                        {"refinement_bounded", g.refinement_bounded}};
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
    g.held_out = held_from(doc.at("held_out"));
    g.refined = held_from(doc.at("refined"));
    g.refinement_bounded = doc.at("refinement_bounded").get<bool>();
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
