#include "framework/driver/option_bounds.hpp"

#include <fmt/format.h>

#include <array>
#include <charconv>
#include <cmath>

#include "framework/common/user_text.hpp"
#include "framework/frontend/zoo/builders.hpp"

namespace tessera::driver {

namespace {

// A day of sampling; TCM itself needs seconds.
constexpr int64_t kMaxTimeLimitSeconds = 86400;
// A billion memory cycles take about two hours on one core (10 million: ~1 minute, see
// bench/memsim_bench.cpp); beyond that a run is a mistake, not a measurement.
constexpr int64_t kMaxMemoryCycles = 1'000'000'000;
// No memory model accepts more than a request per channel per cycle; 1024 channels is far above
// any stack in configs/memory.
constexpr int64_t kMaxRequestsPerCycle = 1024;
constexpr int64_t kMaxThreads = 1024;
// A day for one plugin's conformance run; the suite takes seconds on every shipped plugin.
constexpr int64_t kMaxPluginSeconds = 86400;
// Serving: a million requests per second is beyond any machine a chip file describes; ten million
// requests take minutes of simulation; an SLO beyond a day is a unit mistake.
constexpr int64_t kMaxServeRatePerS = 1'000'000;
constexpr int64_t kMaxServeRequests = 10'000'000;
constexpr int64_t kMaxSloMs = 86'400'000;

constexpr std::array kBounds = {
    OptionBound{"model", "--batch", true, 1, zoo::kMaxBatch, false},
    OptionBound{"model", "--seq", true, 1, zoo::kMaxSeq, false},
    OptionBound{"model", "--expert-skew", false, 0, static_cast<int64_t>(zoo::kMaxExpertSkew),
                false},
    OptionBound{"compile", "--threads", true, 1, kMaxThreads, false},
    OptionBound{"conformance", "--deadline", true, 1, kMaxPluginSeconds, false},
    OptionBound{"compile", "--max-displacement", true, 0, 8, false},
    OptionBound{"compile", "--max-preloads", true, 1, 4096, false},
    OptionBound{"simulate", "--ops", true, 0, 10'000'000, false},
    OptionBound{"layout", "--candidates", true, 1, 1000, false},
    OptionBound{"map", "--time-limit", false, 0, kMaxTimeLimitSeconds, true},
    OptionBound{"map", "--seed", true, 0, INT64_MAX, false},
    OptionBound{"map", "--threads", true, 0, kMaxThreads, false},
    OptionBound{"memsim", "--cycles", true, 1, kMaxMemoryCycles, false},
    OptionBound{"memsim", "--rate", false, 0, kMaxRequestsPerCycle, true},
    OptionBound{"memsim", "--streams", true, 1, 4096, false},
    OptionBound{"memsim", "--write-fraction", false, 0, 1, false},
    OptionBound{"memsim", "--seed", true, 0, INT64_MAX, false},
    OptionBound{"memsim", "--stacks", true, 1, 1024, false},
    OptionBound{"sweep", "--threads", true, 1, kMaxThreads, false},
    OptionBound{"serve", "--rate", false, 0, kMaxServeRatePerS, true},
    OptionBound{"serve", "--cv", false, 0, 100, true},
    OptionBound{"serve", "--requests", true, 1, kMaxServeRequests, false},
    OptionBound{"serve", "--seed", true, 0, INT64_MAX, false},
    OptionBound{"serve", "--max-batch", true, 1, 4096, false},
    OptionBound{"serve", "--token-budget", true, 1, zoo::kMaxSeq, false},
    OptionBound{"serve", "--block-tokens", true, 1, 4096, false},
    OptionBound{"serve", "--slo-ttft-ms", false, 0, kMaxSloMs, true},
    OptionBound{"serve", "--slo-tpot-ms", false, 0, kMaxSloMs, true},
};

template <class T>
bool parses_all(std::string_view text, T& value) {
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  return ec == std::errc() && end == text.data() + text.size();
}

bool within(const OptionBound& b, std::string_view text) {
  if (b.whole) {
    int64_t value = 0;
    return parses_all(text, value) && value >= b.min && value <= b.max;
  }
  double value = 0;
  if (!parses_all(text, value) || !std::isfinite(value)) return false;
  auto min = static_cast<double>(b.min);
  bool above = b.min_open ? value > min : value >= min;
  return above && value <= static_cast<double>(b.max);
}

}  // namespace

std::span<const OptionBound> option_bounds() {
  return kBounds;
}

const OptionBound* find_option_bound(std::string_view command, std::string_view option) {
  for (const OptionBound& b : kBounds)
    if (b.command == command && b.option == option) return &b;
  return nullptr;
}

std::string range_text(const OptionBound& bound) {
  return fmt::format("{}{}, {}]", bound.min_open ? "(" : "[", bound.min, bound.max);
}

std::string bound_violation(const OptionBound& bound, std::string_view text) {
  if (within(bound, text)) return "";
  return fmt::format("expected {} in {}, got {}", bound.whole ? "a whole number" : "a number",
                     range_text(bound), in_quotes(text));
}

}  // namespace tessera::driver
