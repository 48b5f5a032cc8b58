// What `tessera serve` prints: the machine and the KV room, the step-cost grid and its measured
// error, then the latency table and throughput — or, for a load the machine cannot sustain, that
// verdict with the rate it sustained instead of latencies. Text, or one JSON document
// ("tessera-serve-1", docs/formats.md).
#pragma once

#include <string>

#include "framework/serve/serve.hpp"

namespace tessera::serve {

struct ServeHeader {
  std::string model, chip, design, strategy, scheduler, load;  // as the user gave them
};

std::string serve_text(const ServeHeader& header, const Served& served);
std::string serve_json(const ServeHeader& header, const Served& served);

// "interpolation error 1.2 % (12 held-out steps) <= 3 %", or "... exceeds 3 %: ...".
std::string grid_error_text(const CostGrid& grid);

}  // namespace tessera::serve
