// The requests a server receives: each arrives at a time with a prompt to read and a number of
// tokens to write. Made synthetically (arrivals at a rate, lengths from a distribution, a seed) or
// read from a trace file (trace_file.hpp); either way checked against what the machine can hold.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "framework/common/status.hpp"

namespace tessera::serve {

struct Request {
  int64_t id = 0;        // position in arrival order
  double arrival_s = 0;  // from the start of the run
  int64_t prompt_tokens = 1;
  int64_t output_tokens = 1;  // the first comes from the prefill, the rest one per decode step
};

// How request lengths are drawn. The text form (`--prompt`, `--output`) is KIND:A[:B]:
//   fixed:N            every request N tokens
//   uniform:LO:HI      uniform whole numbers in [LO, HI]
//   normal:MEAN:SD     rounded, drawn again when below 1
//   lognormal:MEDIAN:SIGMA   exp(ln MEDIAN + SIGMA z), rounded up
//   zipf:S:MAX         P(n) proportional to n^-S over 1..MAX (many short, a long tail)
enum class LengthKind { fixed, uniform, normal, lognormal, zipf };
struct LengthDist {
  LengthKind kind = LengthKind::fixed;
  double a = 1, b = 0;
};
// Usage error naming `option` for an unknown kind, a missing or non-finite number, or numbers
// outside what the kind takes (lengths below 1, a negative SD or SIGMA, LO > HI, S <= 0).
Result<LengthDist> parse_length_dist(const std::string& text, const std::string& option);
std::string to_string(const LengthDist& dist);
// The largest length the distribution draws (normal and lognormal: unbounded, INT64_MAX).
int64_t max_length(const LengthDist& dist);

// Arrivals: Poisson (exponential gaps) or gamma gaps with a coefficient of variation (1: Poisson;
// above 1: burstier, below 1: more regular), at `rate_per_s` on average.
enum class ArrivalKind { poisson, gamma };
struct SyntheticLoad {
  ArrivalKind arrivals = ArrivalKind::poisson;
  double rate_per_s = 1;
  double gamma_cv = 1;
  LengthDist prompt, output;
  int64_t requests = 1000;
  uint64_t seed = 0;
};

// The same requests for the same load on every machine: draws come from std::mt19937_64, whose
// sequence the C++ standard fixes, through transforms written here (the standard library's
// distributions differ between implementations). Usage errors for a rate or CV that is 0,
// negative or not finite.
Result<std::vector<Request>> synthetic_requests(const SyntheticLoad& load);

// Refuses a request the machine could never serve, naming `source` (a trace's FILE:LINE, or the
// option that drew it) and how to fix it: a prompt plus output longer than `max_context_tokens`
// (`context_limit` says what sets it: the KV cache's capacity, or the model's learned positions).
Status check_request(const Request& request, int64_t max_context_tokens,
                     const std::string& context_limit, const std::string& source);

}  // namespace tessera::serve
