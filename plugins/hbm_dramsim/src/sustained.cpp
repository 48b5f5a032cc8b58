#include "sustained.hpp"

#include <algorithm>
#include <map>
#include <mutex>
#include <string>
#include <tuple>

namespace tessera::hbm {

namespace {

struct Window {
  uint64_t begin = 0, end = 0;
};

// Refresh periods make the measurement honest: one full rotation of whichever refresh is in use.
Window measurement_window(const Device& device) {
  const DramConfig& c = device.config;
  uint64_t period = c.refresh_policy == RefreshPolicy::bank_staggered
                        ? uint64_t{device.timing.refresh_bank_interval} * c.ranks * c.banks
                        : device.timing.refresh_interval;
  period = std::clamp<uint64_t>(period, 2'000, 100'000);
  return {period, 5 * period};
}

struct RunResult {
  uint64_t requests_in_window = 0;
  double read_latency_sum_cycles = 0;
};

RunResult run_streams(const std::shared_ptr<const Device>& device, uint32_t streams, uint64_t seed,
                      double rate_per_cycle, Window window) {
  MemorySystem system(device, 1);
  sdk::StreamSource source(system.address_map().capacity_bytes(), device->config.request_bytes,
                           streams, 0.0, rate_per_cycle, seed);
  RunResult result;
  CompletionSink count = [&](const tessera_memory_completion& done) {
    if (done.done_cycle < window.begin || done.done_cycle >= window.end) return;
    ++result.requests_in_window;
    result.read_latency_sum_cycles += static_cast<double>(done.done_cycle - done.issue_cycle);
  };
  run_traffic(system, source, window.end, count);
  return result;
}

}  // namespace

SustainedRate measure_sustained(const std::shared_ptr<const Device>& device, uint32_t streams,
                                uint64_t seed) {
  const Window window = measurement_window(*device);
  const double window_cycles = static_cast<double>(window.end - window.begin);
  const double tck_s = device->config.keys.tCK * 1e-9;
  RunResult full = run_streams(device, streams, seed, 0.0, window);
  SustainedRate rate;
  rate.bytes_per_s = static_cast<double>(full.requests_in_window) * device->config.request_bytes /
                     (window_cycles * tck_s);
  const double half_rate = 0.5 * static_cast<double>(full.requests_in_window) / window_cycles;
  if (half_rate <= 0) return rate;
  RunResult paced = run_streams(device, streams, seed, half_rate, window);
  if (paced.requests_in_window > 0)
    rate.latency_s = paced.read_latency_sum_cycles / paced.requests_in_window * tck_s;
  return rate;
}

SustainedRate cached_sustained(const std::shared_ptr<const Device>& device, uint32_t streams,
                               uint64_t seed) {
  using Key = std::tuple<std::string, uint32_t, uint64_t>;
  static std::mutex mutex;
  static std::map<Key, SustainedRate> cache;
  Key key{device->canonical, streams, seed};
  {
    std::lock_guard lock(mutex);
    if (auto it = cache.find(key); it != cache.end()) return it->second;
  }
  // Measured outside the lock: two threads may both measure a new key; they get equal results.
  SustainedRate rate = measure_sustained(device, streams, seed);
  std::lock_guard lock(mutex);
  return cache.emplace(std::move(key), rate).first->second;
}

}  // namespace tessera::hbm
