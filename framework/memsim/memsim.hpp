// `tessera memsim`: any MemoryModel on its own, driven through the plugin ABI by host-side traffic.
//
// The model: one object of the target's memory_model for the whole memory system, built from the
// parameters the user gave and no others (`config`, `stacks`, `strict`; a relative `config`
// resolves from the working directory first), so a target that takes none of them runs with its
// own defaults and one that does not know one says so.
//
// The traffic (request_sources.hpp): `stream`, `random` or a DRAMsim3 trace, offered in order from
// cycle 0, each request no earlier than its cycle; a refused request is offered again next cycle
// and holds back every later one. The model is advanced to each offer's cycle and to the end. The
// requests go to the model in batches through MemoryModel::offer (ABI 1.4), which runs this front
// end inside the plugin (for a plugin built before 1.4, the host runs it over submit and advance:
// the same offers, cycle for cycle).
//
// The report (framework/memsim/memory_report.hpp), per channel and in total: the model's own
// statistics of each channel (get_channel_stats) and a read-latency histogram of its completions,
// each request counted on the channel that offer (channel_of) named for it; the totals are the
// sums over channels. The device line and the config path are the model's description and source.
// Both channel methods are ABI 1.1: a model without them (a plugin built for 1.0) is refused with
// one error saying so, at its first request.
//
// Threads and lifetimes: both calls run on the calling thread alone and start no threads; the
// model reports completions during its own calls. A MemoryModel is not thread-safe (the plugin
// ABI makes it not concurrent), and reports own their data.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "framework/memsim/memory_report.hpp"
#include "framework/memsim/request_sources.hpp"
#include "framework/plugin/objects.hpp"
#include "framework/plugin/plugin_set.hpp"

namespace tessera::memsim {

struct MemsimOptions {
  std::string target = "hbm_dramsim";  // a plugin providing memory_model: name, alias or path
  std::string config;                  // the model's `config` parameter; empty = not given
  std::optional<uint32_t> stacks;      // the model's `stacks` parameter, when given
  bool strict = false;                 // pass `strict: true`
  std::string generator;               // "stream" or "random"; empty with a trace
  std::string trace;                   // DRAMsim3 trace file; empty with a generator
  double rate = 0;                     // requests per cycle of a generator; 0 = as fast as accepted
  uint32_t streams = 1;
  double write_fraction = 0;
  uint64_t seed = 1;
  uint64_t cycles = 0;
};

// The whole command: builds the model, the traffic, runs, describes. Throws Failure: input errors
// for the target, the parameters (the plugin's message), the trace (file:line); plugin errors for
// a failing or ABI 1.0 model. Uses `plugins` (not thread-safe: serialise calls on one PluginSet)
// and, for a relative `config`, the working directory at the call; builds its own model and
// releases it before returning, so calls with distinct PluginSets may run at once.
MemoryRunReport run_memsim(PluginSet& plugins, const MemsimOptions& options);

// How requests are offered. `in_order`: each from its cycle on, as many per cycle as are accepted,
// before the model runs that cycle (sdk::drive_requests). `dramsim3_cpu`: as DRAMsim3's trace CPU
// (src/cpu.cc, TraceBasedCPU::ClockTick) offers a trace: at most one request per cycle, after the
// memory has run that cycle, a refused one again the next cycle; so a trace gives the timing it
// gives in DRAMsim3.
enum class FrontEnd { in_order, dramsim3_cpu };

// The run alone: `source` into `model` (fresh, at cycle 0) for `cycles` cycles. Fills the
// report's info, cycles, accepted and channels; the caller fills the descriptions. Borrows and
// drives `model` and `source` for the call: serialise calls on one model (or source).
MemoryRunReport drive_model(MemoryModel& model, TrafficSource& source, uint64_t cycles,
                            FrontEnd front_end = FrontEnd::in_order);

}  // namespace tessera::memsim
