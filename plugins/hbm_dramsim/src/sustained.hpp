// The fast mode: what long sequential read streams get from one device, measured once by running
// the detailed model and remembered for the life of the process.
//
// `streams` sequential read streams (bases drawn from `seed`) are interleaved request by request
// into one device through an in-order front end that offers as many requests per cycle as the
// controller accepts. Bandwidth is measured over four refresh periods after one period of warm-up,
// so refresh is included at its true share. Latency is the mean read latency of the same streams
// offered at half that bandwidth: the delay before a transfer's data starts to flow, without the
// queueing that saturation adds (the bandwidth term of a transfer accounts for the rest).
#pragma once

#include <memory>

#include "memory_system.hpp"

namespace tessera::hbm {

struct SustainedRate {
  double bytes_per_s = 0;  // one device (stack)
  double latency_s = 0;
};

// Runs the detailed model (two runs of a few hundred thousand cycles at most).
SustainedRate measure_sustained(const std::shared_ptr<const Device>& device, uint32_t streams,
                                uint64_t seed);

// measure_sustained, cached per (device, streams, seed) for the whole process. Thread-safe.
SustainedRate cached_sustained(const std::shared_ptr<const Device>& device, uint32_t streams,
                               uint64_t seed);

}  // namespace tessera::hbm
