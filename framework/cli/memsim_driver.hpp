// `tessera memsim`'s engine: runs a request stream through the hbm_dramsim plugin and collects a
// MemoryRunReport.
//
// The ABI's statistics are totals; to report every channel on its own, the run uses one plugin
// object per channel (its `channel` parameter) and routes each request to the object of the
// channel its address maps to, with the address mapping of the same .ini. Channels are
// independent controllers, so this is the same simulation as one object for the whole system
// (a unit test of the plugin proves it); the in-order front end is kept: a request refused by its
// channel holds back every later one. Each object is advanced lazily, only when a request is
// offered to it and at the end.
#pragma once

#include <string>

#include "framework/plugin/plugin_set.hpp"
#include "framework/report/memory_report.hpp"

namespace tessera::cli {

struct MemsimOptions {
  std::string config;     // .ini path or a name in the shared memory config directory
  std::string generator;  // "stream" or "random"; empty with a trace
  std::string trace;      // DRAMsim3 trace file; empty with a generator
  double rate = 0;        // requests per cycle offered by a generator; 0 = as fast as accepted
  uint32_t streams = 1;
  double write_fraction = 0;
  uint64_t seed = 1;
  uint64_t cycles = 0;
  uint32_t stacks = 1;
  bool strict = false;
};

// Throws Failure: input errors for the config or trace (file:line), plugin errors otherwise.
MemoryRunReport run_memsim(PluginSet& plugins, const MemsimOptions& options);

}  // namespace tessera::cli
