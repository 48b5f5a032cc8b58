// What `tessera serve` prints: the machine and the KV room, the step-cost grid and its measured
// error, then the latency table and throughput — or, for a load the machine cannot sustain, that
// verdict with the rate it sustained instead of latencies. Text, or one JSON document
// ("tessera-serve-5", docs/formats.md).
#pragma once

#include <string>

#include "framework/serve/serve.hpp"

namespace tessera::serve {

struct ServeHeader {
  // as the user gave them; router: where replicas run
  std::string model, chip, design, strategy, scheduler, preemption, router, load;
  std::string prefill_chip, prefill_strategy;  // --disaggregate: the prefill group's (else empty)
};

// The served machine, the KV cache's room and the step-cost grid with its error (three lines), and
// the prefills priced beyond the grid when there were any (extrapolation_text).
std::string machine_text(const ServeHeader& header, const Served& served);
// machine_text, then `approximation` (the chip files' lines, report/approximation_report.hpp),
// then the latency table and throughput, or the verdict on an unsustainable load.
std::string serve_text(const ServeHeader& header, const Served& served,
                       const std::string& approximation = "");
std::string serve_json(const ServeHeader& header, const Served& served);

// A load sweep (`--rates`): one row per offered rate — what it sustained, TTFT and TPOT P50 and
// P99, tokens/s, goodput — or "unsustainable" and the rate sustained; and as JSON,
// "tessera-serve-load-2", each point serve_json's document.
std::string serve_load_text(const std::vector<Served>& points);
std::string serve_load_json(const std::vector<ServeHeader>& headers,
                            const std::vector<Served>& points);

// The grid's interpolation error over the decode steps the run took (CostGrid::error_within) and
// over the whole grid, "<= 3 %" or "EXCEEDS 3 %: ..." by the former.
std::string grid_error_text(const CostGrid& grid, const StepShape& largest);
// "extrap 3 prefill steps of 2 requests went beyond the grid's longest prefill (8192 tokens), up
// to 12000 tokens: priced by extrapolation from its last two lengths, not simulated"; a newline
// after it; empty when none did.
std::string extrapolation_text(const Extrapolation& extrapolated);
// Whether the run's figures stand within kMaxInterpolationError.
bool trusted(const Served& served);

}  // namespace tessera::serve
