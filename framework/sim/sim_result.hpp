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
  double execute_start_s = 0;                       // the tag was seen; distribute_data starts
  double execute_end_s = 0;
  double isolated_s = 0;  // the same execute with nothing else on the network
};

// One trace track and its spans.
enum class TrackKind { program, preload_engine, core_group, hbm_controller };
struct Track {
  TrackKind kind = TrackKind::program;
  std::string name;  // "group 3 (chip 0, cores 1104-1471)", "HBM controller 5 (chip 1)"
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
  uint32_t groups = 0, cores = 0, controllers = 0;
  std::vector<Track> tracks;  // empty unless the trace was asked for
  std::vector<Span> spans;
};

}  // namespace tessera::sim
