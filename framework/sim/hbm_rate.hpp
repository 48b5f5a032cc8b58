// The rate an HBM controller serves a preload at, from the chip's MemoryModel (docs/simulator.md).
//   fast: the Machine's sustained HBM bandwidth split over its controllers — build_chip measured
//         it once per chip with MemoryModel::sustained (long interleaved sequential streams), so
//         every simulation of a compile shares that one measurement.
//   full: every distinct preload size is streamed through the detailed model (sequential
//         addresses continuing where the last preload ended, as fast as it accepts them); the
//         measured bytes per second, as a fraction of the model's peak, scale the machine's peak.
//         One model stands for one memory stack; the stream is the preload's share of one stack.
// Without a MemoryModel both modes use the Machine's HBM bandwidth (the topology's memory links).
#pragma once

#include <functional>

#include "framework/chip/chip_models.hpp"
#include "framework/common/status.hpp"

namespace tessera::sim {

enum class MemoryDetail { fast, full };

struct HbmRate {
  double latency_s = 0;  // first byte of a stream
  // Bytes per second per controller for a preload of `preload_bytes` (machine total).
  std::function<Result<double>(double preload_bytes)> bytes_per_s;
};

// `chip` must outlive the returned function (full mode drives chip.memory). Errors: the machine
// has no HBM bandwidth or controllers (input), a failing MemoryModel call (plugin).
Result<HbmRate> hbm_rate(ChipModels& chip, MemoryDetail detail);

}  // namespace tessera::sim
