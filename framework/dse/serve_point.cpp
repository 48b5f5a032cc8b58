#include "framework/dse/serve_point.hpp"

#include <algorithm>
#include <map>
#include <memory>
#include <mutex>

#include "framework/dse/serve_words.hpp"
#include "framework/serve/serve_request.hpp"

namespace tessera::dse {

namespace {

ServeMetrics serve_metrics(const serve::Served& served, const Machine& machine) {
  const serve::ServeSummary& s = served.summary;
  ServeMetrics m;
  m.chips = machine.chips;
  m.requests = s.requests;
  m.sustainable = s.sustainable;
  m.offered_rps = s.offered_rps;
  m.sustained_rps = s.sustained_rps;
  m.requests_per_s = s.requests_per_s;
  m.tokens_per_s = s.tokens_per_s;
  m.ttft_p50_s = s.ttft_s.p50;
  m.ttft_p90_s = s.ttft_s.p90;
  m.ttft_p99_s = s.ttft_s.p99;
  m.tpot_p50_s = s.tpot_s.p50;
  m.tpot_p90_s = s.tpot_s.p90;
  m.tpot_p99_s = s.tpot_s.p99;
  m.e2e_p50_s = s.e2e_s.p50;
  m.e2e_p90_s = s.e2e_s.p90;
  m.e2e_p99_s = s.e2e_s.p99;
  m.goodput_rps = s.goodput_rps.value_or(-1);
  m.slo_attained = s.slo_attained.value_or(-1);
  m.joules_per_token = s.joules_per_token;
  m.grid_error = served.grid.error_within(served.run.largest).worst;
  m.trusted = serve::trusted(served);
  return m;
}

// The values `word` takes over the sweep: its axis's, else the base's (or none).
std::vector<std::string> values_of(const SweepSpec& spec, const std::string& word) {
  for (const Axis& a : spec.axes)
    if (a.path == word) return a.values;
  auto it = spec.serve_base.find(word);
  return {it == spec.serve_base.end() ? "" : it->second};
}

// The words a point's step-cost grid does not depend on: its load and the SLOs it is judged by.
bool grid_free(const std::string& word) {
  const auto& load = synthetic_load_words();
  return std::find(load.begin(), load.end(), word) != load.end() || word == "trace" ||
         word == "slo_ttft_ms" || word == "slo_tpot_ms";
}

// Points that differ only in their load (a rate axis) share one grid: they take turns, so the
// first builds it into the cache and the others read it there, where threads started together
// would each build it. Within one process; MPI ranks may still build one grid twice, which the
// cache's atomic writes keep harmless.
std::mutex& grid_turn(const SweepSpec& spec, const Point& point) {
  static std::mutex guard;
  static std::map<std::string, std::unique_ptr<std::mutex>> turns;
  std::string key;
  for (const std::string& word : serve_words())
    if (!grid_free(word)) key += word + "=" + serve_word(spec, point, word) + "\n";
  std::lock_guard lock(guard);
  std::unique_ptr<std::mutex>& turn = turns[spec.file + "\n" + key];
  if (!turn) turn = std::make_unique<std::mutex>();
  return *turn;
}

}  // namespace

Status check_serve_sweep(const SweepSpec& spec, PluginSet& plugins) {
  const std::string target = spec.serve_base.at("target");
  for (const std::string& model : values_of(spec, "model")) {
    driver::ModelWords words;
    words.model = model;
    auto request = driver::parse_model_request(words);
    Status ok = request ? serve::check_servable(*request) : Status(request.error());
    if (!ok) return input_error(spec.file + ": model '" + model + "': " + ok.error().message);
  }
  for (const std::string& chip : values_of(spec, "chip")) {
    auto opened = driver::open_chip(plugins, driver::ChipChoice{target, chip});
    if (!opened) return input_error(spec.file + ": " + opened.error().message);
  }
  return ok_status();
}

Status run_serve_point(const SweepSpec& spec, const Point& point, const Registry& registry,
                       PointResult& r) {
  serve::ServeRequest request = serve_request(spec, point);
  r.model = request.model.model;
  r.target = request.chip.target;
  r.chip = request.chip.chip;
  r.dtype = request.model.dtype.value_or("");
  r.strategy = request.parallel.empty() ? "flat" : request.parallel;
  std::lock_guard turn(grid_turn(spec, point));
  PluginSet plugins(registry);
  auto opened = serve::open_serve(plugins, request);
  if (!opened) return opened.error();
  r.chip = opened->chip->spec.name;
  r.approximation = opened->chip->spec.approximation;
  r.strategy = opened->machine.strategy_text;
  auto served = serve::serve_opened(*opened, {});
  if (!served) return served.error();
  r.serve = serve_metrics(*served, opened->chip->models.machine);
  return ok_status();
}

}  // namespace tessera::dse
