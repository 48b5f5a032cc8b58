// The report of a memory-model run (`tessera memsim`): per channel and in total, bandwidth, read
// latency (mean and histogram), row-hit rate, command counts and energy, as text or JSON.
#pragma once

#include <tessera/plugin_abi.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "framework/common/histogram.hpp"
#include "framework/plugin/objects.hpp"

namespace tessera {

struct MemoryChannelReport {
  uint32_t channel = 0;
  tessera_memory_stats stats{};  // as the model reports it
  Histogram read_latency;        // cycles, from the completions
};

struct MemoryRunReport {
  std::string config;   // the .ini file
  std::string device;   // one line: protocol, channels, request size
  std::string traffic;  // one line: generator or trace
  uint32_t stacks = 1;
  MemoryInfo info;  // of the whole system
  uint64_t cycles = 0;
  uint64_t accepted = 0;  // requests the model queued
  std::vector<MemoryChannelReport> channels;

  // Sums over channels; bandwidth adds up, latency is the mean over all reads.
  tessera_memory_stats total() const;
  Histogram total_read_latency() const;
};

std::string render_text(const MemoryRunReport& report);
nlohmann::json render_json(const MemoryRunReport& report);

}  // namespace tessera
