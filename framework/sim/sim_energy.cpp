#include "framework/sim/sim_energy.hpp"

#include <algorithm>

#include "framework/planner/partition/plan_space.hpp"

namespace tessera::sim {

namespace {

double class_bytes(const SimResult& r, LinkClass c) {
  return r.link_bytes_by_class[static_cast<size_t>(c)];
}

}  // namespace

Result<EnergyCounts> simulated_counts(const SimResult& result, const codegen::Program& program,
                                      const ir::Graph& graph) {
  EnergyCounts c;
  for (const codegen::ProgramOp& op : program.ops) {
    if (!(op.flops > 0)) continue;
    if (op.op < 0 || static_cast<size_t>(op.op) >= graph.ops().size())
      return Error{ErrorKind::internal, StatusCode::internal,
                   "program op '" + op.name + "' names no op of the graph"};
    auto shape = planner::partition::describe_op(graph, graph.ops()[op.op]);
    if (!shape) return shape.error();
    c.flops[dtype_name(shape->dtype)] += op.flops;
  }
  double exchanged = result.bytes_of(FlowKind::distribute) + result.bytes_of(FlowKind::shift) +
                     result.bytes_of(FlowKind::reduce);
  c.sram_read_bytes =
      result.bytes_of(FlowKind::compute) + result.bytes_of(FlowKind::writeback) + exchanged;
  c.sram_write_bytes = result.bytes_of(FlowKind::preload) + exchanged;
  c.on_chip_byte_links =
      class_bytes(result, LinkClass::on_chip) + class_bytes(result, LinkClass::memory);
  c.chip_byte_links = class_bytes(result, LinkClass::chip_to_chip);
  // A preload's copies of one byte cross the HBM links one by one in the flow model, but the DRAM
  // reads the byte once (the replication happens on the way): its reads, then the writebacks.
  c.off_chip_bytes = result.hbm_read_bytes;
  for (const codegen::ProgramOp& op : program.ops) c.off_chip_bytes += op.hbm_write_bytes;
  c.latency_s = result.latency_s;
  return c;
}

namespace {

// Each bucket's share of a per-bucket activity (all zero when there was none).
std::vector<double> shares(std::vector<double> activity) {
  double total = 0;
  for (double a : activity) total += a;
  for (double& a : activity) a = total > 0 ? a / total : 0;
  return activity;
}

// Per bucket, the FLOPs executed in it: each op's spread evenly over its execute interval.
std::vector<double> flops_per_bucket(const SimResult& r, const codegen::Program& program,
                                     size_t buckets) {
  std::vector<double> out(buckets, 0.0);
  for (size_t i = 0; i < program.ops.size() && i < r.ops.size(); ++i) {
    const double start = r.ops[i].execute_start_s, end = r.ops[i].execute_end_s;
    const double flops = program.ops[i].flops;
    if (!(flops > 0)) continue;
    if (!(end > start)) {
      out[std::min(buckets - 1, static_cast<size_t>(start / r.bucket_s))] += flops;
      continue;
    }
    for (size_t b = static_cast<size_t>(start / r.bucket_s); b < buckets; ++b) {
      double lo = std::max(start, b * r.bucket_s), hi = std::min(end, (b + 1) * r.bucket_s);
      if (hi <= lo) break;
      out[b] += flops * (hi - lo) / (end - start);
    }
  }
  return out;
}

}  // namespace

std::vector<double> power_over_time(const SimResult& r, const codegen::Program& program,
                                    const EnergyBreakdown& e) {
  const size_t buckets = r.class_bytes_per_bucket.size();
  if (buckets == 0 || !(r.bucket_s > 0)) return {};
  auto by_class = [&](std::initializer_list<LinkClass> classes) {
    std::vector<double> bytes(buckets, 0.0);
    for (size_t b = 0; b < buckets; ++b)
      for (LinkClass c : classes) bytes[b] += r.class_bytes_per_bucket[b][static_cast<size_t>(c)];
    return shares(std::move(bytes));
  };
  const std::pair<double, std::vector<double>> parts[] = {
      {e.compute_j, shares(flops_per_bucket(r, program, buckets))},
      {e.sram_j, by_class({LinkClass::sram_port})},
      {e.network_j, by_class({LinkClass::on_chip, LinkClass::memory})},
      {e.chip_to_chip_j, by_class({LinkClass::chip_to_chip})},
      {e.off_chip_j, by_class({LinkClass::hbm})},
      {e.static_j, std::vector<double>(buckets, 1.0 / static_cast<double>(buckets))}};
  std::vector<double> watts(buckets, 0.0);
  for (const auto& [joules, share] : parts)
    for (size_t b = 0; b < buckets; ++b) watts[b] += joules * share[b] / r.bucket_s;
  return watts;
}

}  // namespace tessera::sim
