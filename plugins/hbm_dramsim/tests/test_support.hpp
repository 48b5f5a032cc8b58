// Shared by the hbm_dramsim tests: devices from the shipped configs or inline text, and a driver
// that runs a request source (the host's, framework/memsim) through a MemorySystem and keeps
// every completion.
#pragma once

#include <memory>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <vector>

#include "config_files.hpp"
#include "dram_config.hpp"
#include "framework/memsim/request_sources.hpp"
#include "memory_system.hpp"

namespace tessera::hbm {

using memsim::RandomSource;
using sdk::drive_requests;
using sdk::StreamSource;

}  // namespace tessera::hbm

namespace tessera::hbm::testing {

inline std::string memory_config_path(const std::string& name) {
  return std::string(TESSERA_MEMORY_CONFIG_DIR) + "/" + name;
}

inline std::shared_ptr<const Device> device_from_text(const std::string& text) {
  return std::make_shared<const Device>(load_dram_config(text, "test.ini", true).config);
}

// The shipped config `file` with the line of `key` set to `value`.
inline std::string config_with(const std::string& file, const std::string& key,
                               const std::string& value) {
  std::string text = read_text_file(memory_config_path(file));
  size_t at = text.find("\n" + key + " = ");
  if (at == std::string::npos) throw std::runtime_error(file + " has no line for " + key);
  size_t end = text.find('\n', at + 1);
  return text.replace(at + 1, end - at - 1, key + " = " + value);
}

inline std::shared_ptr<const Device> device_from_file(const std::string& name) {
  return device_from_text(read_text_file(memory_config_path(name)));
}

// A finished request with what the test sent.
struct Finished {
  uint64_t address = 0;
  bool is_write = false;
  uint64_t issue = 0, done = 0;
  uint64_t latency() const { return done - issue; }
};

struct Run {
  std::vector<Finished> finished;
  ChannelStats total;
  std::vector<ChannelStats> channels;
  uint64_t offered = 0;  // requests accepted
};

// Drives `source` into `system` for `cycles` cycles from its current cycle.
inline Run run(MemorySystem& system, TrafficSource& source, uint64_t cycles) {
  Run result;
  std::unordered_map<uint64_t, TrafficRequest> sent;
  CompletionSink keep = [&](const tessera_memory_completion& c) {
    const TrafficRequest& r = sent.at(c.id);
    result.finished.push_back({r.address, r.is_write, c.issue_cycle, c.done_cycle});
    sent.erase(c.id);
  };
  result.offered = run_traffic(system, source, cycles, keep,
                               [&](uint64_t id, const TrafficRequest& r) { sent[id] = r; });
  result.total = system.total();
  result.channels = system.channel_stats();
  return result;
}

// A saturating (rate 0) or paced sequential stream, or uniformly random requests, into a fresh
// system of one stack; the system is kept for tests that look further.
struct Traffic {
  bool random = false;
  double rate_per_cycle = 0;
  uint64_t seed = 1;
  double write_fraction = 0;
};
inline Run run_on(MemorySystem& system, const Traffic& t, uint64_t cycles) {
  const uint64_t capacity = system.address_map().capacity_bytes();
  const uint32_t request = system.device().config.request_bytes;
  std::unique_ptr<TrafficSource> source;
  if (t.random)
    source = std::make_unique<RandomSource>(capacity, request, t.write_fraction, t.rate_per_cycle,
                                            t.seed);
  else
    source = std::make_unique<StreamSource>(capacity, request, 1, t.write_fraction,
                                            t.rate_per_cycle, t.seed);
  return run(system, *source, cycles);
}
inline Run run_fresh(const std::shared_ptr<const Device>& device, const Traffic& t,
                     uint64_t cycles) {
  MemorySystem system(device, 1);
  return run_on(system, t, cycles);
}

// Bytes per second of everything finished in `r` over the cycles simulated.
inline double bandwidth(const Run& r, const Device& device) {
  return static_cast<double>(r.total.reads_done + r.total.writes_done) *
         device.config.request_bytes /
         (static_cast<double>(r.total.cycles) * device.config.keys.tCK * 1e-9);
}

}  // namespace tessera::hbm::testing
