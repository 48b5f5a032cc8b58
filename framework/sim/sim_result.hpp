// What a simulation found: per-op intervals, bytes by flow kind and link class, utilisation over
// time, Elk's breakdown, and (when asked) the spans of trace.json. Times are seconds from the start
// of the step; bytes are machine totals.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "framework/planner/plan.hpp"
#include "framework/sim/flow_network.hpp"

namespace tessera::sim {

struct OpTiming {
  double preload_start_s = -1, preload_end_s = -1;  // -1: the op has no preload
  double execute_start_s = 0;                       // the tag was seen (and the command came)
  double execute_end_s = 0;
  // Of [execute_start_s, execute_end_s): waiting for the command beyond the tag, then the launch
  // (planner/schedule.hpp, "Fixed costs"); 0 without dispatch.
  double dispatch_s = 0;
  double isolated_s = 0;  // the same execute with nothing else on the network
  // Bytes × links crossed by the op's preload and execute, per link class, as the flows moved
  // them (compute counts its SRAM-port reads).
  std::array<double, kLinkClasses> link_bytes_by_class{};
};

// One trace track and its spans.
enum class TrackKind { program, preload_engine, stages };
struct Track {
  TrackKind kind = TrackKind::program;
  std::string name;  // "execute", "preload_async", "execute stages"
};
struct Span {
  uint32_t track = 0;
  int op = -1;
  std::string what;  // "execute", "preload_async", or a flow kind ("compute", "distribute", ...)
  double start_s = 0, end_s = 0;
};

struct SimResult {
  double latency_s = 0;
  planner::Breakdown breakdown;
  std::vector<OpTiming> ops;  // per program op
  double flops = 0;
  double hbm_read_bytes = 0;  // read from HBM by preloads (a replicated byte once)
  std::array<double, kFlowKinds> bytes_by_kind{};          // compute: SRAM bytes its cores read
  std::array<double, kLinkClasses> link_bytes_by_class{};  // bytes x links crossed
  std::array<double, kLinkClasses> class_capacity{};       // bytes per second, all links of a class
  // Utilisation over time: per bucket of bucket_s, per link class, bytes x links crossed.
  double bucket_s = 0;
  std::vector<std::array<double, kLinkClasses>> class_bytes_per_bucket;
  uint64_t events = 0;  // events handled: scheduled events plus flow completions
  uint64_t flows = 0;   // transfer sets scheduled (each one flow of the network)
  uint32_t cores = 0, controllers = 0;
  uint32_t links = 0;         // of the simulated network: the chip's, SRAM ports and hbm links
  double wall_s = 0;          // how long the simulation took (simulate_program), for the report
  std::vector<Track> tracks;  // empty unless the trace was asked for
  std::vector<Span> spans;

  double bytes_of(FlowKind kind) const { return bytes_by_kind[static_cast<size_t>(kind)]; }
};

}  // namespace tessera::sim
