#include "framework/serve/requests.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <numbers>
#include <random>

#include "framework/common/user_text.hpp"

namespace tessera::serve {

namespace {

struct KindName {
  LengthKind kind;
  const char* name;
  int numbers;
};
constexpr KindName kKinds[] = {{LengthKind::fixed, "fixed", 1},
                               {LengthKind::uniform, "uniform", 2},
                               {LengthKind::normal, "normal", 2},
                               {LengthKind::lognormal, "lognormal", 2},
                               {LengthKind::zipf, "zipf", 2}};

std::vector<std::string> split(const std::string& text, char sep) {
  std::vector<std::string> parts;
  size_t start = 0;
  for (size_t end; (end = text.find(sep, start)) != std::string::npos; start = end + 1)
    parts.push_back(text.substr(start, end - start));
  parts.push_back(text.substr(start));
  return parts;
}

bool finite_number(const std::string& text, double& value) {
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  return ec == std::errc() && end == text.data() + text.size() && std::isfinite(value);
}

// What each kind's numbers must be, or empty.
std::string range_problem(const LengthDist& d) {
  switch (d.kind) {
    case LengthKind::fixed:
      return d.a >= 1 ? "" : "a length of at least 1 token";
    case LengthKind::uniform:
      return d.a >= 1 && d.b >= d.a ? "" : "1 <= LO <= HI";
    case LengthKind::normal:
    case LengthKind::lognormal:
      return d.a >= 1 && d.b >= 0 ? "" : "a centre of at least 1 token and a spread >= 0";
    case LengthKind::zipf:
      return d.a > 0 && d.b >= 1 ? "" : "an exponent S > 0 and MAX >= 1";
  }
  return "";
}

// A uniform double in [0, 1) from the generator's 53 high bits.
double unit(std::mt19937_64& rng) {
  return static_cast<double>(rng() >> 11) * 0x1.0p-53;
}
double exponential(std::mt19937_64& rng) {
  return -std::log1p(-unit(rng));
}
double standard_normal(std::mt19937_64& rng) {  // Box-Muller, one of the pair
  double u = 1 - unit(rng), v = unit(rng);
  return std::sqrt(-2 * std::log(u)) * std::cos(2 * std::numbers::pi * v);
}
// Marsaglia and Tsang, "A simple method for generating gamma variables" (ACM TOMS 26(3), 2000),
// with the boost for shape < 1 their section 6 gives.
double gamma(std::mt19937_64& rng, double shape) {
  if (shape < 1) return gamma(rng, shape + 1) * std::pow(1 - unit(rng), 1 / shape);
  const double d = shape - 1.0 / 3, c = 1 / std::sqrt(9 * d);
  for (;;) {
    double x = standard_normal(rng), v = std::pow(1 + c * x, 3);
    if (v <= 0) continue;
    double u = 1 - unit(rng);
    if (std::log(u) < 0.5 * x * x + d - d * v + d * std::log(v)) return d * v;
  }
}

class LengthDraw {
 public:
  explicit LengthDraw(const LengthDist& d) : d_(d) {
    if (d.kind != LengthKind::zipf) return;
    auto n = static_cast<int64_t>(d.b);
    cumulative_.reserve(static_cast<size_t>(n));
    double sum = 0;
    for (int64_t i = 1; i <= n; ++i) cumulative_.push_back(sum += std::pow(i, -d.a));
  }
  int64_t operator()(std::mt19937_64& rng) const {
    switch (d_.kind) {
      case LengthKind::fixed:
        return std::llround(d_.a);
      case LengthKind::uniform:
        return std::llround(d_.a) +
               static_cast<int64_t>(
                   unit(rng) * static_cast<double>(std::llround(d_.b) - std::llround(d_.a) + 1));
      case LengthKind::normal:
        for (;;) {
          int64_t n = std::llround(d_.a + d_.b * standard_normal(rng));
          if (n >= 1) return n;
        }
      case LengthKind::lognormal:
        return std::max<int64_t>(
            1, static_cast<int64_t>(std::ceil(d_.a * std::exp(d_.b * standard_normal(rng)))));
      case LengthKind::zipf: {
        double x = unit(rng) * cumulative_.back();
        return 1 +
               (std::upper_bound(cumulative_.begin(), cumulative_.end(), x) - cumulative_.begin());
      }
    }
    return 1;
  }

