#include "framework/sim/hbm_rate.hpp"

#include <algorithm>
#include <map>
#include <memory>
#include <vector>

namespace tessera::sim {

namespace {

// Streams `bytes` through the detailed model from `next_address`; returns bytes per second.
Result<double> stream_rate(MemoryModel& memory, const MemoryInfo& info, double bytes,
                           uint64_t& next_address) {
  uint64_t requests = std::max<uint64_t>(1, static_cast<uint64_t>(bytes / info.burst_bytes));
  uint64_t offered = 0, done = 0, cycles = 0;
  std::vector<tessera_memory_request> batch;
  // Offer requests until the model refuses one, then let it work: a front end that keeps every
  // queue full, as a preload's many streams do.
  constexpr uint64_t kStepCycles = 16;
  constexpr size_t kBatch = 1024;
  const uint64_t capacity = std::max<uint64_t>(info.burst_bytes, info.capacity_bytes);
  while (done < requests) {
    size_t accepted = 0;
    do {
      batch.clear();
      for (uint64_t i = offered; i < requests && batch.size() < kBatch; ++i)
        batch.push_back({i, (next_address + i * info.burst_bytes) % capacity, 0, 0});
      if (batch.empty()) break;
      auto n = memory.submit(batch.data(), batch.size());
      if (!n) return n.error();
      accepted = *n;
      offered += accepted;
    } while (accepted == batch.size());
    auto status = memory.advance(kStepCycles, [&](const tessera_memory_completion&) { ++done; });
    if (!status) return status.error();
    cycles += kStepCycles;
  }
  next_address += requests * info.burst_bytes;
  return static_cast<double>(requests * info.burst_bytes) * info.clock_hz /
         static_cast<double>(cycles);
}

}  // namespace

Result<HbmRate> hbm_rate(ChipModels& chip, MemoryDetail detail) {
  const auto& m = chip.machine;
  if (m.hbm_controllers == 0 || !(m.hbm_bytes_per_s > 0))
    return input_error("chip '" + m.chip +
                       "' has no HBM bandwidth or controllers; the simulator preloads from HBM");
  double peak = m.hbm_peak_bytes_per_s > 0 ? m.hbm_peak_bytes_per_s : m.hbm_bytes_per_s;
  double controllers = m.hbm_controllers;
  if (!chip.memory || detail == MemoryDetail::fast) {
    double rate = m.hbm_bytes_per_s / controllers;
    return HbmRate{m.hbm_latency_s, [rate](double) -> Result<double> { return rate; }};
  }
  MemoryModel& memory = *chip.memory;
  auto info = memory.info();
  if (!info) return info.error();
  struct State {
    std::map<double, double> by_bytes;
    uint64_t next_address = 0;
  };
  auto state = std::make_shared<State>();
  MemoryInfo mi = *info;
  auto measure = [&memory, mi, peak, controllers, state](double bytes) -> Result<double> {
    auto it = state->by_bytes.find(bytes);
    if (it != state->by_bytes.end()) return it->second;
    auto r = stream_rate(memory, mi, bytes * mi.peak_bytes_per_s / peak, state->next_address);
    if (!r) return r.error();
    double rate = *r / mi.peak_bytes_per_s * peak / controllers;
    state->by_bytes.emplace(bytes, rate);
    return rate;
  };
  return HbmRate{m.hbm_latency_s, measure};
}

}  // namespace tessera::sim
