// From a sweep point to what it runs: the model request and the chip spec with the point's values
// applied. Axis paths (docs/dse.md):
//   workload   model, batch, seq, mode, dtype, weight_dtype, precision (a precision file)
//   strategy   parallel (a strategy as --parallel takes it: flat, tp=8, pp=4,tp=2, auto, ...),
//              rank (latency, throughput, energy: how auto ranks the strategies it tries)
//   residency  residency (off, auto, weights, weights+kv, as --residency takes it)
//   dispatch   dispatch (none, traced, host, as --dispatch takes it)
//   chip       chip (a preset name or chip file of the base target)
//   knobs      memory.bandwidth_bytes_per_s  the machine's peak HBM bandwidth
//   (scale.hbm_bytes_per_s)
//              interconnect_scale            × on-chip network rates (scale.interconnect)
//              flops_scale                   × compute rate (scale.flops)
//              cores                         all cores: topology.cores_per_chip = cores / chips
//              core_cost                     plugin or tcm: who times one core's tiles
//   chip file  SECTION.PARAM for a section of the chip file (topology, cost_model, memory_model,
//              partitioner, layout_mapper, codegen), e.g. topology.kind, and scale.KEY
#pragma once

#include <string>
#include <vector>

#include "framework/common/status.hpp"
#include "framework/driver/driver.hpp"
#include "framework/dse/points.hpp"
#include "framework/dse/sweep_spec.hpp"
#include "framework/frontend/model_source.hpp"

namespace tessera::dse {

struct PointSetup {
  ModelRequest request;
  std::string model;  // as the results show it
  int64_t batch = 0, seq = 0;
  std::string mode, dtype;
  std::string parallel;       // as written; empty: flat
  std::string residency;      // as written; empty: the chip file's
  std::string dispatch;       // as written; empty: the chip file's
  std::string rank;           // as written; empty: latency (read only by parallel auto)
  driver::ResolvedChip chip;  // choice.chip as given (preset or file); spec with the point's values
};

// Errors (input): a value an axis cannot take (e.g. cores not divisible by the chips), an unknown
// chip preset. The plugins check their own parameters later, when the chip is opened.
Result<PointSetup> setup_point(const SweepSpec& spec, const Point& point, PluginSet& plugins);

// Before any point runs: every axis path exists (a chip-file parameter must be one the plugin
// reads), every knob value is a number > 0, every parallel value a strategy and every residency
// value a mode; every design is known. A serve sweep: check_serve_sweep (serve_point.hpp). The
// error names the sweep file's line and, for an unknown path, the valid paths nearest to it.
Status check_sweep(const SweepSpec& spec, PluginSet& plugins);

}  // namespace tessera::dse