 private:
  LengthDist d_;
  std::vector<double> cumulative_;
};

}  // namespace

Result<LengthDist> parse_length_dist(const std::string& text, const std::string& option) {
  auto parts = split(text, ':');
  auto usage = [&](const std::string& why) {
    return usage_error(fmt::format(
        "{} {}: {}; give fixed:N, uniform:LO:HI, normal:MEAN:SD, lognormal:MEDIAN:SIGMA or "
        "zipf:S:MAX (lengths in tokens)",
        option, in_quotes(text), why));
  };
  const KindName* kind = nullptr;
  for (const KindName& k : kKinds)
    if (parts[0] == k.name) kind = &k;
  if (!kind) return usage("unknown distribution " + in_quotes(parts[0]));
  if (static_cast<int>(parts.size()) != kind->numbers + 1)
    return usage(fmt::format("{} takes {} number(s)", kind->name, kind->numbers));
  LengthDist d{kind->kind, 0, 0};
  if (!finite_number(parts[1], d.a) || (kind->numbers == 2 && !finite_number(parts[2], d.b)))
    return usage("expected finite numbers after the kind");
  if (d.kind == LengthKind::zipf && d.b > 1e7) return usage("MAX must be at most 10000000");
  if (std::string want = range_problem(d); !want.empty()) return usage("expected " + want);
  return d;
}

std::string to_string(const LengthDist& d) {
  for (const KindName& k : kKinds)
    if (k.kind == d.kind)
      return k.numbers == 1 ? fmt::format("{}:{:g}", k.name, d.a)
                            : fmt::format("{}:{:g}:{:g}", k.name, d.a, d.b);
  return "";
}

int64_t max_length(const LengthDist& d) {
  switch (d.kind) {
    case LengthKind::fixed:
      return std::llround(d.a);
    case LengthKind::uniform:
    case LengthKind::zipf:
      return std::llround(d.b);
    default:
      return std::numeric_limits<int64_t>::max();
  }
}

Result<std::vector<Request>> synthetic_requests(const SyntheticLoad& load) {
  if (!(std::isfinite(load.rate_per_s) && load.rate_per_s > 0))
    return usage_error(fmt::format(
        "--rate {}: expected requests per second, a finite number above 0 (e.g. --rate 2)",
        load.rate_per_s));
  if (load.arrivals == ArrivalKind::gamma && !(std::isfinite(load.gamma_cv) && load.gamma_cv > 0))
    return usage_error(fmt::format(
        "--cv {}: expected the gaps' coefficient of variation, a finite number above 0 (1: "
        "Poisson)",
        load.gamma_cv));
  std::mt19937_64 rng(load.seed);
  const LengthDraw prompt(load.prompt), output(load.output);
  const double shape = 1 / (load.gamma_cv * load.gamma_cv);
  std::vector<Request> requests;
  requests.reserve(static_cast<size_t>(load.requests));
  double t = 0;
  for (int64_t i = 0; i < load.requests; ++i) {
    double gap =
        load.arrivals == ArrivalKind::poisson ? exponential(rng) : gamma(rng, shape) / shape;
    t += gap / load.rate_per_s;
    requests.push_back(Request{i, t, prompt(rng), output(rng)});
  }
  return requests;
}

Status check_request(const Request& r, int64_t max_context_tokens, const std::string& context_limit,
                     const std::string& source) {
  if (r.prompt_tokens + r.output_tokens <= max_context_tokens) return ok_status();
  return input_error(fmt::format(
      "{}: prompt_tokens {} + output_tokens {} = {} exceeds the {} tokens one request may hold "
      "({}); shorten the request, or serve on a machine with more memory",
      source, r.prompt_tokens, r.output_tokens, r.prompt_tokens + r.output_tokens,
      max_context_tokens, context_limit));
}

}  // namespace tessera::serve
