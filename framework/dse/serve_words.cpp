#include "framework/dse/serve_words.hpp"

#include <algorithm>
#include <filesystem>
#include <functional>

#include "framework/driver/option_bounds.hpp"
#include "framework/dse/sweep_spec.hpp"
#include "framework/parallel/strategy.hpp"

namespace tessera::dse {

namespace {

namespace fs = std::filesystem;

using Apply = std::function<void(serve::ServeRequest&, const std::string&)>;

// One word: its option's bound (driver/option_bounds.hpp) when it is a number, else the values it
// takes (none listed: any text, or a check of its own in serve_word_problem), and where it goes.
struct Word {
  std::string name;
  std::string option;  // "--max-batch": its bound; empty: not a number
  std::vector<std::string> choices;
  Apply apply;
};

int64_t whole(const std::string& text) {
  return std::stoll(text);
}
double real(const std::string& text) {
  return std::stod(text);
}

const std::vector<Word>& words() {
  using R = serve::ServeRequest;
  using S = const std::string&;
  static const std::vector<Word> table = {
      {"model", "", {}, [](R& r, S v) { r.model.model = v; }},
      {"target", "", {}, [](R& r, S v) { r.chip.target = v; }},
      {"chip", "", {}, [](R& r, S v) { r.chip.chip = v; }},
      {"dtype", "", {"fp32", "fp16", "bf16", "fp8"}, [](R& r, S v) { r.model.dtype = v; }},
      {"weight_dtype",
       "",
       {"fp16", "bf16", "fp8", "bfp8"},
       [](R& r, S v) { r.model.weight_dtype = v; }},
      {"precision", "", {}, [](R& r, S v) { r.model.precision = v; }},
      {"design", "", {}, [](R& r, S v) { r.design = v; }},
      {"parallel", "", {}, [](R& r, S v) { r.parallel = v; }},
      {"scheduler", "", {"static", "continuous", "chunked"}, [](R& r, S v) { r.scheduler = v; }},
      {"preemption", "", {"recompute", "swap"}, [](R& r, S v) { r.preemption = v; }},
      {"router", "", {"least-loaded", "round-robin"}, [](R& r, S v) { r.router = v; }},
      {"max_batch", "--max-batch", {}, [](R& r, S v) { r.options.scheduler.max_batch = whole(v); }},
      {"token_budget",
       "--token-budget",
       {},
       [](R& r, S v) { r.options.scheduler.token_budget = whole(v); }},
      {"block_tokens", "--block-tokens", {}, [](R& r, S v) { r.options.block_tokens = whole(v); }},
      {"rate", "--rate", {}, [](R& r, S v) { r.load.rate_per_s = real(v); }},
      {"requests", "--requests", {}, [](R& r, S v) { r.load.requests = whole(v); }},
      {"seed", "--seed", {}, [](R& r, S v) { r.load.seed = static_cast<uint64_t>(whole(v)); }},
      {"arrivals", "", {"poisson", "gamma"}, [](R& r, S v) { r.arrivals = v; }},
      {"cv", "--cv", {}, [](R& r, S v) { r.load.gamma_cv = real(v); }},
      {"prompt", "", {}, [](R& r, S v) { r.prompt = v; }},
      {"output", "", {}, [](R& r, S v) { r.output = v; }},
      {"trace", "", {}, [](R& r, S v) { r.trace = v; }},
      {"slo_ttft_ms", "--slo-ttft-ms", {}, [](R& r, S v) { r.slo_ttft_ms = real(v); }},
      {"slo_tpot_ms", "--slo-tpot-ms", {}, [](R& r, S v) { r.slo_tpot_ms = real(v); }},
  };
  return table;
}

const Word* find_word(const std::string& name) {
  for (const Word& w : words())
    if (w.name == name) return &w;
  return nullptr;
}

std::string joined(const std::vector<std::string>& list, const std::string& last) {
  std::string out;
  for (size_t i = 0; i < list.size(); ++i)
    out += (i == 0 ? "" : i + 1 == list.size() ? " " + last + " " : ", ") + list[i];
  return out;
}

std::string beside(const SweepSpec& spec, const std::string& file) {
  if (file.empty() || fs::path(file).is_absolute()) return file;
  return (fs::path(spec.file).parent_path() / file).lexically_normal().string();
}

}  // namespace

const std::vector<std::string>& serve_words() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    for (const Word& w : words()) out.push_back(w.name);
    return out;
  }();
  return names;
}

const std::vector<std::string>& synthetic_load_words() {
  static const std::vector<std::string> names = {"rate", "requests", "seed",  "arrivals",
                                                 "cv",   "prompt",   "output"};
  return names;
}

std::string serve_word_problem(const std::string& word, const std::string& value) {
  const Word* w = find_word(word);
  if (!w) return "not a serve word";
  if (!w->option.empty())
    return driver::bound_violation(*driver::find_option_bound("serve", w->option), value);
  if (!w->choices.empty()) {
    if (std::find(w->choices.begin(), w->choices.end(), value) != w->choices.end()) return "";
    return "expected " + joined(w->choices, "or") + ", got '" + value + "'";
  }
  if (word == "prompt" || word == "output") {
    auto dist = serve::parse_length_dist(value, word);
    return dist ? "" : dist.error().message;
  }
  if (word == "design") {
    auto design = driver::parse_design_choice(value);
    if (!design) return design.error().message;
    return design->write_each ? "a serve point plans its steps with one design; name it" : "";
  }
  if (word == "parallel") {
    if (std::string problem = strategy_problem(value); !problem.empty()) return problem;
    return parallel::parse_strategy(value)->automatic
               ? "a serve point runs one strategy; sweep the strategies instead (values: "
                 "[flat, \"tp=2\", ...])"
               : "";
  }
  return value.empty() ? "expected a value" : "";
}

std::string serve_word(const SweepSpec& spec, const Point& point, const std::string& word) {
  for (size_t a = 0; a < spec.axes.size(); ++a)
    if (spec.axes[a].path == word) return point.values.at(a);
  auto it = spec.serve_base.find(word);
  return it == spec.serve_base.end() ? "" : it->second;
}

serve::ServeRequest serve_request(const SweepSpec& spec, const Point& point) {
  serve::ServeRequest request;
  for (const Word& w : words()) {
    std::string value = serve_word(spec, point, w.name);
    if (value.empty()) continue;
    if (w.name == "precision" || w.name == "trace") value = beside(spec, value);
    w.apply(request, value);
  }
  return request;
}

}  // namespace tessera::dse
