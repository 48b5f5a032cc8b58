// The words of a serve sweep (`kind: serve`, docs/dse.md "Serving points"): `tessera serve`'s
// options spelt with '_' (max_batch for --max-batch), each a base key and an axis path. They are
// checked as the command checks them (the same bounds, choices and length distributions), so a
// sweep refuses what `tessera serve` refuses, and a point becomes the request the command and
// Python's tessera.serve build from the same words (serve_request.hpp).
//
//   model target chip dtype weight_dtype precision design parallel   the server
//   scheduler preemption router max_batch token_budget block_tokens   its scheduler
//   rate requests seed arrivals cv prompt output trace                 the load
//   slo_ttft_ms slo_tpot_ms                                            goodput's SLOs
#pragma once

#include <string>
#include <vector>

#include "framework/dse/points.hpp"
#include "framework/serve/serve_request.hpp"

namespace tessera::dse {

const std::vector<std::string>& serve_words();

// Why `value` is not what `word` takes, worded as `tessera serve` words it without the option's
// name ("expected a whole number in [1, 4096], got '0'"); empty when it is. Parallel `auto` is
// refused: a serve point runs one strategy.
std::string serve_word_problem(const std::string& word, const std::string& value);

// The words a trace replaces (rate, requests, seed, arrivals, cv, prompt, output): a sweep giving
// both is refused (sweep_spec.hpp), as `tessera serve` refuses --rate with --trace.
const std::vector<std::string>& synthetic_load_words();

// The request of a point: the base's words, then the point's axis values over them. Precision
// and trace files are relative to the sweep file. The words were checked when the sweep was read.
serve::ServeRequest serve_request(const SweepSpec& spec, const Point& point);

// A point's word: its axis value, else the base's, else empty.
std::string serve_word(const SweepSpec& spec, const Point& point, const std::string& word);

}  // namespace tessera::dse
