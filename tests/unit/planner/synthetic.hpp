// Hand-made per-op plans for planner tests: a machine with round numbers (1 core, 1000 B of SRAM,
// 1000 B/s of HBM, a network fast enough never to be the bottleneck) and ops built from
// (space, time) points, so expected schedules can be worked out on paper.
#pragma once

#include <vector>

#include "framework/chip/machine.hpp"
#include "framework/planner/op_plans.hpp"

namespace tessera::planner::testing {

inline Machine round_machine(double sram_bytes = 1000) {
  Machine m;
  m.chip = "round";
  m.target = "synthetic";
  m.cores = 1;
  m.sram_bytes_per_core = static_cast<uint64_t>(sram_bytes);
  m.hbm_bytes_per_s = 1000;
  m.hbm_peak_bytes_per_s = 1000;
  m.preload_bytes_per_s_per_core = 1e12;
  m.shift_bytes_per_s_per_core = 1e12;
  m.interconnect_bytes_per_s = 1e12;
  m.peak_flops_per_s = 1e6;
  return m;
}

struct Point {
  double bytes = 0, time_s = 0;
};

// An op reading `hbm_bytes` from HBM; exec points (bytes ascending, time descending) become exec
// plans with compute only; every exec plan gets the same preload points (bytes, distribute_s),
// each moving hbm_bytes from HBM to the core.
inline OpPlans synthetic_op(double hbm_bytes, const std::vector<Point>& exec,
                            const std::vector<Point>& preload = {}) {
  OpPlans p;
  p.hbm_read_bytes = hbm_bytes;
  p.flops = 100;
  for (const auto& e : exec) {
    ExecPlan plan;
    plan.label = "exec";
    plan.tile = {1};
    plan.cores_used = 1;
    plan.exec_bytes_per_core = e.bytes;
    plan.hbm_operand_bytes_per_core = hbm_bytes;
    plan.compute_s = e.time_s;
    p.exec.push_back(plan);
    std::vector<PreloadPlan> list;
    for (const auto& q : preload) {
      PreloadPlan pre;
      pre.label = "preload";
      pre.preload_bytes_per_core = q.bytes;
      pre.hbm_to_core_bytes = hbm_bytes;
      pre.distribute_s = q.time_s;
      list.push_back(pre);
    }
    p.preload.push_back(list);
  }
  return p;
}

inline std::vector<int> identity_classes(size_t n) {
  std::vector<int> c(n);
  for (size_t i = 0; i < n; ++i) c[i] = static_cast<int>(i);
  return c;
}

}  // namespace tessera::planner::testing
